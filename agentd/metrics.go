package agentd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/store"
)

// Trials report metrics by appending JSON lines to ALLOT_METRICS_FILE; the
// agent reads each attempt's file while it runs and once more after it
// ends, and queues each line as a metrics report ahead of the exit report.
// No credential is needed: the node reports for the attempts it runs, and
// the master checks that it does.

// DefaultMetricsInterval is Config.MetricsInterval when unset.
const DefaultMetricsInterval = time.Second

// MaxMetricsLineBytes bounds one line of a metrics file; a longer line is
// skipped.
const MaxMetricsLineBytes = 64 << 10

// metricsChunk is how much of a metrics file one read takes at most.
const metricsChunk = 1 << 20

// MetricsLine is one line of a metrics file.
type MetricsLine struct {
	Step    *int64             `json:"step"`
	Metrics map[string]float64 `json:"metrics"`
}

// ParseMetricsLine reads one line of a metrics file:
// {"step": N, "metrics": {"name": number, ...}}, N >= 0. Other fields are
// ignored, so that a trial may log more (an epoch, a time).
func ParseMetricsLine(line []byte) (int64, map[string]float64, error) {
	var l MetricsLine
	if err := json.Unmarshal(line, &l); err != nil {
		return 0, nil, fmt.Errorf(`expected {"step": N, "metrics": {"name": number}}: %w`, err)
	}
	switch {
	case l.Step == nil:
		return 0, nil, errors.New("step: missing (expected an integer >= 0)")
	case *l.Step < 0:
		return 0, nil, fmt.Errorf("step: %d, expected an integer >= 0", *l.Step)
	}
	if err := store.ValidateMetricValues(l.Metrics); err != nil {
		return 0, nil, err
	}
	return *l.Step, l.Metrics, nil
}

// metricsTail follows one metrics file from its start.
type metricsTail struct {
	path     string
	off      int64
	skipping bool  // inside a line longer than MaxMetricsLineBytes
	bad      int   // lines skipped
	firstBad error // why the first was
}

// metricsNoteSeq numbers the line the agent adds to an attempt's log
// when metrics lines were skipped: above the process's own lines, so it
// sorts after them, and below the lines an adoption adds (adoptSeqBase).
const metricsNoteSeq = adoptSeqBase - 1

// read returns the reports of the complete lines added since the last
// read; final also takes a last line without its newline, as the trial
// has ended. A file that does not exist yet has no lines.
func (mt *metricsTail) read(id agent.TaskID, final bool) ([]api.Report, []error) {
	f, err := os.Open(mt.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{err}
	}
	defer f.Close()
	var out []api.Report
	var errs []error
	buf := make([]byte, metricsChunk)
	for {
		n, err := f.ReadAt(buf, mt.off)
		data := buf[:n]
		end := bytes.LastIndexByte(data, '\n') + 1
		if final && (err == io.EOF || n < len(buf)) {
			end = n
		}
		if end == 0 {
			if n == len(buf) { // no newline in a whole chunk: a line too long
				mt.off += int64(n)
				mt.skipping = true
				continue
			}
			return out, errs
		}
		for line := range bytes.SplitSeq(data[:end], []byte{'\n'}) {
			if mt.skipping {
				mt.skipping = false
				mt.bad++
				errs = append(errs, fmt.Errorf("a line longer than %d bytes", MaxMetricsLineBytes))
				continue
			}
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			if len(line) > MaxMetricsLineBytes {
				mt.bad++
				errs = append(errs, fmt.Errorf("a line of %d bytes, more than %d", len(line), MaxMetricsLineBytes))
				continue
			}
			step, values, perr := ParseMetricsLine(line)
			if perr != nil {
				mt.bad++
				errs = append(errs, perr)
				continue
			}
			out = append(out, api.Report{Task: id, Event: api.EventMetrics, Step: step, Metrics: values, At: time.Now().UTC()})
		}
		mt.off += int64(end)
		if n < len(buf) {
			return out, errs
		}
	}
}

// metricsWatch follows one attempt's metrics file while the attempt
// runs (watch): it reads the file every MetricsInterval, and once more
// as the attempt ends, and queues its lines' reports.
type metricsWatch struct {
	a    *Agent
	att  *attempt
	tail metricsTail
}

// newMetricsWatch watches att's metrics file from its start.
func newMetricsWatch(a *Agent, att *attempt) *metricsWatch {
	return &metricsWatch{a: a, att: att, tail: metricsTail{path: att.task.MetricsFile()}}
}

// run reads the file every MetricsInterval until stop is closed, and once
// more after, then closes done.
func (w *metricsWatch) run(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(w.a.cfg.MetricsInterval)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			w.read(true)
			return
		case <-tick.C:
			w.read(false)
		}
	}
}

// read reads new lines and queues their reports.
func (w *metricsWatch) read(final bool) {
	a, mt := w.a, &w.tail
	id := w.att.spec.ID()
	reps, errs := mt.read(id, final)
	for _, err := range errs {
		if mt.firstBad == nil {
			mt.firstBad = err
		}
		if mt.bad <= 10 { // the first few: a trial writing garbage must not flood the log
			a.log.Warn("metrics line skipped", "task", id.String(), "file", mt.path, "err", err)
		}
	}
	if final && mt.bad > 0 {
		// The researcher reads the task's log, not the agent's: the
		// skipped lines are said there once, when the attempt ends.
		a.ship.push(id, agent.LogLine{Seq: metricsNoteSeq, Time: time.Now().UTC(), Stream: agent.Stderr,
			Text: fmt.Sprintf("[allot agent] %s of the metrics file skipped, so its reports lack them; the first: %v",
				plural.Count(mt.bad, "line"), mt.firstBad)})
	}
	if len(reps) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range reps {
		a.enqueueLocked(r)
	}
}
