package master

import (
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/store"
)

// TestQuotaOwnShrinkLive: the live case. In a quota pool vision (quota 4)
// runs an elastic job grown to all 4 GPUs of n1 (min_slots 2) when a
// vision notebook of 2 GPUs, within vision's quota, arrives. It takes the
// place of vision's own preemptible work, which the master used to do by
// preempting the elastic job whole; now the core shrinks the task
// instead (sched's TestQuotaOwnShrinks): it restarts on 2 GPUs, its
// attempt ends resized, not preempted, and the notebook runs on the 2 it
// gave back.
func TestQuotaOwnShrinkLive(t *testing.T) {
	const cfg = "pools:\n  - {name: default, policy: quota}\ndefault_project: vision\nprojects:\n" +
		"  - {name: vision, quota: 4}\n"
	h := newHarness(t, withConfig(mustConfig(t, cfg)))
	a := h.agent("n1", 4)
	el := h.submit(`{"name": "el", "project": "vision", "entrypoint": "x", "resources": {"slots": 4, "min_slots": 2, "preemptible": true}}`)
	h.step()
	h.sync(a, a)
	if on := nodesOf(t, h, el); on["n1"] != 4 {
		t.Fatalf("el holds %v, want all 4 GPUs of n1", on)
	}
	nb := h.submit(`{"name": "nb", "kind": "notebook", "project": "vision", "entrypoint": "x", "resources": {"slots": 2}}`)
	for range 4 {
		h.step()
		h.sync(a, a)
	}
	if on := nodesOf(t, h, el); on["n1"] != 2 {
		t.Fatalf("el holds %v, want 2 GPUs of n1 after the shrink", on)
	}
	if st := h.taskState(nb, 0); st != store.TaskRunning {
		t.Fatalf("the notebook's task %s, want running on the GPUs el gave back", st)
	}
	evs, err := h.st.Events(h.ctx, store.EventFilter{JobID: el, To: string(store.TaskPreempting)})
	if err != nil {
		t.Fatal(err)
	}
	want := "resizing to 2 slots for job " + strconv.FormatInt(nb, 10) +
		" (the same project's work within its quota goes before its preemptible work)"
	if len(evs) != 1 || evs[0].Cause != store.CauseResized || evs[0].ForJob != nb || !strings.Contains(evs[0].Reason, want) {
		t.Fatalf("el's preempting events %+v, want one resize: %q", evs, want)
	}
}
