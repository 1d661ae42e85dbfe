package master

import (
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
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
	// The shrink names bob's job, as a preemption would: in the event
	// log, on alice's attempt, and in her project's preemption budget,
	// live and as a restart counts it again from the log.
	evs, err := h.st.Events(h.ctx, store.EventFilter{JobID: alice, To: string(store.TaskPreempting)})
	if err != nil {
		t.Fatal(err)
	}
	bobRef := "job " + strconv.FormatInt(bob, 10)
	if len(evs) != 1 || evs[0].Cause != store.CauseResized || evs[0].ForJob != bob || !strings.Contains(evs[0].Reason, bobRef) {
		t.Fatalf("alice's preempting events %+v, want one resize for bob's job %d", evs, bob)
	}
	var j api.Job
	if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(alice, 10), nil, &j); code != 200 || len(j.TaskList) != 1 {
		t.Fatalf("job %d: status %d, %+v", alice, code, j)
	}
	if by := j.TaskList[0].Attempts[0].PreemptedBy; by == nil || by.Job != bob || by.Reason != string(store.CauseResized) {
		t.Fatalf("alice's first attempt preempted by %+v, want bob's job %d (resized)", by, bob)
	}
	h.m.lock()
	live := h.m.planner.preemptedCount("default", h.clock.Now())
	h.m.planner.preempted = newPreemptBudget()
	err = h.m.planner.restoreBudgets(h.ctx)
	restored := h.m.planner.preemptedCount("default", h.clock.Now())
	h.m.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if live != 1 || restored != 1 {
		t.Fatalf("preemptions counted for the shrink: %d live, %d restored; want 1 and 1", live, restored)
	}
}

// TestFairShareShrinkExplained: bob's dry run next to alice's grown
// elastic job in a fair-share pool read "once job 1 is preempted and
// checkpoints", with no table: it now lists the shrink the submission
// would set off (Would resize: job, from and to slots, why) and says it
// would start once that checkpoint lands; once submitted, explain says
// what it waits for as a shrink, not a preemption.
func TestFairShareShrinkExplained(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fair_share, preemption: true}\n")))
	a := h.agent("n1", 2)
	alice := h.submit(jobSpec("alice", 2, `, "min_slots": 1, "preemptible": true`))
	h.step()
	h.sync(a, a)
	bobSpec := jobSpec("bob", 1, "")
	var d api.DryRun
	if code := h.do("POST", "/api/v1/jobs?dry_run=true", bobSpec, &d); code != 200 {
		t.Fatalf("dry run: %d", code)
	}
	if len(d.Resizes) != 1 || d.Resizes[0].Job != alice || d.Resizes[0].From != 2 || d.Resizes[0].To != 1 ||
		d.Resizes[0].Name != "alice" || !strings.Contains(d.Resizes[0].Why, "fair share") {
		t.Fatalf("dry run resizes %+v, want alice's job %d from 2 slots to 1, for fair share", d.Resizes, alice)
	}
	ref := "job " + strconv.FormatInt(alice, 10)
	if len(d.Preempts) != 0 || d.WouldStart != nil || d.StartsNow ||
		!strings.Contains(d.Summary, "It would shrink "+ref+" from 2 slots to 1 and start once its checkpoint has landed.") {
		t.Fatalf("dry run %+v, want the shrink in its summary and no preemption", d)
	}
	// Its reason says what frees the slot: a resize, not a preemption.
	if d.Pending == nil {
		t.Fatalf("dry run %+v has no reason", d)
	}
	checkSays(t, "dry run reason", d.Pending.Message,
		[]string{"slots are being freed by resizing " + ref + "; waiting for its checkpoint (needs 1 slot)"}, []string{"preempt"})
	bob := h.submit(bobSpec)
	h.step()
	x := explainAs(t, h, h.admin, bob)
	if x.Pending == nil {
		t.Fatalf("explain %+v has no reason", x)
	}
	checkSays(t, "explain reason", x.Pending.Message, []string{"slots are being freed by resizing " + ref}, []string{"preempt"})
	h.step() // a later pass: the plan no longer holds the resize
	x = explainAs(t, h, h.admin, bob)
	if x.Pending == nil {
		t.Fatalf("explain after a second pass %+v has no reason", x)
	}
	checkSays(t, "explain reason after a second pass", x.Pending.Message, []string{"slots are being freed by resizing " + ref}, []string{"preempt"})
	cf := x.WouldStart
	if cf == nil || len(cf.MustEnd) != 1 || cf.MustEnd[0].ID != alice || cf.MustEnd[0].Resize == nil ||
		*cf.MustEnd[0].Resize != (api.SlotChange{From: 2, To: 1}) {
		t.Fatalf("would start %+v, want alice's job resized from 2 slots to 1", cf)
	}
	checkSays(t, "message", cf.Message, []string{"It could start on n1 once " + ref + " shrinks to 1 slot and checkpoints."},
		[]string{"preempted"})
}
