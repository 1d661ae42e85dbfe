package cli

import (
	"fmt"
	"strings"
	"time"
)

// rssSample is the master's resident memory at a moment of the run.
type rssSample struct {
	AtS float64 `json:"at_s"` // seconds since the submissions began
	MiB float64 `json:"mib"`
	// Ended is how many jobs had ended for the harness by then: memory
	// that rises with it, after the queue has drained, is memory kept
	// per finished job.
	Ended int `json:"ended"`
}

// rssEvery is how often the harness samples the master's RSS: often
// enough to see a trend in a one-minute run, few enough samples to keep
// in the report of a long one.
const rssEvery = 2 * time.Second

// sampleRSS samples the master's resident memory until stop is closed,
// then sends the samples on out. ended reports the jobs ended so far.
func sampleRSS(pid int, began time.Time, ended func() int, stop <-chan struct{}, out chan<- []rssSample) {
	var got []rssSample
	take := func() {
		if b, ok := procRSS(pid); ok {
			got = append(got, rssSample{AtS: time.Since(began).Seconds(), MiB: float64(b) / (1 << 20), Ended: ended()})
		}
	}
	tick := time.NewTicker(rssEvery)
	defer tick.Stop()
	for {
		take()
		select {
		case <-stop:
			take() // the last sample is the RSS at the end of the run
			out <- got
			return
		case <-tick.C:
		}
	}
}

// rssSummary shows at most n of the samples, evenly spaced, the last
// always among them.
func rssSummary(s []rssSample, n int) string {
	var b strings.Builder
	step := max(1, (len(s)+n-1)/n)
	for i := 0; i < len(s); i += step {
		if i+step >= len(s) {
			i = len(s) - 1
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%.0fs %.0f MiB (%d ended)", s[i].AtS, s[i].MiB, s[i].Ended)
	}
	return b.String()
}
