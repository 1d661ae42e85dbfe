package web

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestJobDetailOwnCap: a running experiment whose trials wait for its own
// max_concurrent_trials is asked why its trials wait, not why it does;
// the cap's sentence is said once (under What would let it start), and
// the estimated start names the cap, not a task without a time limit
// (trial 2026-11-29j J2).
func TestJobDetailOwnCap(t *testing.T) {
	msg := "It runs as many trials as its max_concurrent_trials (2) allows: the next starts when one of its own trials ends."
	f := newFixture()
	f.mu.Lock()
	f.jobs[0].Pending = &api.Pending{Reason: "max_running", Message: "its trials run as many as max_concurrent_trials allows"}
	f.jobs[0].Position = 1
	f.wouldStart = map[int64]*api.Counterfactual{1: {Limit: "max_concurrent_trials is 2 and 2 of its trials run", Message: msg}}
	f.mu.Unlock()
	p := openPage(t, f, "#/jobs/1", wide)
	why := p.waitText("#why", msg)
	if n := strings.Count(why, msg); n != 1 {
		t.Errorf("the cap's sentence %d times, want once:\n%s", n, why)
	}
	if got := p.waitText("#why-h", "trials"); got != "Why are some of its trials waiting?" {
		t.Errorf("heading %q, want the running experiment's", got)
	}
	want := "unknown: when one of its own tasks ends (max_concurrent_trials is 2 and 2 of its trials run)"
	if got := p.waitText("#estimated-start", "unknown"); got != want {
		t.Errorf("estimated start %q, want %q", got, want)
	}
}
