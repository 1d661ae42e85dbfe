package master

import (
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/store/pgtest"
)

// hintsConfig: a priority pool, three QOS levels (the default not the
// first) and two seats of matlab.
const hintsConfig = `
pools:
  - {name: default, policy: priority}
qos:
  - {name: low}
  - {name: normal, priority: 5}
  - {name: urgent, priority: 50}
default_qos: normal
licenses: {matlab: 2}
`

// TestHistoryScenarioQOSLicenses: a job's own QOS and licenses, which the
// store keeps in the job's spec, go out with it on SQLite and PostgreSQL,
// and the replay holds the licenses: a job that waited live for another's
// matlab seats, with slots free, waits as long in the simulator.
func TestHistoryScenarioQOSLicenses(t *testing.T) {
	cfg := mustConfig(t, hintsConfig)
	t.Run("sqlite", func(t *testing.T) { testHistoryHints(t, newHarness(t, withConfig(cfg))) })
	t.Run("postgres", func(t *testing.T) {
		testHistoryHints(t, newHarnessOn(t, pgtest.DSN(t), t.TempDir(), withConfig(cfg)))
	})
}

func testHistoryHints(t *testing.T, h *harness) {
	a := h.agent("n1", 4)
	t0 := h.clock.Now()
	seats := h.submit(jobSpec("seats", 2, `, "qos": "urgent", "licenses": {"matlab": 2}`))
	one := h.submit(jobSpec("one", 1, `, "licenses": {"matlab": 1}`))
	h.step()
	h.sync(a, a)
	h.clock.Advance(time.Hour)
	a.Exit(tid(seats, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.step()
	h.sync(a, a)
	h.clock.Advance(30 * time.Minute)
	a.Exit(tid(one, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)

	q := window(t0, h.clock.Now())
	sc, body := exportScenario(t, h, q)
	want := map[string]struct {
		qos string
		lic map[string]int
	}{
		"j" + strconv.FormatInt(seats, 10) + "-seats": {"urgent", map[string]int{"matlab": 2}},
		"j" + strconv.FormatInt(one, 10) + "-one":     {"normal", map[string]int{"matlab": 1}},
	}
	for _, j := range sc.Jobs {
		w, ok := want[j.Name]
		if !ok || j.QOS != w.qos || !maps.Equal(j.Licenses, w.lic) {
			t.Errorf("job %s exported with QOS %q and licenses %v, want %q and %v\n%s", j.Name, j.QOS, j.Licenses, w.qos, w.lic, body)
		}
	}
	if len(sc.Jobs) != 2 || strings.Contains(body, "not recorded") {
		t.Fatalf("export:\n%s", body)
	}
	res := replayScenario(t, sc, -1)
	waits := liveWaits(h, q)
	for _, j := range res.Jobs {
		if j.Wait == nil || *j.Wait != waits[j.Name] {
			t.Errorf("job %s: replayed wait %v, live %d s", j.Name, j.Wait, waits[j.Name])
		}
	}
	if w := waits["j"+strconv.FormatInt(one, 10)+"-one"]; w != 3600 {
		t.Errorf("live, job one waited %d s for the seats, want 3600", w)
	}
}
