package master

import (
	"fmt"
	"testing"

	"github.com/allot-sched/allot/agent"
)

// TestResizeKilledKeepsItsGPUs: a kill of an elastic task whose resize
// is in flight lets go of its reservation (setTask, lifecycle's Enter:
// it left preempting) but not of the GPUs the resize kept of its old
// placement (placeReserved, lifecycle.KeptOn), which its attempt holds
// until its agent reports the end: another start must not take them
// while the killed processes may still run there. The master freed them
// with the reservation (releaseReserved).
func TestResizeKilledKeepsItsGPUs(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 8)
	a.HoldPreempt, a.HoldKill = true, true // it checkpoints, and dies, only when told
	other := h.submit(jobSpec("other", 6, ""))
	h.step()
	h.sync(a, a)
	elastic := h.submit(jobSpec("elastic", 8, `, "min_slots": 2, "preemptible": true`))
	h.step()
	h.sync(a, a)
	a.Exit(tid(other, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.step() // the elastic task grows in place: 2 GPUs kept, 2 more reserved
	h.sync(a)
	if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/kill", elastic), nil, nil); code != 200 {
		t.Fatalf("kill: %d", code)
	}
	h.sync(a)
	h.m.lock()
	tk := h.m.jobs[elastic].tasks[0] // an ended job leaves the map, its task stays as it was
	h.m.mu.Unlock()
	held := func() (state string, own, free int) {
		h.m.lock()
		defer h.m.mu.Unlock()
		n := h.m.nodes["n1"]
		for _, g := range n.rec.GPUs {
			switch n.used[g.Index] {
			case tk:
				own++
			case nil:
				free++
			}
		}
		return string(tk.rec.State), own, free
	}
	if st, own, free := held(); st != "killing" || own != 2 || free != 6 {
		t.Fatalf("killed while resizing: %s, holding %d GPUs, %d free; want killing, holding its 2, 6 free", st, own, free)
	}
	a.Exit(a.Running()[0], agent.OutcomeKilled, -1)
	h.sync(a)
	if st, own, free := held(); st != "killed" || own != 0 || free != 8 {
		t.Fatalf("after its end: %s, holding %d GPUs, %d free; want killed, none, 8 free", st, own, free)
	}
}
