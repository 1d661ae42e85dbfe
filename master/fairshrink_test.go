package master

import (
	"strconv"
	"testing"

	"github.com/allot-sched/allot/store"
)

// TestFairShareShrinkLive: in a fair-share pool with preemption, alice's
// elastic job holds a 2-GPU node alone (min_slots 1); bob's 1-GPU job of
// weight 3 comes. The live master applies the core's shrink: alice's
// task is resized to 1 GPU (checkpoint, restart in place) and bob starts
// on the GPU it gave back, as the simulator does (sched's
// TestFairShareElasticGivesBack).
func TestFairShareShrinkLive(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fair_share, preemption: true}\n")))
	a := h.agent("n1", 2)
	alice := h.submit(jobSpec("alice", 2, `, "min_slots": 1, "preemptible": true`))
	h.step()
	h.sync(a, a)
	if on := nodesOf(t, h, alice); on["n1"] != 2 {
		t.Fatalf("alice holds %v, want both GPUs of n1", on)
	}
	bob := h.submit(jobSpec("bob", 1, `, "weight": 3`))
	for range 4 {
		h.step()
		h.sync(a, a)
	}
	if on := nodesOf(t, h, alice); on["n1"] != 1 {
		t.Fatalf("alice holds %v, want 1 GPU of n1 after the shrink", on)
	}
	if st := h.taskState(bob, 0); st != store.TaskRunning {
		t.Fatalf("bob's task %s, want running on the GPU alice gave back", st)
	}
	var sizes []int
	for _, s := range a.Started() {
		if s.JobID == strconv.FormatInt(alice, 10) {
			sizes = append(sizes, len(s.GPUs))
		}
	}
	if len(sizes) != 2 || sizes[0] != 2 || sizes[1] != 1 {
		t.Fatalf("alice's task started with %v GPUs, want 2 then 1", sizes)
	}
}
