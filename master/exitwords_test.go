package master

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
)

// TestPartEnd: a one-node attempt's failure reads as the task's own exit,
// with the shell code explained ("failed with exit code 127 (command not
// found) on node n2", as sacct's ExitCode 127:0 is looked up); only a
// gang names "the part on node" (trial n F9).
func TestPartEnd(t *testing.T) {
	code := func(c int) *int { return &c }
	tests := []struct {
		name  string
		p     mpart
		parts int
		want  string
	}{
		{"one node, command not found", mpart{node: "n2", outcome: agent.OutcomeFailed, exitCode: code(127)}, 1,
			"failed with exit code 127 (command not found) on node n2"},
		{"one node, a plain code", mpart{node: "n2", outcome: agent.OutcomeFailed, exitCode: code(1)}, 1,
			"failed with exit code 1 on node n2"},
		{"one node, the agent's error", mpart{node: "n1", outcome: agent.OutcomeFailed, exitCode: code(137), err: "out of memory"}, 1,
			"failed with exit code 137 (killed by SIGKILL, often out of memory): out of memory on node n1"},
		{"a gang's part", mpart{node: "r2", outcome: agent.OutcomeFailed, exitCode: code(3)}, 2,
			"the part on node r2 failed with exit code 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := partEnd(&tt.p, tt.parts); got != tt.want {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestHistoryReasonOfOneNodeFailure: allot history's REASON for a
// one-node job that failed is the task's own exit, not a gang's part.
func TestHistoryReasonOfOneNodeFailure(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n2", 2)
	a.OnStart = func(agent.TaskSpec) *mastertest.Exit {
		return &mastertest.Exit{Outcome: agent.OutcomeFailed, ExitCode: 127}
	}
	id := h.submit(jobSpec("b7", 1, ""))
	h.clock.Advance(time.Second) // history's window ends before now
	h.step()
	for range 2 {
		h.sync(a)
	}
	if j := h.job(id); j.State != "failed" {
		t.Fatalf("job %s (%s), want failed", j.State, j.Reason)
	}
	var hist []api.HistoryRecord
	if code := h.do("GET", "/api/v1/history", nil, &hist); code != 200 || len(hist) != 1 {
		t.Fatalf("history %d %+v, want job %d", code, hist, id)
	}
	r := hist[0]
	if want := "failed with exit code 127 (command not found) on node n2"; r.State != "failed" || r.ExitCode == nil ||
		*r.ExitCode != 127 || r.Reason != want {
		t.Fatalf("history: %s, exit %v, reason %q; want failed, 127, %q", r.State, r.ExitCode, r.Reason, want)
	}
}
