package scenario

import (
	"slices"
	"testing"
)

func TestParseErrorsLateExits(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"a mapping", failJob + "    late_exits: {task: 0, before: 1m}\n", 12, `late_exits: expected a list of late exits, got a mapping`},
		{"task out of range", failJob + "    late_exits: [{task: 2, before: 1m}]\n", 12, `late_exits[0]: task: task 2 does not exist: the job has 2 task(s)`},
		{"missing task", failJob + "    late_exits: [{before: 1m}]\n", 12, `late_exits[0]: missing required field "task"`},
		{"missing before", failJob + "    late_exits: [{task: 0}]\n", 12, `late_exits[0]: missing required field "before"`},
		{"zero before", failJob + "    late_exits: [{task: 0, before: 0}]\n", 12, `late_exits[0]: before: expected a duration > 0`},
		{"negative before", failJob + "    late_exits: [{task: 0, before: -5}]\n", 12, `late_exits[0]: before: expected a duration`},
		{"zero attempt", failJob + "    late_exits: [{task: 0, attempt: 0, before: 1m}]\n", 12, `late_exits[0]: attempt: expected an integer >= 1`},
		{"an attempt twice", failJob + "    late_exits:\n      - {task: 1, before: 1m}\n      - {task: 1, attempt: 1, before: 2m}\n", 14,
			`late_exits[1]: attempt: attempt 1 of task 1 exits late already (line 13); an attempt exits once`},
		{"a start never answered", failJob + "    start_lost: [{task: 0, attempt: 2, after: 1m}]\n    late_exits: [{task: 0, attempt: 2, before: 1m}]\n", 13,
			`late_exits[0]: attempt: attempt 2 of task 0 never ran (in start_lost, line 12), so it has no exit to report late`},
		{"a failed start", failJob + "    start_fails: [{task: 1}]\n    late_exits: [{task: 1, before: 1m}]\n", 13,
			`late_exits[0]: attempt: attempt 1 of task 1 never ran (in start_fails, line 12)`},
		{"unknown field", failJob + "    late_exits: [{task: 0, before: 1m, after: 1m}]\n", 12, `late_exits[0]: unknown field "after"`},
	})
}

// TestLateExitsRoundTrip: late_exits parse, the attempt 1 when left
// out, one attempt of a task apart from another, and Marshal writes them
// back.
func TestLateExitsRoundTrip(t *testing.T) {
	src := failJob + "    late_exits: [{task: 1, attempt: 3, before: 90s}, {task: 0, before: 1h}, {task: 1, before: 1}]\n"
	s, err := Parse("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []LateExit{{Task: 1, Attempt: 3, Before: 90, Line: 12}, {Task: 0, Attempt: 1, Before: 3600, Line: 12}, {Task: 1, Attempt: 1, Before: 1, Line: 12}}
	if !slices.Equal(s.Jobs[0].LateExits, want) {
		t.Fatalf("late_exits = %+v, want %+v", s.Jobs[0].LateExits, want)
	}
	back, out := remarshal(t, s)
	got := back.Jobs[0].LateExits
	for i := range got {
		got[i].Line = 0
		want[i].Line = 0
	}
	if !slices.Equal(got, want) {
		t.Errorf("after a round trip late_exits = %+v, want %+v\n%s", got, want, out)
	}
}

func TestParseErrorsSlowKills(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"a mapping", failJob + "    slow_kills: {task: 0, after: 5}\n", 12, `slow_kills: expected a list of slow kills, got a mapping`},
		{"task out of range", failJob + "    slow_kills: [{task: 2, after: 5}]\n", 12, `slow_kills[0]: task: task 2 does not exist: the job has 2 task(s)`},
		{"missing task", failJob + "    slow_kills: [{after: 5}]\n", 12, `slow_kills[0]: missing required field "task"`},
		{"missing after", failJob + "    slow_kills: [{task: 0}]\n", 12, `slow_kills[0]: missing required field "after"`},
		{"zero after", failJob + "    slow_kills: [{task: 0, after: 0}]\n", 12, `slow_kills[0]: after: expected a duration > 0`},
		{"negative after", failJob + "    slow_kills: [{task: 0, after: -5}]\n", 12, `slow_kills[0]: after: expected a duration`},
		{"zero attempt", failJob + "    slow_kills: [{task: 0, attempt: 0, after: 5}]\n", 12, `slow_kills[0]: attempt: expected an integer >= 1`},
		{"an attempt twice", failJob + "    slow_kills:\n      - {task: 1, after: 5}\n      - {task: 1, attempt: 1, after: 9}\n", 14,
			`slow_kills[1]: attempt: attempt 1 of task 1 is slow to kill already (line 13); an attempt is killed once`},
		{"a start never answered", failJob + "    start_lost: [{task: 0, attempt: 2, after: 1m}]\n    slow_kills: [{task: 0, attempt: 2, after: 5}]\n", 13,
			`slow_kills[0]: attempt: attempt 2 of task 0 never ran (in start_lost, line 12), so no kill waits for it`},
		{"a failed start", failJob + "    start_fails: [{task: 1}]\n    slow_kills: [{task: 1, after: 5}]\n", 13,
			`slow_kills[0]: attempt: attempt 1 of task 1 never ran (in start_fails, line 12)`},
		{"unknown field", failJob + "    slow_kills: [{task: 0, after: 5, before: 1}]\n", 12, `slow_kills[0]: unknown field "before"`},
	})
}

// TestSlowKillsRoundTrip: slow_kills parse, the attempt 1 when left out,
// one attempt of a task apart from another, and Marshal writes them
// back.
func TestSlowKillsRoundTrip(t *testing.T) {
	src := failJob + "    slow_kills: [{task: 1, attempt: 2, after: 90s}, {task: 0, after: 3}, {task: 1, after: 1}]\n"
	s, err := Parse("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []SlowKill{{Task: 1, Attempt: 2, After: 90, Line: 12}, {Task: 0, Attempt: 1, After: 3, Line: 12}, {Task: 1, Attempt: 1, After: 1, Line: 12}}
	if !slices.Equal(s.Jobs[0].SlowKills, want) {
		t.Fatalf("slow_kills = %+v, want %+v", s.Jobs[0].SlowKills, want)
	}
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("back.yaml", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := back.Jobs[0].SlowKills
	for i := range got {
		got[i].Line = 0
		want[i].Line = 0
	}
	if !slices.Equal(got, want) {
		t.Errorf("after a round trip slow_kills = %+v, want %+v\n%s", got, want, out)
	}
}

func TestParseErrorsEndsAfterPass(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"a mapping", failJob + "    ends_after_pass: {task: 0}\n", 12, `ends_after_pass: expected a list of ends after a pass, got a mapping`},
		{"task out of range", failJob + "    ends_after_pass: [{task: 2}]\n", 12, `ends_after_pass[0]: task: task 2 does not exist: the job has 2 task(s)`},
		{"missing task", failJob + "    ends_after_pass: [{attempt: 2}]\n", 12, `ends_after_pass[0]: missing required field "task"`},
		{"zero attempt", failJob + "    ends_after_pass: [{task: 0, attempt: 0}]\n", 12, `ends_after_pass[0]: attempt: expected an integer >= 1`},
		{"an attempt twice", failJob + "    ends_after_pass:\n      - {task: 1}\n      - {task: 1, attempt: 1}\n", 14,
			`ends_after_pass[1]: attempt: attempt 1 of task 1 ends after a pass already (line 13); an attempt ends once`},
		{"a failed start", failJob + "    start_fails: [{task: 1}]\n    ends_after_pass: [{task: 1}]\n", 13,
			`ends_after_pass[0]: attempt: attempt 1 of task 1 never ran (in start_fails, line 12), so it has no end to order`},
		{"unknown field", failJob + "    ends_after_pass: [{task: 0, after: 1}]\n", 12, `ends_after_pass[0]: unknown field "after"`},
	})
}

// TestEndsAfterPassRoundTrip: ends_after_pass parse, the attempt 1 when
// left out, and Marshal writes them back.
func TestEndsAfterPassRoundTrip(t *testing.T) {
	s, err := Parse("f.yaml", []byte(failJob+"    ends_after_pass: [{task: 1, attempt: 3}, {task: 0}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []EndAfterPass{{Task: 1, Attempt: 3, Line: 12}, {Task: 0, Attempt: 1, Line: 12}}
	if !slices.Equal(s.Jobs[0].EndsAfterPass, want) {
		t.Fatalf("ends_after_pass = %+v, want %+v", s.Jobs[0].EndsAfterPass, want)
	}
	back, out := remarshal(t, s)
	got := back.Jobs[0].EndsAfterPass
	for i := range got {
		got[i].Line, want[i].Line = 0, 0
	}
	if !slices.Equal(got, want) {
		t.Errorf("after a round trip ends_after_pass = %+v, want %+v\n%s", got, want, out)
	}
}
