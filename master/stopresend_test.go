package master

import (
	"strconv"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestStopSentAgain: a preempt or kill whose reply is lost on its way
// (the agent never gets it and lists the attempt running) goes to the
// agent again once stopResend has passed, rather than leaving the task
// preempting or killing, its GPUs held, for ever; not before, so that a
// stop on its way is not doubled. A registering agent (a new process)
// gets it at once.
func TestStopSentAgain(t *testing.T) {
	tests := []struct {
		name string
		stop func(h *harness, low int64)
		cmd  string
	}{
		{"preempt", func(h *harness, _ int64) {
			h.submit(jobSpec("high", 2, `, "priority": 10`))
			h.step()
		}, api.CommandPreempt},
		{"kill", func(h *harness, low int64) {
			if code := h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(low, 10)+"/kill", nil, nil); code != 200 {
				h.t.Fatalf("kill: %d", code)
			}
		}, api.CommandKill},
	}
	for _, tc := range tests {
		for _, again := range []string{"sync", "registration"} {
			t.Run(tc.name+"/"+again, func(t *testing.T) { testStopSentAgain(t, tc.stop, tc.cmd, again) })
		}
	}
}

func testStopSentAgain(t *testing.T, stop func(h *harness, low int64), cmd, again string) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: priority, preemption: true}\n")))
	a := h.agent("n1", 2)
	low := h.submit(jobSpec("low", 2, `, "priority": 80, "preemptible": true`))
	h.step()
	h.sync(a, a)
	stop(h, low)
	a.DropReplies = 1
	h.sync(a) // the reply with the stop is lost
	h.sync(a)
	if n := countCmds(a.Commands(), cmd); n != 0 {
		t.Fatalf("%d %s commands before stopResend, want none yet", n, cmd)
	}
	if again == "registration" {
		if _, err := a.Register(h.ctx); err != nil {
			t.Fatal(err)
		}
	} else {
		h.clock.Advance(stopResend)
		h.sync(a)
	}
	if n := countCmds(a.Commands(), cmd); n != 1 {
		t.Fatalf("%d %s commands after the %s, want it sent again once", n, cmd, again)
	}
	h.sync(a)
	if st := h.taskState(low, 0); st == store.TaskPreempting || st == store.TaskKilling || st == store.TaskRunning {
		t.Fatalf("low's task %s after its stop arrived, want it ended", st)
	}
}

func countCmds(cmds []api.Command, typ string) int {
	n := 0
	for _, c := range cmds {
		if c.Type == typ {
			n++
		}
	}
	return n
}
