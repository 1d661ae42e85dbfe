package scenario

import (
	"strings"
	"testing"
)

// TestParseHolds: a job may be submitted held, and hold and release
// events name a job as a kill does; the file writes them back as read.
func TestParseHolds(t *testing.T) {
	src := jobs + `    held: true
  - {name: b, submit: 10, slots: 2, duration: 1h}
events:
  - {at: 1h, release: asha}
  - {at: 2h, hold: b, after_pass: true}
  - {at: 3h, release: b}
`
	s, err := Parse("holds.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Jobs[0].Held || s.Jobs[1].Held {
		t.Fatalf("held: %v, %v; want asha held, b not", s.Jobs[0].Held, s.Jobs[1].Held)
	}
	want := []struct {
		kind EventKind
		job  string
		at   int64
		pass bool
	}{{EventRelease, "asha", 3600, false}, {EventHold, "b", 7200, true}, {EventRelease, "b", 10800, false}}
	for i, w := range want {
		t.Run(string(w.kind)+" "+w.job, func(t *testing.T) {
			e := s.Events[i]
			if e.Kind != w.kind || e.Job != w.job || e.At != w.at || e.AfterPass != w.pass {
				t.Fatalf("event %d: %+v, want %s of %s at %d, after_pass %v", i, e, w.kind, w.job, w.at, w.pass)
			}
		})
	}
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"held: true", "release: asha", "hold: b"} {
		if !strings.Contains(string(out), line) {
			t.Errorf("written back without %q:\n%s", line, out)
		}
	}
	again, err := Parse("again.yaml", out)
	if err != nil || !again.Jobs[0].Held || len(again.Events) != 3 || again.Events[1].Kind != EventHold {
		t.Errorf("read back: %v, %+v", err, again)
	}
}

// TestParseHoldErrors: bad hold and release events and a bad held name
// the file's line and field.
func TestParseHoldErrors(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"hold of an unknown job", jobs + "events:\n  - {at: 1h, hold: ash}\n", 13, `events[0]: hold: unknown job "ash"; did you mean "asha"?`},
		{"release of an unknown job", jobs + "events:\n  - {at: 1h, release: nope}\n", 13, `events[0]: release: unknown job "nope"`},
		{"hold as a mapping", jobs + "events:\n  - at: 1h\n    hold: {job: asha}\n", 14, "events[0]: hold:"},
		{"hold and kill at once", jobs + "events:\n  - {at: 1h, kill: asha, hold: asha}\n", 13, "events[0]: hold: an event has one action, and this one already has kill"},
		{"held not a boolean", jobs + "    held: yes please\n", 12, `jobs[0] "asha": held:`},
	})
}
