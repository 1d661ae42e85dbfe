package scenario

import (
	"slices"
	"testing"
)

func TestParseErrorsRuns(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"runs is a mapping", failJob + "    runs: {task: 0, work: 1m}\n", 12, `runs: expected a list of task run times, got a mapping`},
		{"task out of range", failJob + "    runs: [{task: 2, work: 1m}]\n", 12, `runs[0]: task: task 2 does not exist: the job has 2 task(s)`},
		{"negative task", failJob + "    runs: [{task: -1, work: 1m}]\n", 12, `runs[0]: task: expected an integer >= 0`},
		{"missing work", failJob + "    runs: [{task: 0}]\n", 12, `runs[0]: missing required field "work"`},
		{"missing task", failJob + "    runs: [{work: 1m}]\n", 12, `runs[0]: missing required field "task"`},
		{"negative work", failJob + "    runs: [{task: 0, work: -1}]\n", 12, `runs[0]: work: expected a duration >= 0`},
		{"a task twice", failJob + "    runs:\n      - {task: 1, work: 1m}\n      - {task: 1, work: 2m}\n", 14,
			`runs[1]: task: task 1 ends already (line 13); a task ends once`},
		{"a failure after its run time", failJob + "    duration: 1h\n    fails: [{task: 0, after: 3m}]\n    runs: [{task: 0, work: 2m}]\n", 13,
			`fails[0]: after: after 180 s is beyond task 0's run time 120 s (runs, line 14): the task would complete first`},
		{"a task in start_fails too", failJob + "    start_fails: [{task: 1}]\n    runs: [{task: 1, work: 2m}]\n", 12,
			`start_fails[0]: task: task 1 ends already (in runs, line 13); a task ends once`},
		{"an experiment", asha + "    runs: [{task: 0, work: 1m}]\n", 19, `runs: an experiment's trials run max_length steps`},
		{"unknown field", failJob + "    runs: [{task: 0, work: 1m, after: 3}]\n", 12, `runs[0]: unknown field "after"`},
	})
}

func TestParseErrorsStops(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"stops without a duration", failJob + "    stops: [{task: 0, after: 1m}]\n", 12, `stops: a job without a duration`},
		{"stops is a mapping", failJob + "    duration: 1h\n    stops: {task: 0, after: 1m}\n", 13, `stops: expected a list of task stops, got a mapping`},
		{"task out of range", failJob + "    duration: 1h\n    stops: [{task: 2, after: 1m}]\n", 13, `stops[0]: task: task 2 does not exist: the job has 2 task(s)`},
		{"missing after", failJob + "    duration: 1h\n    stops: [{task: 0}]\n", 13, `stops[0]: missing required field "after"`},
		{"negative after", failJob + "    duration: 1h\n    stops: [{task: 0, after: -1}]\n", 13, `stops[0]: after: expected a duration >= 0`},
		{"after the run time", failJob + "    duration: 50m\n    stops:\n      - {task: 0, after: 1m}\n      - {task: 1, after: 1h}\n", 15,
			`stops[1]: after: after 3600 s is beyond the job's run time 3000 s: the task would complete first`},
		{"a task twice", failJob + "    duration: 1h\n    stops:\n      - {task: 1, after: 1m}\n      - {task: 1, after: 2m}\n", 15,
			`stops[1]: task: task 1 ends already (line 14); a task ends once`},
		{"a task in fails too", failJob + "    duration: 1h\n    fails: [{task: 0, after: 1m}]\n    stops: [{task: 0, after: 2m}]\n", 14,
			`stops[0]: task: task 0 ends already (in fails, line 13); a task ends once`},
		{"a task in start_fails too", failJob + "    duration: 1h\n    start_fails: [{task: 1}]\n    stops: [{task: 1, after: 2m}]\n", 14,
			`stops[0]: task: task 1 ends already (in start_fails, line 13); a task ends once`},
		{"after its own run time", failJob + "    duration: 1h\n    runs: [{task: 1, work: 3m}]\n    stops: [{task: 1, after: 4m}]\n", 14,
			`stops[0]: after: after 240 s is beyond task 1's run time 180 s (runs, line 13): the task would complete first`},
		{"after a search's longest trial", asha + "    stops: [{task: 0, after: 91m}]\n", 19,
			`stops[0]: after: after 5460 s is beyond the job's run time 5400 s`},
		{"unknown field", failJob + "    duration: 1h\n    stops: [{task: 0, after: 1m, work: 3}]\n", 13, `stops[0]: unknown field "work"`},
	})
}

// TestRunsStopsRoundTrip: runs and stops parse (runs with or without a
// duration, the other tasks running until killed without one; stops at
// 0 and at the run time itself), and Marshal writes them back.
func TestRunsStopsRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		runs  []TaskRun
		stops []TaskStop
	}{
		{"runs without a duration", failJob + "    runs: [{task: 1, work: 0}, {task: 0, work: 1h}]\n",
			[]TaskRun{{Task: 1, Work: 0}, {Task: 0, Work: 3600}}, nil},
		{"stops within the run time", failJob + "    duration: 1h\n    stops: [{task: 1, after: 1h}, {task: 0, after: 0}]\n",
			nil, []TaskStop{{Task: 1, After: 3600}, {Task: 0, After: 0}}},
		{"a run and a stop", failJob + "    duration: 1h\n    runs: [{task: 0, work: 2h}]\n    stops: [{task: 1, after: 10m}]\n",
			[]TaskRun{{Task: 0, Work: 7200}}, []TaskStop{{Task: 1, After: 600}}},
		{"a stopped trial", asha + "    stops: [{task: 2, after: 30m}]\n", nil, []TaskStop{{Task: 2, After: 1800}}},
		{"a stop past the job's run time within the task's", failJob + "    duration: 1h\n    runs: [{task: 1, work: 2h}]\n    stops: [{task: 1, after: 2h}]\n",
			[]TaskRun{{Task: 1, Work: 7200}}, []TaskStop{{Task: 1, After: 7200}}},
	}
	runsEq := func(a, b TaskRun) bool { return a.Task == b.Task && a.Work == b.Work }
	stopsEq := func(a, b TaskStop) bool { return a.Task == b.Task && a.After == b.After }
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("f.yaml", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			j := s.Jobs[0]
			if !slices.EqualFunc(j.Runs, tc.runs, runsEq) || !slices.EqualFunc(j.Stops, tc.stops, stopsEq) {
				t.Fatalf("runs %+v, stops %+v; want %+v, %+v", j.Runs, j.Stops, tc.runs, tc.stops)
			}
			back, out := remarshal(t, s)
			if b := back.Jobs[0]; !slices.EqualFunc(b.Runs, tc.runs, runsEq) || !slices.EqualFunc(b.Stops, tc.stops, stopsEq) {
				t.Errorf("after a round trip runs %+v, stops %+v\n%s", b.Runs, b.Stops, out)
			}
		})
	}
}

// TestFailsWithinRuns: a task with its own run time may fail within it,
// past the job's run time, and a round trip keeps both.
func TestFailsWithinRuns(t *testing.T) {
	s, err := Parse("f.yaml", []byte(failJob+"    duration: 1h\n    runs: [{task: 0, work: 3h}]\n    fails: [{task: 0, after: 2h}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	back, out := remarshal(t, s)
	for _, j := range []Job{s.Jobs[0], back.Jobs[0]} {
		if len(j.Runs) != 1 || j.Runs[0].Work != 10800 || len(j.Fails) != 1 || j.Fails[0].After != 7200 {
			t.Errorf("runs %+v, fails %+v; want task 0 to run 3h and fail after 2h\n%s", j.Runs, j.Fails, out)
		}
	}
}
