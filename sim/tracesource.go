package sim

import (
	"fmt"
	"io"
	"sync/atomic"

	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/trace"
)

// Skip reasons added by the trace source to the reader's own.
const (
	SkipTooWide = "wider than the cluster"
)

// TraceSource replays a trace's jobs. Each record becomes one
// single-task job named by its job number: its slots are the record's
// processors (SWF) or GPUs (CSV), it runs for the record's run time, and
// its time limit is the requested time, or the run time itself when the
// trace gives none (exact estimates). A job whose run time exceeds its
// limit is killed at the limit. Jobs wider than the pool they go to are
// skipped and counted, like the records the reader cannot run.
type TraceSource struct {
	r        trace.Reader
	pool     int
	maxSlots int
	byUser   bool
	counter  *countingReader
	size     int64
	tooWide  trace.Skipped
	noLimit  int
	overrun  int
	notes    []string
	firstNL  int
	firstOvr int
}

// NewTraceSource wraps a trace reader. Jobs go to pool index pool, where
// a task of more than maxSlots slots can never run. With byUser, a job's
// project is its user rather than its group.
func NewTraceSource(r trace.Reader, pool, maxSlots int, byUser bool) *TraceSource {
	return &TraceSource{r: r, pool: pool, maxSlots: maxSlots, byUser: byUser,
		tooWide: trace.Skipped{Reason: SkipTooWide}}
}

// Next implements Source.
func (t *TraceSource) Next() (JobSpec, error) {
	for {
		j, err := t.r.Next()
		if err != nil {
			return JobSpec{}, err
		}
		if j.Slots > t.maxSlots {
			if t.tooWide.Count == 0 {
				t.tooWide.FirstLine = j.Line
			}
			t.tooWide.Count++
			continue
		}
		limit := j.TimeLimit
		if limit <= 0 {
			if t.noLimit == 0 {
				t.firstNL = j.Line
			}
			t.noLimit++
			limit = j.Run
		} else if j.Run > limit {
			if t.overrun == 0 {
				t.firstOvr = j.Line
			}
			t.overrun++
		}
		project := j.Project
		if t.byUser {
			project = j.User
		}
		return JobSpec{
			Name: j.ID, Kind: sched.KindCommand, Submit: j.Submit, Pool: t.pool,
			Tasks: 1, MaxConcurrent: 1, Slots: j.Slots, Duration: j.Run, TimeLimit: limit,
			Priority: 42, Weight: 1, Project: project, User: j.User,
		}, nil
	}
}

// Skipped implements Summarizer: the reader's skipped records, then the
// jobs too wide for the cluster.
func (t *TraceSource) Skipped() []Skip {
	var out []Skip
	for _, s := range t.r.Skipped() {
		out = append(out, Skip{Reason: s.Reason, Count: s.Count, FirstLine: s.FirstLine})
	}
	if t.tooWide.Count > 0 {
		out = append(out, Skip{Reason: fmt.Sprintf("%s (%s)", SkipTooWide, plural.Count(t.maxSlots, "slot")),
			Count: t.tooWide.Count, FirstLine: t.tooWide.FirstLine})
	}
	return out
}

// Notes implements Summarizer.
func (t *TraceSource) Notes() []string {
	out := append([]string(nil), t.notes...)
	if n := t.noLimit; n > 0 {
		out = append(out, fmt.Sprintf("%s %s no requested time (first at line %d); %s time limit is %s run time (exact estimates)",
			plural.Count(n, "job"), agree(n, "gives", "give"), t.firstNL, agree(n, "its", "their"), agree(n, "its", "their")))
	}
	if n := t.overrun; n > 0 {
		out = append(out, fmt.Sprintf("%s ran longer than %s requested time (first at line %d); %s killed at the limit",
			plural.Count(n, "job"), agree(n, "its", "their"), t.firstOvr, agree(n, "it is", "they are")))
	}
	return out
}

// agree picks the word that agrees with a count of n: one for a single
// job, many for any other number.
func agree(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Fraction is the share of the trace file read so far, for progress bars;
// it is 0 when the size is unknown.
func (t *TraceSource) Fraction() float64 {
	if t.counter == nil || t.size <= 0 {
		return 0
	}
	return min(1, float64(t.counter.n.Load())/float64(t.size))
}

// countingReader counts the bytes read through it; the count may be read
// from another goroutine.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
