package master

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/master/mastertest"
)

// TestRestartKeepsGrew: once an elastic job was scheduled, every pass is
// confirmed by another (planner.grew, lifecycle.OneShot), and a restart
// keeps it so although the job has ended, or ended and been pruned: a
// rigid job submitted after the restart takes the confirming pass it
// took before. A rigid job alone leaves passes unconfirmed under FIFO.
func TestRestartKeepsGrew(t *testing.T) {
	cases := []struct {
		name       string
		spec       string
		prune      bool
		wantPasses int // to start a one-slot job, before and after the restart
	}{
		{"rigid job", jobSpec("rigid", 4, ""), false, 1},
		{"elastic job ended", jobSpec("elastic", 4, `, "min_slots": 2`), false, 2},
		{"elastic job ended and pruned", jobSpec("elastic", 4, `, "min_slots": 2`), true, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
			a := h.agent("n1", 4)
			id := h.submit(c.spec)
			h.step()
			h.sync(a, a)
			a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
			h.sync(a)
			h.step()
			if st := h.job(id).State; st != "completed" {
				t.Fatalf("job %d %s, want completed", id, st)
			}
			if got := probePasses(t, h, a, "before"); got != c.wantPasses {
				t.Fatalf("before the restart: %d passes, want %d", got, c.wantPasses)
			}
			if c.prune {
				h.clock.Advance(time.Hour)
				if n, err := h.st.PruneJobs(h.ctx, h.clock.Now(), 10); err != nil || n != 2 {
					t.Fatalf("prune: %d, %v; want 2 jobs", n, err)
				}
			}
			h.start()
			a = h.agent("n1", 4)
			h.step()
			if got := probePasses(t, h, a, "after"); got != c.wantPasses {
				t.Fatalf("after the restart: %d passes, want %d", got, c.wantPasses)
			}
		})
	}
}

// probePasses submits a one-slot job and returns how many passes the
// scheduling that starts it takes, then lets it complete.
func probePasses(t *testing.T, h *harness, a *mastertest.Agent, name string) int {
	t.Helper()
	before := passCount(t, h)
	id := h.submit(jobSpec("probe-"+name, 1, ""))
	h.step()
	passes := passCount(t, h) - before
	h.sync(a, a)
	a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.step()
	if st := h.job(id).State; st != "completed" {
		t.Fatalf("probe %d %s, want completed", id, st)
	}
	return passes
}

var passCountRE = regexp.MustCompile(`(?m)^allot_scheduling_pass_seconds_count (\d+)$`)

// passCount is the master's count of scheduling passes, from /metrics.
func passCount(t *testing.T, h *harness) int {
	t.Helper()
	resp, err := http.Get(h.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	m := passCountRE.FindSubmatch(body)
	if m == nil {
		t.Fatalf("metrics lack the pass count:\n%s", body)
	}
	n, err := strconv.Atoi(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
