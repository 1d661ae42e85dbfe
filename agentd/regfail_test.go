package agentd

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// TestRegisterFailureLoggedOnce: a registration refused again and again
// for one reason is logged once at error level, then at debug level,
// even when the master's text carries an age that changes at every try
// (a second agent under a name another agent holds); a new reason is
// logged again. An agent without tasks does not claim that they keep
// running.
func TestRegisterFailureLoggedOnce(t *testing.T) {
	var buf bytes.Buffer
	a := &Agent{log: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	held := func(age string) error {
		return &statusError{path: "/agents/register", status: http.StatusConflict,
			msg: `node "gpu-a" is held by another agent, last seen ` + age + ` ago: a join token cannot take over a node until its lease of 15s runs out`}
	}
	other := &statusError{path: "/agents/register", status: http.StatusUnprocessableEntity, msg: "too many GPUs"}
	cases := []struct {
		name   string
		err    error
		logged bool
	}{
		{"first refusal", held("2s"), true},
		{"same refusal, another age", held("7s"), false},
		{"same refusal, a two-digit age", held("12s"), false},
		{"another reason", other, true},
		{"the first reason again", held("3s"), true},
	}
	reg := &registrar{a: a}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			buf.Reset()
			reg.logFailure(context.Background(), tc.err)
			got := buf.String()
			if logged := got != ""; logged != tc.logged {
				t.Fatalf("logged %v, want %v: %q", logged, tc.logged, got)
			}
			if tc.logged && (!strings.Contains(got, "registering with the master failed; retrying") || strings.Contains(got, "tasks keep running")) {
				t.Fatalf("log %q: want the plain retry message for an agent without tasks", got)
			}
		})
	}
}
