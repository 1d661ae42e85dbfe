package scenario

import (
	"slices"
	"strings"
	"testing"
)

func TestParseErrorsAgentPreempted(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"a mapping", failJob + "    agent_preempted: {task: 0, after: 3}\n", 12,
			`agent_preempted: expected a list of attempts their agent preempted, got a mapping`},
		{"task out of range", failJob + "    agent_preempted: [{task: 2, after: 3}]\n", 12,
			`agent_preempted[0]: task: task 2 does not exist: the job has 2 task(s)`},
		{"missing task", failJob + "    agent_preempted: [{after: 3}]\n", 12, `agent_preempted[0]: missing required field "task"`},
		{"missing after", failJob + "    agent_preempted: [{task: 0}]\n", 12, `agent_preempted[0]: missing required field "after"`},
		{"negative after", failJob + "    agent_preempted: [{task: 0, after: -1}]\n", 12,
			`agent_preempted[0]: after: expected a duration >= 0`},
		{"attempt 0", failJob + "    agent_preempted: [{task: 0, attempt: 0, after: 3}]\n", 12,
			`agent_preempted[0]: attempt: expected an integer >= 1`},
		{"unknown field", failJob + "    agent_preempted: [{task: 0, after: 3, node: n}]\n", 12,
			`agent_preempted[0]: unknown field "node"`},
		{"an attempt twice", failJob + "    agent_preempted:\n      - {task: 1, after: 3}\n      - {task: 1, attempt: 1, after: 5}\n", 14,
			`agent_preempted[1]: attempt: attempt 1 of task 1 ends already (line 13); an attempt ends once`},
		{"a lost attempt too", failJob + "    lost: [{task: 1, after: 3}]\n    agent_preempted: [{task: 1, after: 5}]\n", 13,
			`agent_preempted[0]: attempt: attempt 1 of task 1 ends already (in lost, line 12)`},
		{"a lost start too", failJob + "    start_lost: [{task: 0, attempt: 2, after: 3}]\n    agent_preempted: [{task: 0, attempt: 2, after: 5}]\n", 13,
			`agent_preempted[0]: attempt: attempt 2 of task 0 ends already (in start_lost, line 12)`},
	})
}

// TestAgentPreemptedRoundTrip: agent_preempted parses, the attempt 1 by
// default and after 0 allowed, and Marshal writes it back, attempt 1
// left out.
func TestAgentPreemptedRoundTrip(t *testing.T) {
	s, err := Parse("f.yaml", []byte(failJob+"    agent_preempted: [{task: 1, after: 0}, {task: 0, attempt: 2, after: 90}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []StartLost{{Task: 1, Attempt: 1, After: 0, Line: 12}, {Task: 0, Attempt: 2, After: 90, Line: 12}}
	if got := s.Jobs[0].AgentPreempted; !slices.Equal(got, want) {
		t.Fatalf("agent_preempted = %+v, want %+v", got, want)
	}
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "agent_preempted:") {
		t.Fatalf("Marshal left agent_preempted out:\n%s", out)
	}
	back, err := Parse("f.yaml", out)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i].Line = 0
	}
	got := slices.Clone(back.Jobs[0].AgentPreempted)
	for i := range got {
		got[i].Line = 0
	}
	if !slices.Equal(got, want) {
		t.Errorf("after a round trip agent_preempted = %+v, want %+v\n%s", got, want, out)
	}
}
