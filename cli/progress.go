package cli

import (
	"io"
	"os"
	"strconv"
	"sync"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/allot-sched/allot/sim"
)

// progress draws one bar for one or several concurrent replays, from how
// much of each workload has been read. It is nil when no bar is wanted,
// and every method accepts a nil receiver.
type progress struct {
	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	parts []float64
}

// newProgress returns a bar on stderr when it is a terminal and the
// workload is long enough to be worth one: any trace, or a scenario of
// 1,000 jobs or more.
func newProgress(stderr io.Writer, want bool, rp *sim.Replay, runs int) *progress {
	file, ok := stderr.(*os.File)
	if !want || !ok || !term.IsTerminal(int(file.Fd())) || rp.Fraction == nil {
		return nil
	}
	if s, ok := rp.Input.Jobs.(interface{ Len() int }); ok && s.Len() < 1000 {
		return nil
	}
	desc := "simulating"
	if runs > 1 {
		desc = "simulating " + strconv.Itoa(runs) + " runs"
	}
	return &progress{parts: make([]float64, runs), bar: progressbar.NewOptions(1000,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100_000_000))}
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
	_ = p.bar.Set(int(1000 * sum / float64(len(p.parts))))
}

func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.bar.Finish()
}
