package scenario

import (
	"slices"
	"strings"
	"testing"
)

func TestParseErrorsCheckpoints(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"a mapping", failJob + "    checkpoints: {task: 0, after: 3}\n", 12,
			`checkpoints: expected a list of checkpoint times, got a mapping`},
		{"task out of range", failJob + "    checkpoints: [{task: 2, after: 3}]\n", 12,
			`checkpoints[0]: task: task 2 does not exist: the job has 2 task(s)`},
		{"missing task", failJob + "    checkpoints: [{after: 3}]\n", 12, `checkpoints[0]: missing required field "task"`},
		{"missing after", failJob + "    checkpoints: [{task: 0}]\n", 12, `checkpoints[0]: missing required field "after"`},
		{"negative after", failJob + "    checkpoints: [{task: 0, after: -1}]\n", 12,
			`checkpoints[0]: after: expected a duration >= 0`},
		{"attempt 0", failJob + "    checkpoints: [{task: 0, attempt: 0, after: 3}]\n", 12,
			`checkpoints[0]: attempt: expected an integer >= 1`},
		{"unknown field", failJob + "    checkpoints: [{task: 0, after: 3, node: n}]\n", 12,
			`checkpoints[0]: unknown field "node"`},
		{"an attempt twice", failJob + "    checkpoints:\n      - {task: 1, after: 3}\n      - {task: 1, attempt: 1, after: 5}\n", 14,
			`checkpoints[1]: attempt: attempt 1 of task 1 has its checkpoint time already (line 13)`},
		{"nth 0", failJob + "    checkpoints: [{task: 0, nth: 0, after: 3}]\n", 12,
			`checkpoints[0]: nth: expected an integer >= 1`},
		{"nth not a number", failJob + "    checkpoints: [{task: 0, nth: x, after: 3}]\n", 12,
			`checkpoints[0]: nth: expected an integer >= 1`},
		{"an nth twice", failJob + "    checkpoints:\n      - {task: 1, nth: 2, after: 3}\n      - {task: 1, after: 4}\n      - {task: 1, attempt: 1, nth: 2, after: 5}\n", 15,
			`checkpoints[2]: nth: checkpoint 2 of attempt 1 of task 1 has its time already (line 13)`},
	})
}

// TestCheckpointsRoundTrip: checkpoints parse, the attempt 1 by default
// and after 0 allowed, next to a lost attempt (a checkpoint asked for
// before the loss), an attempt's second checkpoint with its own time
// (nth), and Marshal writes them back, attempt 1 and no nth left out.
func TestCheckpointsRoundTrip(t *testing.T) {
	s, err := Parse("f.yaml", []byte(failJob+"    lost: [{task: 1, after: 50}]\n    checkpoints: [{task: 1, after: 0}, {task: 0, attempt: 2, after: 90}, {task: 0, attempt: 2, nth: 2, after: 30}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Checkpoint{{StartLost: StartLost{Task: 1, Attempt: 1, After: 0, Line: 13}}, {StartLost: StartLost{Task: 0, Attempt: 2, After: 90, Line: 13}},
		{StartLost: StartLost{Task: 0, Attempt: 2, After: 30, Line: 13}, Nth: 2}}
	if got := s.Jobs[0].Checkpoints; !slices.Equal(got, want) {
		t.Fatalf("checkpoints = %+v, want %+v", got, want)
	}
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "checkpoints:") || strings.Contains(string(out), "attempt: 1\n") || strings.Count(string(out), "nth:") != 1 {
		t.Fatalf("Marshal wrote checkpoints wrong:\n%s", out)
	}
	back, err := Parse("f.yaml", out)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i].Line = 0
	}
	got := slices.Clone(back.Jobs[0].Checkpoints)
	for i := range got {
		got[i].Line = 0
	}
	if !slices.Equal(got, want) {
		t.Errorf("after a round trip checkpoints = %+v, want %+v\n%s", got, want, out)
	}
}
