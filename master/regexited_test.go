package master

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestRegisteredExitedKeepsItsExit: a task exits while the master is
// down (restarted at 10 minutes), its agent back at 12. An agent whose
// exit report still waits for the task's output lines lists the attempt
// exited at registration (api.Register.Exited): the master keeps the
// attempt open through the first sync, which brings no report, and
// charges it, and stores its exit, at the exit the report gives a minute
// later; as it does when the report comes in the first sync. An agent
// older than the list names the attempt running, and the master charges
// it until the registration, as it charges any attempt an agent lists
// (trial 2026-11-29a A10: that was every agent, for 7-18 s × GPUs).
func TestRegisteredExitedKeepsItsExit(t *testing.T) {
	cases := []struct {
		name string
		// listed is how the registration names the attempt: "exited",
		// "running" (an agent older than the list) or "" (not at all:
		// its report was queued, and goes in the first sync).
		listed          string
		wantExit, heard float64 // minutes after the start
	}{
		{name: "listed exited: its exit kept", listed: "exited", wantExit: 7, heard: 13},
		{name: "reported in the first sync: its exit kept", listed: "", wantExit: 7, heard: 12},
		{name: "listed running by an older agent: charged until the registration", listed: "running", wantExit: 12, heard: 13},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "agent_timeout: 2h\nlost_node_grace: 2h\n")))
			a := h.agent("n1", 4)
			id := h.submitAs("ana", jobSpec("work", 2, `, "preemptible": false`))
			h.step()
			h.sync(a, a)
			start := h.clock.Now()
			minutes := func(m float64) time.Time { return start.Add(time.Duration(m * float64(time.Minute))) }
			task := tid(id, 0, 1)
			h.clock.Advance(5 * time.Minute)
			h.sync(a)
			h.m.Tick(h.ctx)

			code := 0
			exit := api.Report{Task: task, Event: api.EventExited, Outcome: string(agent.OutcomeCompleted),
				ExitCode: &code, At: minutes(7)}
			switch c.listed {
			case "exited":
				a.HoldExit(task)
			case "":
				a.Forget(task)
				a.Inject(exit)
			}
			h.clock.Advance(5 * time.Minute)
			h.start()
			h.clock.Advance(2 * time.Minute)
			a.Master = h.srv.URL
			reply, err := a.Register(h.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(reply.Commands) != 0 {
				t.Fatalf("registration's commands %+v, want none", reply.Commands)
			}
			h.m.Tick(h.ctx)
			h.sync(a)
			h.m.Tick(h.ctx)
			if c.listed != "" {
				if got := h.taskState(id, 0); got != store.TaskRunning {
					t.Fatalf("task %s after the first sync without its report, want running", got)
				}
				h.clock.Advance(time.Minute)
				a.Forget(task)
				a.Inject(exit)
				h.sync(a)
			}
			if got := h.taskState(id, 0); got != store.TaskCompleted {
				t.Fatalf("task %s, want completed", got)
			}
			checkExitUsage(t, h, id, start, minutes(c.wantExit), minutes(c.heard))
		})
	}
}

// TestRegistrationExitedChecked: a registration's exited attempts are
// task IDs, none listed running as well.
func TestRegistrationExitedChecked(t *testing.T) {
	h := newHarness(t)
	gpus := []api.GPU{{Index: 0, UUID: "GPU-n1-0", Type: "h100", MemoryMiB: 81920}}
	id := agent.TaskID{JobID: "1", TaskIndex: 0, Attempt: 1}
	cases := []struct {
		name    string
		reg     api.Register
		wantErr string
	}{
		{"a bad task ID", api.Register{Name: "n1", GPUs: gpus, Exited: []agent.TaskID{{JobID: "", Attempt: 1}}}, "exited[0]"},
		{"running too", api.Register{Name: "n1", GPUs: gpus, Running: []agent.TaskID{id}, Exited: []agent.TaskID{id}},
			"exited[0]: attempt 1/0/1 is listed running too"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e api.Error
			if code := h.doAs(h.join, "POST", "/api/v1/agents/register", c.reg, &e); code != 400 ||
				e.Field != "exited" || !strings.Contains(e.Error, c.wantErr) {
				t.Fatalf("registration: %d %+v, want 400 on field exited saying %q", code, e, c.wantErr)
			}
		})
	}
}
