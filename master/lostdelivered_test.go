package master

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// TestLostNodeDeliveredStart: the start of a non-preemptible task reached
// its agent, which started the process and froze (SIGSTOP) before its
// running report went out. The master cannot tell that start from one
// that ran, so the node's loss holds the task through lost_node_grace
// rather than starting it on another node while it may still run on the
// first (a fault campaign ran such a job twice); back, the agent reports
// it running and it goes on. A start that never reached its agent is
// still started elsewhere at once.
func TestLostNodeDeliveredStart(t *testing.T) {
	for _, tc := range []struct {
		name      string
		delivered bool
		want      store.AttemptState // of attempt 1 on the loss: "" for open (held)
	}{
		{"delivered, not yet reported running", true, ""},
		{"never delivered", false, store.AttemptLost},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 1)
			id := h.submit(jobSpec("once", 1, `, "preemptible": false`))
			h.step()
			if tc.delivered {
				h.sync(a) // the start goes out; the running report never does
			}
			h.clock.Advance(DefaultAgentTimeout + 2*time.Second)
			b := h.agent("n2", 1)
			h.m.Tick(h.ctx)
			if h.m.nodes["n1"].up() {
				t.Fatal("n1 not lost after the agent timeout")
			}
			atts, err := h.st.Attempts(h.ctx, store.AttemptFilter{JobID: id})
			if err != nil {
				t.Fatal(err)
			}
			if len(atts) == 0 || atts[0].EndState != tc.want {
				t.Fatalf("attempts on the loss %+v; want the first ended %q", atts, tc.want)
			}
			h.step()
			h.sync(b)
			if started := len(b.Started()) > 0; started == tc.delivered {
				t.Fatalf("started on n2: %v; want %v", started, !tc.delivered)
			}
			if !tc.delivered {
				return
			}
			if _, err := a.Register(h.ctx); err != nil {
				t.Fatal(err)
			}
			h.sync(a)
			if got := h.taskState(id, 0); got != store.TaskRunning {
				t.Fatalf("back, task %s; want running, adopted", got)
			}
		})
	}
}
