package master

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
	"github.com/allot-sched/allot/store/pgtest"
)

// TestHistoryScenarioRoundTrip: the jobs a live cluster ran, exported as
// a scenario, replay in the simulator to the same starts and waits as
// they had live (FIFO, exact run times); a job killed while it waited is
// killed in the replay too.
func TestHistoryScenarioRoundTrip(t *testing.T) {
	cfg, err := config.Parse("fifo.yaml", []byte("pools:\n  - {name: default, policy: fifo}\n"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("sqlite", func(t *testing.T) { testHistoryRoundTrip(t, newHarness(t, withConfig(cfg))) })
	t.Run("postgres", func(t *testing.T) {
		testHistoryRoundTrip(t, newHarnessOn(t, pgtest.DSN(t), t.TempDir(), withConfig(cfg)))
	})
}

func testHistoryRoundTrip(t *testing.T, h *harness) {
	a := h.agent("n1", 2)
	t0 := h.clock.Now()
	big := h.submit(jobSpec("big", 2, ""))
	h.step()
	h.sync(a, a)
	h.clock.Advance(10 * time.Minute)
	small := h.submit(jobSpec("small", 1, ""))
	gone := h.submit(jobSpec("gone", 2, ""))
	h.step()
	h.clock.Advance(20 * time.Minute)
	h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(gone, 10)+"/kill", nil, nil)
	h.clock.Advance(30 * time.Minute)
	a.Exit(tid(big, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.step()
	h.sync(a, a)
	h.clock.Advance(30 * time.Minute)
	a.Exit(tid(small, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)

	q := "?since=" + url.QueryEscape(t0.Format(time.RFC3339)) + "&until=" + url.QueryEscape(h.clock.Now().Format(time.RFC3339))
	code, body, hdr := h.raw("GET", "/api/v1/history/scenario"+q, "")
	if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/yaml") {
		t.Fatalf("export: %d %s", code, body)
	}
	sc, err := scenario.Parse("history.yaml", []byte(body))
	if err != nil {
		t.Fatalf("the exported scenario does not parse: %v\n%s", err, body)
	}
	in, err := sim.FromScenario(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(in, sim.Options{Until: -1})
	if err != nil {
		t.Fatal(err)
	}
	var live []api.HistoryRecord
	h.do("GET", "/api/v1/history"+q, nil, &live)
	waits := map[string]int64{}
	for _, r := range live {
		waits["j"+strconv.FormatInt(r.ID, 10)+"-"+r.Name] = r.WaitS
	}
	for _, j := range res.Jobs {
		t.Run(j.Name, func(t *testing.T) {
			switch {
			case strings.HasSuffix(j.Name, "-gone"):
				if j.State != sim.StateKilled || j.Start != nil {
					t.Errorf("replayed %+v, want killed before it started", j)
				}
			case j.Wait == nil || *j.Wait != waits[j.Name]:
				t.Errorf("replayed wait %v, live %d s", j.Wait, waits[j.Name])
			}
		})
	}
	if len(res.Jobs) != 3 {
		t.Fatalf("%d jobs replayed, want 3:\n%s", len(res.Jobs), body)
	}
	if code := h.doAs(h.as("ann", "default=member"), "GET", "/api/v1/history/scenario", nil, nil); code != 403 {
		t.Errorf("a member exported the history: %d, want 403", code)
	}
}
