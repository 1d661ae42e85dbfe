package web

import (
	"strings"
	"testing"
)

// TestJobDetailFencedAttempt: an attempt its agent's fence stopped while
// the master was unreachable ends "preempted" in the API (fenced) but
// reads fenced, as allot job show's END: no pass preempted it (trial
// 2026-11-29a A8).
func TestJobDetailFencedAttempt(t *testing.T) {
	f := newFixture()
	f.mu.Lock()
	a := &f.jobs[0].TaskList[1].Attempts[0]
	a.Reason = "preempted: stopped by the agent's fence: no reply from the master for 21s"
	a.Fenced = true
	f.mu.Unlock()
	p := openPage(t, f, "#/jobs/1", wide)
	row := p.waitText(`#attempts tbody[data-task="1"] tr[data-attempt="1"]`, "fenced")
	if !strings.Contains(row, "\tfenced\t") || strings.Contains(row, "\tpreempted\t") {
		t.Errorf("fenced attempt's row = %q, want its end fenced, not preempted", row)
	}
}

// TestJobDetailAgentStoppedAttempt: an attempt its node's agent stopped
// as it shut down ends "preempted" in the API (agent_stopped) but reads
// agent-stopped, as allot job show's END: no pass preempted it.
func TestJobDetailAgentStoppedAttempt(t *testing.T) {
	f := newFixture()
	f.mu.Lock()
	a := &f.jobs[0].TaskList[1].Attempts[0]
	a.Reason = "stopped for a checkpoint: node n1's agent stopped"
	a.AgentStopped = true
	f.mu.Unlock()
	p := openPage(t, f, "#/jobs/1", wide)
	row := p.waitText(`#attempts tbody[data-task="1"] tr[data-attempt="1"]`, "agent-stopped")
	if !strings.Contains(row, "\tagent-stopped\t") || strings.Contains(row, "\tpreempted\t") {
		t.Errorf("agent-stopped attempt's row = %q, want its end agent-stopped, not preempted", row)
	}
}
