package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestExplainFenced: attempts the agents' fence stopped while the master
// was unreachable have their own heading, dated by the stop with the
// master's return (its start) and the report's arrival beside it (trial
// 2026-11-29b B2); the preemptions do not list them (trial
// 2026-11-29a A8).
func TestExplainFenced(t *testing.T) {
	fixClock(t)
	displayZone = time.UTC
	back := time.Date(2026, 11, 29, 1, 22, 46, 0, time.UTC)
	start := time.Date(2026, 11, 29, 1, 22, 35, 0, time.UTC)
	stop := time.Date(2026, 11, 29, 1, 22, 0, 0, time.UTC)
	nextDay := time.Date(2026, 11, 28, 23, 59, 50, 0, time.UTC)
	why := "stopped by the agent's fence: no reply from the master for 21s; attempt 2 resumed from its checkpoint"
	const head = "\nStopped while the master was unreachable (the agents' fence):\n"
	tests := []struct {
		name   string
		fenced []api.Preemption
		want   string // "" for no heading
	}{
		{"none", nil, ""},
		{"dated by the stop", []api.Preemption{{Task: 0, Attempt: 1, At: back, ExitedAt: &stop, MasterBack: &start, Why: why}},
			head + "  task 0 attempt 1 at 2026-11-29 01:22:00 (master back at 01:22:35, reported at 01:22:46): " + why + "\n"},
		// B2: without the master's start (no restart: the network's or
		// the store's outage), the report's time is no return.
		{"no master start", []api.Preemption{{Task: 0, Attempt: 1, At: back, ExitedAt: &stop, Why: why}},
			head + "  task 0 attempt 1 at 2026-11-29 01:22:00 (reported at 01:22:46): " + why + "\n"},
		{"back the next day", []api.Preemption{{Task: 0, Attempt: 1, At: back, ExitedAt: &nextDay, MasterBack: &start, Why: why}},
			head + "  task 0 attempt 1 at 2026-11-28 23:59:50 (master back at 2026-11-29 01:22:35, reported at 2026-11-29 01:22:46): " + why + "\n"},
		{"no exit time", []api.Preemption{{Task: 0, Attempt: 1, At: back, Why: why}},
			head + "  task 0 attempt 1 at 2026-11-29 01:22:46: " + why + "\n"},
		{"exit when the master heard", []api.Preemption{{Task: 0, Attempt: 1, At: back, ExitedAt: &back, Why: why}},
			head + "  task 0 attempt 1 at 2026-11-29 01:22:46: " + why + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := fixtureExplanation()
			x.Fenced = tt.fenced
			var b bytes.Buffer
			if err := printExplanation(&b, x); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if got := strings.Contains(out, head); got != (tt.want != "") || !strings.Contains(out, tt.want) {
				t.Errorf("output, want %q:\n%s", tt.want, out)
			}
			if pre, _, _ := strings.Cut(out[strings.Index(out, "Preempted:"):], "\n\n"); strings.Contains(pre, "fence") {
				t.Errorf("the preemptions list the fenced attempt:\n%s", out)
			}
		})
	}
}

// TestAttemptEndFenced: allot job show's END says fenced for an attempt
// the fence stopped, preempted for one a pass preempted.
func TestAttemptEndFenced(t *testing.T) {
	tests := []struct {
		name string
		a    api.Attempt
		want string
	}{
		{"fenced", api.Attempt{EndState: "preempted", Fenced: true, Reason: "preempted: stopped by the agent's fence"}, "fenced"},
		{"preempted", api.Attempt{EndState: "preempted", Reason: "preempted: ended by SIGTERM"}, "preempted"},
		{"agent stopped", api.Attempt{EndState: "preempted", AgentStopped: true, Reason: "stopped for a checkpoint: node n1's agent stopped"}, "agent-stopped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := attemptEnd(tt.a); got != tt.want {
				t.Fatalf("END %q, want %q", got, tt.want)
			}
		})
	}
}

// TestExplainAgentStopped: attempts their nodes' agents stopped as they
// shut down have their own heading; the preemptions do not list them.
func TestExplainAgentStopped(t *testing.T) {
	fixClock(t)
	displayZone = time.UTC
	at := time.Date(2026, 11, 29, 1, 22, 0, 0, time.UTC)
	const head = "\nStopped as their nodes' agents stopped:\n"
	tests := []struct {
		name    string
		stopped []api.Preemption
		want    string // "" for no heading
	}{
		{"none", nil, ""},
		{"one", []api.Preemption{{Task: 0, Attempt: 2, At: at, Why: "node n1's agent stopped; ended by SIGTERM"}},
			head + "  task 0 attempt 2 at 2026-11-29 01:22:00: node n1's agent stopped; ended by SIGTERM\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := fixtureExplanation()
			x.AgentStopped = tt.stopped
			var b bytes.Buffer
			if err := printExplanation(&b, x); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if got := strings.Contains(out, head); got != (tt.want != "") || !strings.Contains(out, tt.want) {
				t.Errorf("output, want %q:\n%s", tt.want, out)
			}
			if pre, _, _ := strings.Cut(out[strings.Index(out, "Preempted:"):], "\n\n"); strings.Contains(pre, "agent stopped") {
				t.Errorf("the preemptions list the agent's stop:\n%s", out)
			}
		})
	}
}
