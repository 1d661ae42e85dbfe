package master

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/searcher"
	"github.com/allot-sched/allot/store"
)

// replayJoins is replay, also collecting the rungs each trial joined,
// by task index, for the experiment view's per-rung summary: the same
// decisions, as the same Observe calls make them (ObserveJoins).
func replayJoins(s *searcher.Search, mets []store.Metric) map[int][]api.RungJoin {
	out := map[int][]api.RungJoin{}
	name := s.Config().Metric
	for _, met := range mets {
		v, ok := met.Values[name]
		if !ok || met.Index >= s.Trials() {
			continue
		}
		_, joins, _ := s.ObserveJoins(met.Index, met.Step, v) // a bad value was refused when stored
		for _, j := range joins {
			out[met.Index] = append(out[met.Index], api.RungJoin{Rung: j.Rung, Step: j.Step, Time: met.Time,
				Value: j.Value, RungTrials: j.RungTrials, Decision: j.Decision})
		}
	}
	return out
}

// decisionNote says what a trial's DECISION (tm.Decision, shown) alone
// does not, said being the searcher's own: that it had exited on its own
// before the searcher, hearing its reports late (a store outage, a
// master restart, a slow sync), stopped it, so that it trained past the
// rung that stopped it, with the cause where cause knows it (given when
// the agent read the report that stopped it: lateCause); and at which
// rungs it went on only as the first to arrive, with no value to rank it
// against (trial r R8); or, for a trial shown stopped, why: at which rung
// it was not in the top 1/divisor, never an earlier rung's promotion as
// the first to arrive, which read as a contradiction beside "stopped"
// (trial 2026-11-29c C7).
func decisionNote(tm *api.TrialMetrics, said searcher.Decision, divisor float64, cause func(at time.Time) string) string {
	if n := len(tm.RungJoins); tm.Decision == string(searcher.Stop) && said == searcher.Stop && n > 0 {
		return fmt.Sprintf("at rung %d, not in the top 1/%s", tm.RungJoins[n-1].Rung, strconv.FormatFloat(divisor, 'g', -1, 64))
	}
	var notes []string
	if n := len(tm.RungJoins); said == searcher.Stop && tm.Decision == string(searcher.Done) && n > 0 {
		stop := tm.RungJoins[n-1]
		ran := ""
		if tm.LatestStep != nil && *tm.LatestStep > stop.Step {
			ran = fmt.Sprintf("ran to step %d: ", *tm.LatestStep)
		}
		late := "hearing its reports late"
		if c := cause(stop.Time); c != "" {
			late += " (" + c + ")"
		}
		notes = append(notes, fmt.Sprintf("%sit had exited before the searcher, %s, stopped it at step %d",
			ran, late, stop.Step))
	}
	var joins []searcher.Join
	for _, j := range tm.RungJoins {
		joins = append(joins, searcher.Join{Rung: j.Rung, RungTrials: j.RungTrials, Decision: j.Decision})
	}
	if n := searcher.FirstArrivals(joins); n != "" {
		notes = append(notes, n)
	}
	return strings.Join(notes, "; ")
}
