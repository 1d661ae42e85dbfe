package master

import (
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestQuotaShrinkLive: in a quota pool, vision (quota 2) runs an elastic
// job grown to all 4 GPUs of n1 (min_slots 2) when nlp (quota 2) submits
// 2 GPUs. Reclaim may not evict the task (vision would fall below its
// quota), so the live master applies the core's shrink: vision's task
// restarts on 2 GPUs and nlp's job starts on the 2 it gave back, with the
// resize's reason naming the quota rule (sched's TestQuotaReclaimShrinks).
func TestQuotaShrinkLive(t *testing.T) {
	const cfg = "pools:\n  - {name: default, policy: quota}\ndefault_project: vision\nprojects:\n" +
		"  - {name: vision, quota: 2}\n  - {name: nlp, quota: 2}\n"
	h := newHarness(t, withConfig(mustConfig(t, cfg)))
	a := h.agent("n1", 4)
	el := h.submit(`{"name": "el", "project": "vision", "entrypoint": "x", "resources": {"slots": 4, "min_slots": 2, "preemptible": true}}`)
	h.step()
	h.sync(a, a)
	if on := nodesOf(t, h, el); on["n1"] != 4 {
		t.Fatalf("el holds %v, want all 4 GPUs of n1", on)
	}
	nlpSpec := `{"name": "nlp2", "project": "nlp", "entrypoint": "x", "resources": {"slots": 2}}`
	// The dry run names the shrink and the quota rule behind it.
	var d api.DryRun
	if code := h.do("POST", "/api/v1/jobs?dry_run=true", nlpSpec, &d); code != 200 {
		t.Fatalf("dry run: %d", code)
	}
	if len(d.Resizes) != 1 || d.Resizes[0].Job != el || d.Resizes[0].To != 2 ||
		d.Resizes[0].Why != "quota reclaim: project nlp is below its quota, project vision over it" {
		t.Fatalf("dry run's resizes %+v, want el from 4 to 2 by quota reclaim", d.Resizes)
	}
	nlp := h.submit(nlpSpec)
	for range 4 {
		h.step()
		h.sync(a, a)
	}
	if on := nodesOf(t, h, el); on["n1"] != 2 {
		t.Fatalf("el holds %v, want 2 GPUs of n1 after the shrink", on)
	}
	if st := h.taskState(nlp, 0); st != store.TaskRunning {
		t.Fatalf("nlp's task %s, want running on the GPUs el gave back", st)
	}
	evs, err := h.st.Events(h.ctx, store.EventFilter{JobID: el, To: string(store.TaskPreempting)})
	if err != nil {
		t.Fatal(err)
	}
	want := "resizing to 2 slots for job " + strconv.FormatInt(nlp, 10) +
		" (quota reclaim: project nlp is below its quota, project vision over it)"
	if len(evs) != 1 || evs[0].Cause != store.CauseResized || evs[0].ForJob != nlp || !strings.Contains(evs[0].Reason, want) {
		t.Fatalf("el's preempting events %+v, want one resize: %q", evs, want)
	}
}
