package master

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/master/mastertest"
)

// TestExplainPlannedAgrees (trial n F16): a multifactor pool with
// backfill, two nodes of 4 slots; a (4 slots, 100 minutes) fills one, b
// and c (2 slots each, 20 and 30 minutes) the other, and w (3 slots)
// heads the queue. The fewest ends that would start it are a's alone, on
// a's node, at 100 minutes; the pass reserved it the other node at 30
// minutes, when b and c reach their limits. The answer leads with that
// plan and calls a's end a sooner way, not a start "once job a ends"
// beside a reservation elsewhere. Where the two agree (one node, one job
// to end) it is as it was.
func TestExplainPlannedAgrees(t *testing.T) {
	const cfg = "pools:\n  - {name: default, policy: multifactor, backfill: true}\n"
	tests := []struct {
		name    string
		two     bool // b and c run on a second node
		planned bool
	}{
		{"reservation elsewhere: the plan leads", true, true},
		{"reservation where its jobs end: as it was", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, cfg)))
			agents := []*mastertest.Agent{h.agent("n1", 4)}
			if tt.two {
				agents = append(agents, h.agent("n2", 4))
			}
			ids := map[string]int64{}
			ids["a"] = h.submit(jobSpec("a", 4, `, "time_limit": 6000`))
			if tt.two {
				ids["b"] = h.submit(jobSpec("b", 2, `, "time_limit": 1200`))
				ids["c"] = h.submit(jobSpec("c", 2, `, "time_limit": 1800`))
			}
			h.step()
			h.sync(agents...)
			h.sync(agents...)
			ids["w"] = h.submit(jobSpec("w", 3, `, "time_limit": 600`))
			h.step()
			x := explainAs(t, h, h.admin, ids["w"])
			if x.Pending == nil || x.Pending.Reason != "reserved" || x.Pending.EstimatedStart == nil {
				t.Fatalf("pending %+v, want reserved with a start", x.Pending)
			}
			cf := x.WouldStart
			if cf == nil || len(cf.Nodes) != 1 || len(cf.MustEnd) != 1 || cf.MustEnd[0].ID != ids["a"] {
				t.Fatalf("would start %+v, want job a's end on its node", cf)
			}
			at := x.Pending.EstimatedStart.UTC().Format("2006-01-02 15:04 MST")
			plan := "Planned: on n2 at " + at + " (its reservation), when jobs " + strconv.FormatInt(ids["b"], 10) +
				" and " + strconv.FormatInt(ids["c"], 10) + " reach their time limits. It may start sooner if running jobs end before their time limits: it could start on n1 once job " +
				strconv.FormatInt(ids["a"], 10) + " ends"
			if got := strings.Contains(cf.Message, plan); got != tt.planned {
				t.Errorf("message %q: says %q %v, want %v", cf.Message, plan, got, tt.planned)
			}
			if !tt.planned && (strings.Contains(cf.Message, "Planned") || cf.NotBefore == nil || cf.NotBefore.Sub(*x.Pending.EstimatedStart).Abs() > time.Minute) {
				t.Errorf("message %q, not before %v, reserved %v: want no plan and one time", cf.Message, cf.NotBefore, x.Pending.EstimatedStart)
			}
		})
	}
}
