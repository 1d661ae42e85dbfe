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
		{"negative after", failJob + "    duration: 1h\n    fails: [{task: 0, after: -1}]\n", 13, `fails[0]: after: expected a duration >= 0`},
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
	src := failJob + "    duration: 1h\n    fails: [{task: 1, after: 0}, {task: 0, after: 1h}]\n"
	s, err := Parse("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []TaskFail{{Task: 1, After: 0, Line: 13}, {Task: 0, After: 3600, Line: 13}}
	if !slices.Equal(s.Jobs[0].Fails, want) {
		t.Fatalf("fails = %+v, want %+v", s.Jobs[0].Fails, want)
	}
	back, out := remarshal(t, s)
	got := back.Jobs[0].Fails
	if len(got) != 2 || got[0].Task != 1 || got[0].After != 0 || got[1].Task != 0 || got[1].After != 3600 {
		t.Errorf("after a round trip fails = %+v\n%s", got, out)
	}
}

func TestParseErrorsStartFails(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"start_fails is a mapping", failJob + "    start_fails: {task: 0}\n", 12, `start_fails: expected a list of failed starts, got a mapping`},
		{"task out of range", failJob + "    start_fails: [{task: 2}]\n", 12, `start_fails[0]: task: task 2 does not exist: the job has 2 task(s)`},
		{"negative task", failJob + "    start_fails: [{task: -1}]\n", 12, `start_fails[0]: task: expected an integer >= 0`},
		{"missing task", failJob + "    start_fails: [{attempt: 2}]\n", 12, `start_fails[0]: missing required field "task"`},
		{"zero attempt", failJob + "    start_fails: [{task: 0, attempt: 0}]\n", 12, `start_fails[0]: attempt: expected an integer >= 1`},
		{"a task twice", failJob + "    start_fails:\n      - {task: 1}\n      - {task: 1, attempt: 2}\n", 14,
			`start_fails[1]: task: task 1 fails already (line 13); a task fails once`},
		{"a task in fails too", failJob + "    duration: 1h\n    fails: [{task: 0, after: 1m}]\n    start_fails: [{task: 0}]\n", 14,
			`start_fails[0]: task: task 0 fails already (in fails, line 13); a task fails once`},
		{"unknown field", failJob + "    start_fails: [{task: 0, after: 1m}]\n", 12, `start_fails[0]: unknown field "after"`},
	})
}

// TestStartFailsRoundTrip: start_fails parse, with or without a duration
// (a start fails before any work), the attempt 1 when left out, and
// Marshal writes them back.
func TestStartFailsRoundTrip(t *testing.T) {
	src := failJob + "    start_fails: [{task: 1, attempt: 3}, {task: 0}]\n"
	s, err := Parse("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []StartFail{{Task: 1, Attempt: 3, Line: 12}, {Task: 0, Attempt: 1, Line: 12}}
	if !slices.Equal(s.Jobs[0].StartFails, want) {
		t.Fatalf("start_fails = %+v, want %+v", s.Jobs[0].StartFails, want)
	}
	back, out := remarshal(t, s)
	got := back.Jobs[0].StartFails
	if len(got) != 2 || got[0] != (StartFail{1, 3, got[0].Line}) || got[1] != (StartFail{0, 1, got[1].Line}) {
		t.Errorf("after a round trip start_fails = %+v\n%s", got, out)
	}
}

func TestParseErrorsStartLost(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"task out of range", failJob + "    start_lost: [{task: 2, after: 3}]\n", 12, `start_lost[0]: task: task 2 does not exist: the job has 2 task(s)`},
		{"missing after", failJob + "    start_lost: [{task: 0}]\n", 12, `start_lost[0]: missing required field "after"`},
		{"zero after", failJob + "    start_lost: [{task: 0, after: 0}]\n", 12, `start_lost[0]: after: expected`},
		{"an attempt twice", failJob + "    start_lost:\n      - {task: 1, after: 3}\n      - {task: 1, attempt: 1, after: 5}\n", 14,
			`start_lost[1]: attempt: attempt 1 of task 1 is lost already (line 13)`},
	})
}

func TestParseErrorsLost(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"task out of range", failJob + "    lost: [{task: 2, after: 3}]\n", 12, `lost[0]: task: task 2 does not exist: the job has 2 task(s)`},
		{"missing after", failJob + "    lost: [{task: 0}]\n", 12, `lost[0]: missing required field "after"`},
		{"negative after", failJob + "    lost: [{task: 0, after: -1}]\n", 12, `lost[0]: after: expected a duration >= 0`},
		{"an attempt twice", failJob + "    lost:\n      - {task: 1, after: 3}\n      - {task: 1, attempt: 1, after: 5}\n", 14,
			`lost[1]: attempt: attempt 1 of task 1 is lost already (line 13)`},
		{"a lost start too", failJob + "    start_lost: [{task: 1, after: 3}]\n    lost: [{task: 1, after: 5}]\n", 13,
			`lost[0]: attempt: attempt 1 of task 1 is lost already (line 12)`},
	})
}

// TestLostAfterZero: a lost attempt may be lost in the second it
// started (after 0: the export writes one an agent dropped in that
// second), and Marshal writes it back; a lost start may not
// (TestParseErrorsStartLost).
func TestLostAfterZero(t *testing.T) {
	s, err := Parse("f.yaml", []byte(failJob+"    lost: [{task: 1, after: 0}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []StartLost{{Task: 1, Attempt: 1, After: 0, Line: 12}}
	if got := s.Jobs[0].Lost; !slices.Equal(got, want) {
		t.Fatalf("lost = %+v, want %+v", got, want)
	}
	back, out := remarshal(t, s)
	if got := back.Jobs[0].Lost; len(got) != 1 || got[0] != (StartLost{1, 1, 0, got[0].Line}) {
		t.Errorf("after a round trip lost = %+v\n%s", got, out)
	}
}

// TestLostListsRoundTrip: start_lost and lost parse, the attempt 1
// when left out, and Marshal writes them back.
func TestLostListsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		key string
		get func(*Job) []StartLost
	}{
		{"start_lost", func(j *Job) []StartLost { return j.StartLost }},
		{"lost", func(j *Job) []StartLost { return j.Lost }},
	} {
		t.Run(tc.key, func(t *testing.T) {
			src := failJob + "    " + tc.key + ": [{task: 1, attempt: 2, after: 3}, {task: 0, after: 10}]\n"
			s, err := Parse("f.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			want := []StartLost{{Task: 1, Attempt: 2, After: 3, Line: 12}, {Task: 0, Attempt: 1, After: 10, Line: 12}}
			if got := tc.get(&s.Jobs[0]); !slices.Equal(got, want) {
				t.Fatalf("%s = %+v, want %+v", tc.key, got, want)
			}
			back, out := remarshal(t, s)
			got := tc.get(&back.Jobs[0])
			if len(got) != 2 || got[0] != (StartLost{1, 2, 3, got[0].Line}) || got[1] != (StartLost{0, 1, 10, got[1].Line}) {
				t.Errorf("after a round trip %s = %+v\n%s", tc.key, got, out)
			}
		})
	}
}
