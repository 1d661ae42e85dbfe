package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProgressLines: off a terminal, progress is a line every
// progressEvery, with the share read and an estimate of what is left,
// and a last line when a run that reported is done.
func TestProgressLines(t *testing.T) {
	var out bytes.Buffer
	clock := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &progress{parts: make([]float64, 2), w: &out, desc: "simulating 2 runs", now: func() time.Time { return clock }}
	p.start, p.last = clock, clock
	steps := []struct {
		after    time.Duration
		run      int
		fraction float64
	}{
		{time.Second, 0, 0.1},     // too soon: nothing
		{5 * time.Second, 1, 0.3}, // 20% after 6s
		{2 * time.Second, 0, 0.5}, // too soon
		{4 * time.Second, 0, 0.7}, // 50% after 12s
	}
	for _, s := range steps {
		clock = clock.Add(s.after)
		p.update(s.run, s.fraction)
	}
	clock = clock.Add(3 * time.Second)
	p.finish()
	want := `allot sim: simulating 2 runs: 20% of the workload read after 6s, about 24s left
allot sim: simulating 2 runs: 50% of the workload read after 12s, about 12s left
allot sim: simulating 2 runs: done after 15s
`
	if out.String() != want {
		t.Errorf("progress lines:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestSimProgressOffTerminal: allot sim of a trace reports progress on a
// stderr that is not a terminal, unless --quiet.
func TestSimProgressOffTerminal(t *testing.T) {
	old := progressEvery
	progressEvery = 0
	t.Cleanup(func() { progressEvery = old })
	trace := filepath.Join(traceDir, "seed003.swf")
	tests := []struct {
		name string
		args []string
		want bool
	}{
		{"default", []string{"sim", trace}, true},
		{"quiet", []string{"sim", trace, "--quiet"}, false},
		{"no progress", []string{"sim", trace, "--progress=false"}, false},
		{"compare", []string{"sim", "compare", trace, "--policy", "fcfs", "--policy", "easy"}, true},
		{"compare quiet", []string{"sim", "compare", trace, "--policy", "fcfs", "--policy", "easy", "-q"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, err := run(t, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(errOut, "of the workload read after"); got != tt.want {
				t.Errorf("progress reported: %v, want %v; stderr:\n%s", got, tt.want, errOut)
			}
		})
	}
}
