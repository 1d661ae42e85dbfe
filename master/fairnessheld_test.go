package master

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestFairnessHeldTimeIsNoWait (trial 2026-11-29c C7): the time a job
// was on hold is shown apart (held_wait_s and the note), in none of the
// waits a lead reads (WAITED, MEAN and MAX WAIT) nor what flags the
// project; the rest of its wait counts as before.
func TestFairnessHeldTimeIsNoWait(t *testing.T) {
	cfg := mustConfig(t, twoHalves)
	until := time.Date(2026, 5, 8, 0, 0, 0, 0, time.UTC)
	since := until.Add(-time.Hour)
	started := until.Add(-time.Minute)
	job := api.HistoryRecord{ID: 1, Project: "b", Pool: "default", State: "running", Slots: 1, SubmittedAt: since,
		StartedAt: &started, WaitS: 3540}
	tests := []struct {
		name              string
		held              int64
		waited            int
		maxWait, heldWait int64
		deprived          bool
		note              string
	}{
		{"never held", 0, 1, 3540, 0, true, "got 0.0% of the cluster against an entitlement of 50.0% while 1 job waited (mean 59m, longest 59m)"},
		{"held all its wait", 3540, 0, 0, 3540, false, "its 1 job was held for 59m (allot job hold), which is not counted as a wait"},
		{"held part of it", 3240, 1, 300, 3240, false, "its 1 job was held for 54m (allot job hold), which is not counted as a wait"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			split := map[int64]waitSplit{}
			if tt.held > 0 {
				split[1] = waitSplit{waitHeld: tt.held}
			}
			b := audit(cfg, 4, since, until, time.Time{}, nil, []api.HistoryRecord{job}, nil, split).Projects[1]
			if b.Waited != tt.waited || b.MaxWaitS != tt.maxWait || b.HeldWaitS != tt.heldWait || b.Deprived != tt.deprived {
				t.Errorf("waited %d, max wait %d, held %d, deprived %v; want %d, %d, %d, %v",
					b.Waited, b.MaxWaitS, b.HeldWaitS, b.Deprived, tt.waited, tt.maxWait, tt.heldWait, tt.deprived)
			}
			if b.Note != tt.note {
				t.Errorf("note %q, want %q", b.Note, tt.note)
			}
		})
	}
}

// TestHoldCreditsTheWaitLedger: a release credits the job's time on
// hold to the wait ledger, and a job held now counts from its hold, so
// that the audit shows neither as a wait.
func TestHoldCreditsTheWaitLedger(t *testing.T) {
	h := newHarness(t)
	h.agent("n1", 4)
	ana := h.as("ana", "default=member")
	h.submitAs("ana", jobSpec("first", 4, ""))
	h.step()
	id := h.submitAs("ana", jobSpec("j", 4, "")) // behind the first, on the node's 4 slots
	path := fmt.Sprintf("/api/v1/jobs/%d", id)
	post := func(verb string) {
		t.Helper()
		var reply api.HoldReply
		if code := h.doAs(ana, "POST", path+"/"+verb, nil, &reply); code != http.StatusOK || !reply.Changed {
			t.Fatalf("POST %s: %d, changed %v", verb, code, reply.Changed)
		}
	}
	held := func() int64 {
		h.m.lock()
		v := h.m.pub.reads()
		h.m.unlock()
		return h.m.waits.splits([]api.HistoryRecord{{ID: id}}, v, h.m.now().Unix())[id][waitHeld]
	}
	for _, step := range []struct {
		name    string
		do      func()
		advance time.Duration
		want    int64
	}{
		{"held", func() { post("hold") }, 5 * time.Minute, 300},
		{"released", func() { post("release") }, 2 * time.Minute, 300},
		{"held again", func() { post("hold") }, time.Minute, 360},
	} {
		t.Run(step.name, func(t *testing.T) {
			step.do()
			h.step()
			h.clock.Advance(step.advance)
			if got := held(); got != step.want {
				t.Errorf("held %ds, want %d", got, step.want)
			}
		})
	}
	// allot history's WAIT leaves the holds out by the same rule (trial
	// 2026-11-29d D12): 8 minutes queued, 6 of them held.
	var recs []api.HistoryRecord
	if code := h.do("GET", "/api/v1/history", nil, &recs); code != http.StatusOK {
		t.Fatalf("GET /history: %d", code)
	}
	i := slices.IndexFunc(recs, func(r api.HistoryRecord) bool { return r.ID == id })
	if i < 0 || recs[i].WaitS != 120 || recs[i].HeldS != 360 {
		t.Errorf("history of job %d (at %d of %+v): want wait 120s, held 360s", id, i, recs)
	}
}
