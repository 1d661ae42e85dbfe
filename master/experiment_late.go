package master

import (
	"context"
	"fmt"
	"time"
)

// lateCause names why a trial's reports reached the master late, for
// decisionNote, given when its agent read the report whose late stop
// found the trial ended: the store outage it fell in (trial r R3: the
// note said "heard late" where the cause was the outage), "" where the
// master recorded none then (a master restart, a slow sync). The outages
// are read only for a trial that has the note; a failed read says
// nothing, the note being extra.
func (jm jobMetrics) lateCause(ctx context.Context) func(at time.Time) string {
	return func(at time.Time) string {
		outs, err := jm.m.st.Outages(ctx, at, at)
		if err != nil || len(outs) == 0 {
			return ""
		}
		o := outs[0]
		return fmt.Sprintf("the master's store was unavailable from %s to %s, and took no report until it was back",
			o.From.UTC().Format(time.TimeOnly), o.Until.UTC().Format(time.TimeOnly+" MST"))
	}
}
