package master

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// The trial 2026-11-29e cluster: quota pool q of one 4-GPU node n1;
// teama quota 2, teamb quota 2 and limit 3.
func trialQuotaConfig(limitB int) string {
	return fmt.Sprintf("pools: [{name: q, policy: quota}]\ndefault_pool: q\ndefault_project: teama\n"+
		"projects:\n  - {name: teama, quota: 2}\n  - {name: teamb, quota: 2, limit: %d}\n", limitB)
}

// trialJob is a job file of the trial: a command job, not preemptible
// unless LOW.
func trialJob(name, project string, slots int, class string) string {
	return fmt.Sprintf(`{"name": %q, "project": %q, "entrypoint": "x", "resources": {"slots": %d, "priority_class": %q}}`,
		name, project, slots, class)
}

// TestQueuePositionsQuotaBorrowLast (trial 2026-11-29e E1): in a quota
// pool, allot jobs' POS and explain's Ahead put every project's waiting
// work, HIGH and NORMAL past its quota included, before the borrowing
// (LOW) work, as docs/cli.md states the order; and the order stays the
// same while the node is lost and once it is back.
func TestQueuePositionsQuotaBorrowLast(t *testing.T) {
	type job struct {
		name, project, class string
		slots                int
	}
	for _, tc := range []struct {
		name             string
		running, waiting []job
		want             []string // the waiting jobs by position
	}{
		{"the trial: the reclaimed LOW job after HIGH and NORMAL work at its quota",
			[]job{{"reclaim2", "teamb", "NORMAL", 2}, {"q-a-normal", "teama", "NORMAL", 2}},
			[]job{{"borrow4", "teama", "LOW", 4}, {"q-a-high", "teama", "HIGH", 1}, {"q-b-normal", "teamb", "NORMAL", 1}},
			[]string{"q-a-high", "q-b-normal", "borrow4"}},
		{"addendum 2: NORMAL of a project under its quota before two LOW jobs",
			[]job{{"reclaim2", "teamb", "NORMAL", 2}, {"q-a-high", "teama", "HIGH", 1}},
			[]job{{"borrow4", "teama", "LOW", 4}, {"lim3", "teamb", "LOW", 3}, {"q-a-normal", "teama", "NORMAL", 2},
				{"q-b-normal", "teamb", "HIGH", 1}},
			[]string{"q-a-normal", "q-b-normal", "borrow4", "lim3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, trialQuotaConfig(3))))
			n1 := h.agent("n1", 4)
			for _, j := range tc.running {
				h.submit(trialJob(j.name, j.project, j.slots, j.class))
			}
			h.step()
			h.sync(n1)
			ids := map[int64]string{}
			for _, j := range tc.waiting {
				ids[h.submit(trialJob(j.name, j.project, j.slots, j.class))] = j.name
			}
			check := func(when string) {
				t.Helper()
				got := make([]string, len(tc.waiting))
				for id, name := range ids {
					if pos := h.job(id).Position; pos < 1 || pos > len(got) || got[pos-1] != "" {
						t.Fatalf("%s: job %s at position %d; want each of 1..%d once", when, name, pos, len(got))
					} else {
						got[pos-1] = name
					}
				}
				if !slices.Equal(got, tc.want) {
					t.Fatalf("%s: jobs by position %v, want %v", when, got, tc.want)
				}
				// explain's Ahead lists the jobs before it, in that order.
				for id, name := range ids {
					var x api.Explanation
					if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(id, 10)+"/explain", nil, &x); code != 200 {
						t.Fatalf("%s: explain %s: %d", when, name, code)
					}
					var ahead []string
					for _, a := range x.Ahead {
						ahead = append(ahead, a.Name)
					}
					if want := tc.want[:slices.Index(tc.want, name)]; !slices.Equal(ahead, want) {
						t.Errorf("%s: explain %s: ahead %v, want %v", when, name, ahead, want)
					}
				}
			}
			h.step()
			h.sync(n1)
			check("node up")
			h.clock.Advance(DefaultAgentTimeout + 2*time.Second)
			h.m.Tick(h.ctx)
			h.step()
			if n := h.node("n1"); n.State != "lost" {
				t.Fatalf("n1 %s, want lost", n.State)
			}
			check("node lost")
			if _, err := n1.Register(h.ctx); err != nil {
				t.Fatal(err)
			}
			h.sync(n1)
			h.step()
			check("node back")
		})
	}
}
