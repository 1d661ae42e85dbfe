package master

import (
	"strings"
	"testing"
	"time"
)

// TestHistoryScenarioEmptyWindow: an export whose window holds no
// submission says so in a note, telling a window nothing ran in from
// one whose jobs were all submitted before it; a window with a
// submission has no such note.
func TestHistoryScenarioEmptyWindow(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
	a := h.agent("n1", 1)
	t0 := h.clock.Now().Truncate(time.Second)
	h.clock.Advance(time.Hour)
	h.submit(jobSpec("long", 1, ""))
	h.step()
	h.sync(a, a)
	h.clock.Advance(3 * time.Hour)
	tests := []struct {
		name, q, note string // note "": none of the empty window's
	}{
		{"nothing submitted or ran", window(t0, t0.Add(30*time.Minute)), "no job was submitted or ran in the window, from "},
		{"a job ran, submitted before", window(t0.Add(2*time.Hour), t0.Add(3*time.Hour)),
			"no job was submitted in the window, from " + t0.Add(2*time.Hour).UTC().Format(time.RFC3339) + " to " +
				t0.Add(3*time.Hour).UTC().Format(time.RFC3339) + ": the export holds the jobs submitted in it, and the 1 job that ran in it was submitted before it"},
		{"a job submitted", window(t0, h.clock.Now()), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, body := exportScenario(t, h, tt.q)
			got := strings.Contains(body, "# Note: no job was submitted")
			switch {
			case tt.note == "" && (got || len(sc.Jobs) != 1):
				t.Errorf("want the job and no empty-window note:\n%s", body)
			case tt.note != "" && (!strings.Contains(body, "# Note: "+tt.note) || len(sc.Jobs) != 0):
				t.Errorf("want no job and the note %q:\n%s", tt.note, body)
			}
		})
	}
}

// TestHistoryWindowMessages: a window the master refuses is named by the
// parameters given: a since in the future with no until is compared with
// now, not with an until the request never gave.
func TestHistoryWindowMessages(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
	tests := []struct {
		name, q, want string
	}{
		{"future since", "?since=2999-01-01T00:00:00Z", "since 2999-01-01T00:00:00Z is not in the past (now is "},
		{"since after until", "?since=1h&until=2h", "is not before until "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, path := range []string{"/api/v1/history/scenario", "/api/v1/usage"} {
				code, body, _ := h.raw("GET", path+tt.q, "")
				if code != 400 || !strings.Contains(body, tt.want) || !strings.Contains(body, `"since"`) {
					t.Errorf("%s%s: %d %s, want 400 on since saying %q", path, tt.q, code, body, tt.want)
				}
			}
		})
	}
}
