package master

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
)

// usageConfig: one multifactor pool weighing fair share, hourly periods
// that halve usage, two projects and a user with shares of her own.
const usageConfig = `
pools:
  - {name: mf, policy: multifactor, multifactor: {fair_share: 1, fair_share_mode: classic}}
projects:
  - {name: phys, shares: 2}
  - {name: bio, shares: 1}
default_project: phys
default_pool: mf
users:
  - {name: ann, shares: 3}
decay: {period: 1h, per_period: 0.5}
`

// TestHistoryScenarioUsage: a what-if of an unchanged history reproduces
// the live fair-share usage. Jobs run before the window (their usage is
// the accounts' starting usage) and in it (across period boundaries that
// do not fall on the window's start), one still running at the end; the
// live master's usage of every leaf at that instant and the simulator's
// at the same instant agree within 1e-9. Before, the export carried no
// usage and the replay's periods began at the window's start.
func TestHistoryScenarioUsage(t *testing.T) {
	cfg := mustConfig(t, usageConfig)
	h := newHarness(t, withConfig(cfg))
	a := h.agent("n1", 4)
	ann := `{"name": "%s", "project": "phys", "entrypoint": "x", "resources": {"slots": 2}}`
	bio := `{"name": "%s", "project": "bio", "entrypoint": "x", "resources": {"slots": 1}}`
	// Before the window: 12:00-12:40 on 2 slots (ann), 12:10-12:45 on 1 (root).
	early := h.submitAs("ann", fmt.Sprintf(ann, "early"))
	h.step()
	h.sync(a, a)
	h.clock.Advance(10 * time.Minute)
	earlyBio := h.submit(fmt.Sprintf(bio, "early-bio"))
	h.step()
	h.sync(a, a)
	h.clock.Advance(30 * time.Minute)
	a.Exit(tid(early, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.clock.Advance(5 * time.Minute)
	a.Exit(tid(earlyBio, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.clock.Advance(5 * time.Minute)
	since := h.clock.Now() // 12:50
	// In it: 13:00-14:30 on 2 slots (ann), 13:20 on 1 (root), running at 14:45.
	h.clock.Advance(10 * time.Minute)
	late := h.submitAs("ann", fmt.Sprintf(ann, "late"))
	h.step()
	h.sync(a, a)
	h.clock.Advance(20 * time.Minute)
	h.submit(fmt.Sprintf(bio, "late-bio"))
	h.step()
	h.sync(a, a)
	for range 14 { // 70 minutes, with the master's periodic usage records
		h.clock.Advance(5 * time.Minute)
		h.step()
	}
	a.Exit(tid(late, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.clock.Advance(15 * time.Minute)
	h.step()
	end := h.clock.Now() // 14:45

	snap, _ := h.snapshot()
	live := map[string]float64{}
	for _, acc := range snap.Accounts {
		live[acc.Name] = acc.Usage
	}
	q := window(since, end)
	sc, body := exportScenario(t, h, q)
	res := replayScenario(t, sc, int64(end.Sub(since).Seconds()))
	replayed := map[string]float64{}
	for _, acc := range res.Accounts {
		replayed[acc.Name] = acc.Usage
	}
	for _, name := range []string{"phys/ann", "bio/root"} {
		if live[name] == 0 {
			t.Errorf("leaf %s has no live usage: %v", name, live)
		}
	}
	for name, u := range live {
		if math.Abs(u-replayed[name]) > 1e-9 {
			t.Errorf("account %s: live usage %.12f, replayed %.12f", name, u, replayed[name])
		}
	}
	for name, u := range replayed {
		if _, ok := live[name]; !ok && u != 0 {
			t.Errorf("account %s has usage %v in the replay only", name, u)
		}
	}
	if t.Failed() {
		t.Logf("live %v\nreplayed %v\n%s", live, replayed, body)
	}
}
