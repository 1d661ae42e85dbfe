package cli

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/allot-sched/allot/sim"
)

// progressEvery is how often a simulation whose stderr is not a terminal
// (CI, a pipe, a log file) prints a progress line.
var progressEvery = 5 * time.Second

// progress reports one or several concurrent replays' progress, from how
// much of each workload has been read: a bar on a terminal, else a line
// on stderr every progressEvery, so that a long run in CI shows that it
// is alive. It is nil when no report is wanted, and every method accepts
// a nil receiver.
type progress struct {
	mu    sync.Mutex
	parts []float64
	bar   *progressbar.ProgressBar // on a terminal
	// The line reports' writer, clock, and the start and last report.
	w           io.Writer
	desc        string
	now         func() time.Time
	start, last time.Time
}

// newProgress returns a report on stderr unless it is not wanted
// (--quiet, --progress=false) or the workload is too short to be worth
// one: a scenario of fewer than 1,000 jobs. Any trace gets one.
func newProgress(stderr io.Writer, want bool, rp *sim.Replay, runs int) *progress {
	if !want || rp.Fraction == nil {
		return nil
	}
	if s, ok := rp.Input.Jobs.(interface{ Len() int }); ok && s.Len() < 1000 {
		return nil
	}
	desc := "simulating"
	if runs > 1 {
		desc = "simulating " + strconv.Itoa(runs) + " runs"
	}
	p := &progress{parts: make([]float64, runs), w: stderr, desc: desc, now: time.Now}
	if isTerminal(stderr) {
		p.bar = progressbar.NewOptions(1000,
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100_000_000))
	}
	p.start = p.now()
	p.last = p.start
	return p
}

// update records that run i has read fraction of its workload.
func (p *progress) update(i int, fraction float64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.parts[i] = fraction
	sum := 0.0
	for _, x := range p.parts {
		sum += x
	}
	done := sum / float64(len(p.parts))
	if p.bar != nil {
		_ = p.bar.Set(int(1000 * done))
		return
	}
	t := p.now()
	if t.Sub(p.last) < progressEvery {
		return
	}
	p.last = t
	elapsed := t.Sub(p.start)
	left := "?"
	if done > 0 {
		left = (time.Duration(float64(elapsed) * (1 - done) / done)).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "allot sim: %s: %.0f%% of the workload read after %s, about %s left\n",
		p.desc, 100*done, elapsed.Round(time.Second), left)
}

func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
		return
	}
	// Only a run that reported progress says that it is done; a short
	// one prints nothing.
	if p.last != p.start {
		fmt.Fprintf(p.w, "allot sim: %s: done after %s\n", p.desc, p.now().Sub(p.start).Round(time.Second))
	}
}
