package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

func TestExperimentShow(t *testing.T) {
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "trials with the searcher's standing", args: []string{"experiment", "show", "3"}, out: `Experiment 3  searcher asha  metric loss (smaller is better)  reports 4

TRIAL  STATE      STEP  LATEST  BEST  BEST STEP  BRACKET  RUNGS  DECISION
0      running    12    0.5     0.4   9          0        1      continue
1      completed  3     1.2     1.2   3          0        1      stopped
2      queued     -     -       -     -          0        0      continue
`},
		{name: "unknown job", args: []string{"experiment", "show", "99"}, err: "master: 404 Not Found: job 99 does not exist"},
		{name: "a command job", args: []string{"experiment", "show", "2"}, err: "job 2 is a command job, not an experiment: allot job show 2 shows it"},
		{name: "a notebook", args: []string{"experiment", "show", "6"}, err: "job 6 is a notebook job, not an experiment"},
		{name: "bad output", args: []string{"experiment", "show", "3", "-o", "xml"}, err: `--output: expected one of`},
	})
	// allot experiment ID is allot experiment show ID, as allot job ID is
	// allot job show ID; a word that is no ID is an unknown command.
	short, _, err := runAt(t, f, "experiment", "3")
	long, _, _ := runAt(t, f, "experiment", "show", "3")
	if err != nil || short != long || !strings.HasPrefix(short, "Experiment 3  searcher asha") {
		t.Errorf("experiment 3: %v\n%s", err, short)
	}
	if _, _, err := runAt(t, f, "experiment", "shwo"); err == nil || !strings.Contains(err.Error(), "did you mean show?") {
		t.Errorf("experiment shwo: %v", err)
	}
	out, _, err := runAt(t, f, "experiment", "show", "3", "-o", "json")
	var m api.JobMetrics
	if err != nil || json.Unmarshal([]byte(out), &m) != nil || len(m.Points) != 4 || m.Trials[1].Decision != "stopped" {
		t.Errorf("experiment show -o json: %v\n%s", err, out)
	}
}

// TestExperimentBeforeReports: a searcher without a metric of its own
// (grid) names none until the trials report one, rather than "metric
// metric".
func TestExperimentBeforeReports(t *testing.T) {
	var b bytes.Buffer
	m := api.JobMetrics{JobID: 1, Searcher: "grid", SmallerIsBetter: true, Trials: []api.TrialMetrics{{Task: 0, State: "queued"}}}
	if err := printExperiment(&b, m, false); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(b.String(), "\n"); first != "Experiment 1  searcher grid  metric none reported yet  reports 0" {
		t.Errorf("first line %q", first)
	}
}
