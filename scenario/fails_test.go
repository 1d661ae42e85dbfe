package scenario

import (
	"slices"
	"testing"
)

// failJob is pools plus a job of two tasks on line 11, whose fields the
// cases add.
const failJob = pools + `jobs:
  - name: a
    tasks: 2
`

func TestParseErrorsFails(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"fails without a duration", failJob + "    fails: [{task: 0, after: 1m}]\n", 12, `fails: a job without a duration`},
		{"fails is a mapping", failJob + "    duration: 1h\n    fails: {task: 0, after: 1m}\n", 13, `fails: expected a list of task failures, got a mapping`},
		{"task out of range", failJob + "    duration: 1h\n    fails: [{task: 2, after: 1m}]\n", 13, `fails[0]: task: task 2 does not exist: the job has 2 task(s)`},
		{"negative task", failJob + "    duration: 1h\n    fails: [{task: -1, after: 1m}]\n", 13, `fails[0]: task: expected an integer >= 0`},
		{"missing after", failJob + "    duration: 1h\n    fails: [{task: 0}]\n", 13, `fails[0]: missing required field "after"`},
		{"zero after", failJob + "    duration: 1h\n    fails: [{task: 0, after: 0}]\n", 13, `fails[0]: after: expected a duration > 0`},
		{"a task twice", failJob + "    duration: 1h\n    fails:\n      - {task: 1, after: 1m}\n      - {task: 1, after: 2m}\n", 15,
			`fails[1]: task: task 1 fails already (line 14)`},
		{"after the run time", failJob + "    duration: 50m\n    fails:\n      - {task: 0, after: 1m}\n      - {task: 1, after: 1h}\n", 15,
			`fails[1]: after: after 3600 s is beyond the job's run time 3000 s: the task would complete first`},
		{"after a search's longest trial", asha + "    fails: [{task: 0, after: 91m}]\n", 19,
			`fails[0]: after: after 5460 s is beyond the job's run time 5400 s`},
		{"unknown field", failJob + "    duration: 1h\n    fails: [{task: 0, after: 1m, code: 3}]\n", 13, `fails[0]: unknown field "code"`},
	})
}

// TestFailsRoundTrip: fails parse, and Marshal writes them back.
func TestFailsRoundTrip(t *testing.T) {
	src := failJob + "    duration: 1h\n    fails: [{task: 1, after: 90s}, {task: 0, after: 1h}]\n"
	s, err := Parse("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []TaskFail{{Task: 1, After: 90, Line: 13}, {Task: 0, After: 3600, Line: 13}}
	if !slices.Equal(s.Jobs[0].Fails, want) {
		t.Fatalf("fails = %+v, want %+v", s.Jobs[0].Fails, want)
	}
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("back.yaml", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := back.Jobs[0].Fails
	if len(got) != 2 || got[0].Task != 1 || got[0].After != 90 || got[1].Task != 0 || got[1].After != 3600 {
		t.Errorf("after a round trip fails = %+v\n%s", got, out)
	}
}
