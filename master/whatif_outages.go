package master

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/spec"
)

// outageNotes notes each store outage the master recorded in [since,
// until]: while its store was down the master took no agent's report,
// so what ended then it learned at the store's return, and the decisions
// that followed came a pass or more after the simulator, which takes
// each end at its time, makes them. Without the note `allot history
// check` showed such a difference with no lead to its cause (trial o F8).
// The reports the agents held and said were coming the master takes
// before its next pass, for reportSettle (reportsettle.go), so a burst of
// them agrees with the replay; one later than that may not.
func (ca *clusterAPI) outageNotes(ctx context.Context, since, until time.Time) ([]string, error) {
	outs, err := ca.m.st.Outages(ctx, since, until)
	if err != nil {
		return nil, fmt.Errorf("read the store's outages: %w", err)
	}
	var notes []string
	for _, o := range outs {
		refused := ""
		if o.Refused > 0 {
			refused = ", " + plural.Count(o.Refused, "request") + " refused"
		}
		notes = append(notes, fmt.Sprintf("the master's store was unavailable from %s to %s (at %ds to %ds, %s%s): "+
			"what agents reported meanwhile reached the master when the store came back, so live decisions around it "+
			"may come a pass or more after the replay's (the master waits up to %s after an outage for the reports the "+
			"agents said were on their way before it places what they free; one later than that may also place a task "+
			"elsewhere)",
			o.From.UTC().Format(time.TimeOnly), o.Until.UTC().Format(time.TimeOnly+" MST"),
			secondsFrom(since, o.From), secondsFrom(since, o.Until), o.Until.Sub(o.From).Round(time.Second), refused, reportSettle))
	}
	return notes, nil
}

// secondsFrom is t's offset in whole seconds from the window's start, 0
// for a time before it.
func secondsFrom(since, t time.Time) int64 {
	if t.Before(since) {
		return 0
	}
	return int64(t.Sub(since) / time.Second)
}

// configChangeNotes says, for each reload in [since, until] that changed
// the pools' scheduling settings, the projects' quotas, limits or shares,
// the licenses' totals, the QOS levels or the usage decay
// (configChanges), what it changed (spec.Done words each): the export
// writes them as they are now, and a replay runs the whole window under
// them, so its decisions before the reload may differ from the live
// master's (trial p F16, 29g G2). A --since after the reload compares
// like with like.
func (ca *clusterAPI) configChangeNotes(ctx context.Context, since, until time.Time) ([]string, error) {
	changes, err := ca.m.st.ConfigChanges(ctx, since, until)
	if err != nil {
		return nil, fmt.Errorf("read the configuration's changes: %w", err)
	}
	var notes []string
	for i := 0; i < len(changes); {
		at := changes[i].At
		var whats []string
		for ; i < len(changes) && changes[i].At.Equal(at); i++ {
			whats = append(whats, spec.Done(changes[i].What))
		}
		notes = append(notes, fmt.Sprintf("a configuration reload at %s (at %ds) %s; the replay runs the whole window "+
			"under the settings in force now, so its decisions before the reload may differ from the live master's "+
			"(give a --since after the reload to compare like with like)",
			at.UTC().Format(time.TimeOnly+" MST"), secondsFrom(since, at), strings.Join(whats, "; ")))
	}
	return notes, nil
}
