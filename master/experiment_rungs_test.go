package master

import (
	"strconv"
	"testing"
)

// TestExperimentRungJoins (trial r R8): the experiment view gives each
// trial the rungs it joined, with the rung's count and the decision, the
// rung lengths for the per-rung summary, and a note on the trial that
// went on only as the first to arrive.
func TestExperimentRungJoins(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 4)
	job := h.submit(ashaSpec) // rungs at steps 1, 3 and 9
	h.step()
	h.sync(a, a)
	metricReport(a, job, 0, 3, 5) // first at rungs 0 and 1
	metricReport(a, job, 1, 1, 9) // behind at rung 0: stopped
	metricReport(a, job, 2, 1, 1) // best at rung 0
	h.sync(a, a)
	m := h.metrics(job)
	if len(m.Rungs) != 1 || len(m.Rungs[0]) != 3 || m.Rungs[0][2] != 9 {
		t.Fatalf("rungs %v, want one bracket of 1, 3, 9", m.Rungs)
	}
	cases := []struct {
		name  string
		trial int
		joins string // rung:decision/count ...
		note  string
	}{
		{"first to arrive", 0, "0:promoted/1 1:promoted/1", "promoted at rungs 0-1 as the first to arrive"},
		{"stopped", 1, "0:stopped/2", "at rung 0, not in the top 1/3"},
		{"best of three", 2, "0:promoted/3", ""},
		{"no report", 3, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := m.Trials[c.trial]
			got := ""
			for i, j := range tr.RungJoins {
				if i > 0 {
					got += " "
				}
				got += strconv.Itoa(j.Rung) + ":" + j.Decision + "/" + strconv.Itoa(j.RungTrials)
			}
			if got != c.joins || tr.DecisionNote != c.note {
				t.Errorf("trial %d: joins %q note %q, want %q %q", c.trial, got, tr.DecisionNote, c.joins, c.note)
			}
		})
	}
}

// TestExperimentStoppedNote (trial 2026-11-29c C7): a trial that went on
// at rung 0 as the first to arrive and was stopped at rung 1 is noted
// with why it stopped, not with the earlier promotion.
func TestExperimentStoppedNote(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 4)
	job := h.submit(ashaSpec) // rungs at steps 1, 3 and 9
	h.step()
	h.sync(a, a)
	metricReport(a, job, 0, 1, 5) // first at rung 0: promoted
	metricReport(a, job, 1, 3, 1) // best at rung 0, first at rung 1
	metricReport(a, job, 0, 3, 9) // behind trial 1 at rung 1: stopped
	h.sync(a, a)
	m := h.metrics(job)
	for _, c := range []struct {
		name, decision, note string
		trial                int
	}{
		{"stopped at rung 1 after a first arrival", "stopped", "at rung 1, not in the top 1/3", 0},
		{"first at rung 1", "continue", "promoted at rung 1 as the first to arrive", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := m.Trials[c.trial]
			if tr.Decision != c.decision || tr.DecisionNote != c.note {
				t.Errorf("trial %d: %q %q, want %q %q", c.trial, tr.Decision, tr.DecisionNote, c.decision, c.note)
			}
		})
	}
}
