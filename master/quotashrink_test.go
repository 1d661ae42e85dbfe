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

// TestQuotaShrinkNotEnough: trial k E. Reclaim could shrink vision's
// grown elastic task, but not by the 2 slots nlp's job needs: its
// min_slots, or vision's quota, stops it first. The dry run and explain
// said only "It could start on n1 once job 9 ends"; they now say how far
// it may shrink, what binds it, and what that would free.
func TestQuotaShrinkNotEnough(t *testing.T) {
	for _, tt := range []struct {
		name, quota, elastic, says string
	}{
		{"min_slots", "2", `"slots": 4, "min_slots": 3`, "may shrink only to 3 slots (min_slots), freeing 1 of the 2 it needs."},
		{"the project's quota", "3", `"slots": 4, "min_slots": 1`, "may shrink only to 3 slots (its project's quota), freeing 1 of the 2 it needs."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := "pools:\n  - {name: default, policy: quota}\ndefault_project: vision\nprojects:\n" +
				"  - {name: vision, quota: " + tt.quota + "}\n  - {name: nlp, quota: 2}\n"
			h := newHarness(t, withConfig(mustConfig(t, cfg)))
			a := h.agent("n1", 4)
			el := h.submit(`{"name": "el", "project": "vision", "entrypoint": "x", "resources": {` + tt.elastic + `, "preemptible": true}}`)
			h.step()
			h.sync(a, a)
			if on := nodesOf(t, h, el); on["n1"] != 4 {
				t.Fatalf("el holds %v, want all 4 GPUs of n1", on)
			}
			says := []string{"Reclaim frees nothing for it: ", "job " + strconv.FormatInt(el, 10) + " " + tt.says}
			nlpSpec := `{"name": "nlp2", "project": "nlp", "entrypoint": "x", "resources": {"slots": 2}}`
			var d api.DryRun
			if code := h.do("POST", "/api/v1/jobs?dry_run=true", nlpSpec, &d); code != 200 {
				t.Fatalf("dry run: %d", code)
			}
			if len(d.Resizes) != 0 || len(d.Preempts) != 0 {
				t.Fatalf("dry run resizes %+v, preempts %+v; want neither", d.Resizes, d.Preempts)
			}
			checkSays(t, "dry run", d.Summary, says, nil)
			if n := strings.Count(d.Summary, "Reclaim frees nothing"); n != 1 {
				t.Errorf("dry run says the reclaim sentence %d times: %q", n, d.Summary)
			}
			nlp := h.submit(nlpSpec)
			h.step()
			x := explainAs(t, h, h.admin, nlp)
			checkSays(t, "explain", x.Summary, says, nil)
		})
	}
}
