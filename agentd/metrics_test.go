package agentd

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

func TestParseMetricsLine(t *testing.T) {
	cases := []struct {
		name   string
		line   string
		step   int64
		errHas string
	}{
		{name: "loss at step 10", line: `{"step":10,"metrics":{"loss":0.25}}`, step: 10},
		{name: "extra fields ignored", line: `{"step":0,"epoch":1,"metrics":{"acc":0.5,"loss":1}}`, step: 0},
		{name: "not JSON", line: `step=3 loss=1`, errHas: `expected {"step"`},
		{name: "no step", line: `{"metrics":{"loss":1}}`, errHas: "step: missing"},
		{name: "negative step", line: `{"step":-1,"metrics":{"loss":1}}`, errHas: "step: -1"},
		{name: "fractional step", line: `{"step":1.5,"metrics":{"loss":1}}`, errHas: "expected"},
		{name: "no metrics", line: `{"step":1}`, errHas: "metrics: 0 names"},
		{name: "string value", line: `{"step":1,"metrics":{"loss":"low"}}`, errHas: "expected"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			step, _, err := ParseMetricsLine([]byte(c.line))
			if c.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), c.errHas) {
					t.Fatalf("err = %v, want one containing %q", err, c.errHas)
				}
				return
			}
			if err != nil || step != c.step {
				t.Fatalf("got step %d, err %v; want step %d", step, err, c.step)
			}
		})
	}
}

// TestMetricsTail checks that only complete lines are read until the
// final read, that bad lines are skipped and counted, and that a line
// longer than the limit does not stall the tail.
func TestMetricsTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.jsonl")
	mt := &metricsTail{path: path}
	id := agent.TaskID{JobID: "1", Attempt: 1}
	steps := func(final bool) []int64 {
		reps, _ := mt.read(id, final)
		var out []int64
		for _, r := range reps {
			out = append(out, r.Step)
		}
		return out
	}
	appendFile := func(s string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	if got := steps(false); got != nil {
		t.Fatalf("no file: got %v", got)
	}
	appendFile(`{"step":1,"metrics":{"loss":1}}` + "\n" + `{"step":2,"metrics":{"lo`)
	if got := steps(false); len(got) != 1 || got[0] != 1 {
		t.Fatalf("first read: got %v, want [1]", got)
	}
	appendFile(`ss":0.5}}` + "\nnot json\n" + `{"step":"` + strings.Repeat("x", 2*metricsChunk) + "\"}\n" +
		`{"step":3,"metrics":{"loss":0.25}}`)
	if got := steps(false); len(got) != 1 || got[0] != 2 {
		t.Fatalf("second read: got %v, want [2]", got)
	}
	if mt.bad != 2 {
		t.Errorf("bad lines = %d, want 2", mt.bad)
	}
	if got := steps(true); len(got) != 1 || got[0] != 3 {
		t.Fatalf("final read: got %v, want [3] (a last line without newline)", got)
	}
}

// TestMetricsReachTheMaster runs a trial that reports two steps and checks
// that they reach the master, in order, before the exit report.
func TestMetricsReachTheMaster(t *testing.T) {
	fm := newFakeMaster(t)
	cfg := testConfig(t, fm, t.TempDir())
	cfg.MetricsInterval = 10 * time.Millisecond
	startAgent(t, cfg)
	s := spec(0, 1, `echo '{"step":1,"metrics":{"loss":0.5}}' >> "$ALLOT_METRICS_FILE"; sleep 0.1; `+
		`printf '{"step":2,"metrics":{"loss":0.25}}' >> "$ALLOT_METRICS_FILE"; echo "max=$ALLOT_TRIAL_MAX_STEPS"`)
	s.MaxSteps = 2
	fm.send(startCmd(s))
	fm.waitFor("exit report", func(fm *fakeMaster) bool { _, ok := fm.exitOf(s.ID()); return ok })
	var events []string
	fm.locked(func(fm *fakeMaster) {
		for _, r := range fm.reportsFor(s.ID()) {
			e := r.Event
			if r.Event == api.EventMetrics {
				e += ":" + strconv.FormatInt(r.Step, 10)
			}
			events = append(events, e)
		}
	})
	want := []string{"running", "metrics:1", "metrics:2", "exited"}
	if strings.Join(events, " ") != strings.Join(want, " ") {
		t.Fatalf("reports %v, want %v", events, want)
	}
	fm.waitFor("output", func(fm *fakeMaster) bool { return fm.hasLine(s.ID(), "max=2") })
}

// TestSkippedMetricsLinesNoted: lines of the metrics file the agent
// cannot read are said once in the task's own log when the attempt ends,
// where the researcher looks, not only in the agent's log.
func TestSkippedMetricsLinesNoted(t *testing.T) {
	fm := newFakeMaster(t)
	cfg := testConfig(t, fm, t.TempDir())
	cfg.MetricsInterval = 10 * time.Millisecond
	startAgent(t, cfg)
	s := spec(0, 1, `echo '{"step":1,"metrics":{"loss":0.5}}' >> "$ALLOT_METRICS_FILE"; `+
		`echo '{"step":2,"metrics":{"loss":.5}}' >> "$ALLOT_METRICS_FILE"; echo 'loss=0.2' >> "$ALLOT_METRICS_FILE"; echo done`)
	fm.send(startCmd(s))
	fm.waitFor("exit report", func(fm *fakeMaster) bool { _, ok := fm.exitOf(s.ID()); return ok })
	fm.waitFor("the note", func(fm *fakeMaster) bool {
		return fm.hasLine(s.ID(), `[allot agent] 2 lines of the metrics file skipped, so its reports lack them; the first: `+
			`expected {"step": N, "metrics": {"name": number}}: invalid character '.' looking for beginning of value`)
	})
}
