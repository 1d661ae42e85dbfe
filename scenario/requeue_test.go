package scenario

import (
	"strings"
	"testing"
)

// TestParseRequeues: a requeue event names a job as a kill does, with
// hold: true to hold it too; the file writes them back as read.
func TestParseRequeues(t *testing.T) {
	src := jobs + `  - {name: b, submit: 10, slots: 2, duration: 1h}
events:
  - {at: 1h, requeue: asha}
  - {at: 2h, requeue: b, hold: true, after_pass: true}
  - {at: 3h, release: b}
`
	s, err := Parse("requeues.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind       EventKind
		job        string
		hold, pass bool
	}{{EventRequeue, "asha", false, false}, {EventRequeue, "b", true, true}, {EventRelease, "b", false, false}}
	for i, w := range want {
		t.Run(string(w.kind)+" "+w.job, func(t *testing.T) {
			e := s.Events[i]
			if e.Kind != w.kind || e.Job != w.job || e.Hold != w.hold || e.AfterPass != w.pass {
				t.Fatalf("event %d: %+v, want %s of %s, hold %v, after_pass %v", i, e, w.kind, w.job, w.hold, w.pass)
			}
		})
	}
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"requeue: asha", "requeue: b", "hold: true"} {
		if !strings.Contains(string(out), line) {
			t.Errorf("written back without %q:\n%s", line, out)
		}
	}
	again, err := Parse("again.yaml", out)
	if err != nil || len(again.Events) != 3 || !again.Events[1].Hold || again.Events[0].Hold {
		t.Errorf("read back: %v, %+v", err, again)
	}
}

// TestParseRequeueErrors: bad requeue events name the file's line and
// field.
func TestParseRequeueErrors(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"requeue of an unknown job", jobs + "events:\n  - {at: 1h, requeue: ash}\n", 13, `events[0]: requeue: unknown job "ash"; did you mean "asha"?`},
		{"hold not a boolean", jobs + "events:\n  - {at: 1h, requeue: asha, hold: asha}\n", 13, "events[0]: hold:"},
		{"requeue and kill at once", jobs + "events:\n  - {at: 1h, kill: asha, requeue: asha}\n", 13, "an event has one action"},
	})
}
