package cli

import (
	"bytes"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestNotesFollowTheOutput (trial 2026-11-29a P4): with stdout and
// stderr on one stream (2>&1), what a command prints on stdout (a
// table, a token) comes whole, and its notes on stderr after it: never
// before it, amid it, or a note that points at a line to come.
func TestNotesFollowTheOutput(t *testing.T) {
	fixClock(t)
	member := &api.Whoami{User: "ana", Roles: map[string]string{"vision": "member"}}
	for _, tc := range []struct {
		name string
		who  *api.Whoami
		args []string
	}{
		{"token create", nil, []string{"token", "create", "--user", "ann"}},
		{"token create --join", nil, []string{"token", "create", "--join"}},
		{"jobs of a project without a role", member, []string{"jobs", "--project", "nlp"}},
		{"jobs of another user", member, []string{"jobs", "--user", "bo"}},
		{"history of a project without a role", member, []string{"history", "--project", "nlp"}},
		{"usage of another user", member, []string{"usage", "-u", "bo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeMaster(t)
			f.who = tc.who
			out, errOut, err := runAt(t, f, tc.args...)
			if err != nil || out == "" || errOut == "" {
				t.Fatalf("allot %v: %v\nstdout %q\nstderr %q: want both", tc.args, err, out, errOut)
			}
			var both bytes.Buffer
			root := New()
			root.SetOut(&both)
			root.SetErr(&both)
			root.SetArgs(append([]string{"--master", f.srv.URL}, tc.args...))
			if err := root.Execute(); err != nil {
				t.Fatal(err)
			}
			if got := both.String(); got != out+errOut {
				t.Errorf("2>&1:\n%s\nwant stdout whole, then stderr:\n%s%s", got, out, errOut)
			}
		})
	}
}
