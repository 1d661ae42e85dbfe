package master

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// TestGangUsageEndsAtLastExit: a task placed across two nodes whose
// agents go silent at different times is charged until its last part
// exited, by the agents' reports once each is back, and ends (its GPUs
// free) when the master heard of the last part's exit. Each node's
// agent is heard until heard minutes after the start, its part exits at
// exit minutes and the agent reports it at back minutes (a multiple of
// 5); until then the agent says the part runs whenever it is heard.
func TestGangUsageEndsAtLastExit(t *testing.T) {
	type part struct{ heard, exit, back float64 }
	cases := []struct {
		name              string
		n1, n2            part
		wantExit, wantEnd float64 // minutes after the start
	}{
		{name: "the silent node's part exits first", n1: part{heard: 20, exit: 25, back: 60}, n2: part{heard: 30, exit: 30, back: 30},
			wantExit: 30, wantEnd: 60},
		{name: "the heard node's part exits first", n1: part{heard: 20, exit: 40, back: 60}, n2: part{heard: 25, exit: 22, back: 25},
			wantExit: 40, wantEnd: 60},
		{name: "both silent, heard back in turn", n1: part{heard: 10, exit: 15, back: 60}, n2: part{heard: 20, exit: 30, back: 45},
			wantExit: 30, wantEnd: 60},
		{name: "both silent, the later exit heard first", n1: part{heard: 10, exit: 35, back: 45}, n2: part{heard: 20, exit: 25, back: 60},
			wantExit: 35, wantEnd: 60},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "agent_timeout: 2h\nlost_node_grace: 2h\n")))
			agents := []*mastertest.Agent{h.agent("n1", 2), h.agent("n2", 2)}
			parts := []part{c.n1, c.n2}
			id := h.submitAs("ana", jobSpec("gang", 4, `, "preemptible": false`))
			h.step()
			h.sync(agents...)
			h.sync(agents...)
			if n := len(h.job(id).TaskList[0].Attempts[0].Placement); n != 2 {
				t.Fatalf("the task runs on %d nodes, want 2", n)
			}
			start := h.clock.Now()
			minutes := func(m float64) time.Time { return start.Add(time.Duration(m * float64(time.Minute))) }
			task := tid(id, 0, 1)
			for m := 5.0; m <= max(c.n1.back, c.n2.back); m += 5 {
				h.clock.Advance(5 * time.Minute)
				for i, a := range agents {
					switch p := parts[i]; {
					case m == p.back:
						a.Forget(task)
						code := 0
						a.Inject(api.Report{Task: task, Event: api.EventExited, Outcome: string(agent.OutcomeCompleted),
							ExitCode: &code, At: minutes(p.exit)})
						h.sync(a)
					case m <= p.heard:
						h.sync(a)
					}
				}
				h.m.Tick(h.ctx)
				if done := h.taskState(id, 0) == store.TaskCompleted; done != (m >= c.wantEnd) {
					t.Fatalf("at %v minutes the task is %s", m, h.taskState(id, 0))
				}
			}
			checkExitUsageOf(t, h, id, 4, start, minutes(c.wantExit), minutes(c.wantEnd))
			h.clock.Advance(time.Minute)
			h.start()
			checkExitUsageOf(t, h, id, 4, start, minutes(c.wantExit), minutes(c.wantEnd))
		})
	}
}
