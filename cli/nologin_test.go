package cli

import (
	"bytes"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/allot-sched/allot/client"
)

// TestNotLoggedIn: a command that reached nothing at the default address,
// used only because nothing named another master, says that the user is
// not logged in and how to be; any other address, or error, is left as
// it was (trial 2026-11-29e E11).
func TestNotLoggedIn(t *testing.T) {
	refused := &client.UnreachableError{Addr: DefaultMaster, Err: syscall.ECONNREFUSED}
	unauth := &client.Error{Status: 401, Message: "authentication required: send an API token as 'Authorization: Bearer TOKEN' (see allot login)"}
	saved := func(current string) credentials {
		return credentials{Current: current, Masters: map[string]masterAccount{
			"http://127.0.0.1:18410": {Token: "t1"}, "http://127.0.0.1:8080": {Token: "t2"}}}
	}
	const how = "log in with allot login --master URL --token-file FILE (or set ALLOT_MASTER and ALLOT_TOKEN)"
	for _, c := range []struct {
		name   string
		args   []string
		creds  *credentials // nil: no credentials file
		env    map[string]string
		err    error
		want   string
		wantAs bool // the error is still the client's
	}{
		{name: "never logged in", args: []string{"jobs"}, err: refused,
			want: "not logged in (no current allot login, no --master, no $ALLOT_MASTER), and nothing answers at the default address " +
				"http://127.0.0.1:8080 (connection refused); " + how, wantAs: true},
		{name: "logged out of the current master", args: []string{"whoami"}, creds: &credentials{Masters: saved("").Masters},
			err: refused, want: "not logged in (no current allot login", wantAs: true},
		{name: "a token but no master", args: []string{"jobs"}, env: map[string]string{TokenEnv: "tok"}, err: refused,
			want: "no master named (no --master, no $ALLOT_MASTER, no current allot login), and nothing answers at the default address " +
				"http://127.0.0.1:8080 (connection refused); set ALLOT_MASTER (or --master) to your master's URL", wantAs: true},
		{name: "logged in to the default address", args: []string{"jobs"}, creds: ptr(saved("http://127.0.0.1:8080")), err: refused,
			want: "cannot reach the master at http://127.0.0.1:8080 (set --master or ALLOT_MASTER to another address)"},
		{name: "--master", args: []string{"jobs", "--master", "127.0.0.1:8080"}, err: refused, want: "cannot reach the master"},
		{name: "$ALLOT_MASTER", args: []string{"jobs"}, env: map[string]string{MasterEnv: "127.0.0.1:8080"}, err: refused,
			want: "cannot reach the master"},
		{name: "another error", args: []string{"jobs"}, err: &client.Error{Status: 403, Message: "no role"}, want: "master: 403 Forbidden: no role"},
		// A 401 to a command that sent no token says so (trial 29f F7).
		{name: "401, no token sent", args: []string{"jobs", "--master", "127.0.0.1:18930"}, err: unauth,
			want: "not logged in to http://127.0.0.1:18930: allot login --master http://127.0.0.1:18930 --token-file FILE (or set ALLOT_TOKEN) (master: 401 Unauthorized)"},
		{name: "401, no token for $ALLOT_MASTER", args: []string{"jobs"}, env: map[string]string{MasterEnv: "127.0.0.1:18930"},
			creds: ptr(saved("http://127.0.0.1:18410")), err: unauth, want: "not logged in to http://127.0.0.1:18930:"},
		{name: "401 of $ALLOT_TOKEN", args: []string{"jobs", "--master", "127.0.0.1:18930"}, env: map[string]string{TokenEnv: "tok"},
			err: unauth, want: "master: 401 Unauthorized: authentication required"},
		{name: "401 of a saved login", args: []string{"jobs", "--master", "127.0.0.1:18410"}, creds: ptr(saved("")),
			err: unauth, want: "master: 401 Unauthorized: authentication required"},
		{name: "401 of --token-file", args: []string{"login", "--master", "127.0.0.1:18930", "--token-file", "x"},
			err: unauth, want: "master: 401 Unauthorized: authentication required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "credentials.json")
			t.Setenv(ConfigEnv, path)
			t.Setenv(MasterEnv, "")
			t.Setenv(TokenEnv, "")
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			if c.creds != nil {
				if err := c.creds.save(path); err != nil {
					t.Fatal(err)
				}
			}
			cmd, rest, err := New().Find(c.args)
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Fatal(err)
			}
			got := notLoggedIn(cmd, c.err)
			if !strings.Contains(got.Error(), c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if !errors.Is(got, c.err) && !errors.Is(got, syscall.ECONNREFUSED) {
				t.Errorf("%v no longer wraps %v", got, c.err)
			}
		})
	}
}

// TestNotLoggedInMain: the words reach the user through Main, when
// nothing listens at the default address here.
func TestNotLoggedInMain(t *testing.T) {
	if c, err := net.Dial("tcp", strings.TrimPrefix(DefaultMaster, "http://")); err == nil {
		c.Close()
		t.Skip("something listens at the default address " + DefaultMaster + " on this machine")
	}
	t.Setenv(ConfigEnv, filepath.Join(t.TempDir(), "credentials.json"))
	t.Setenv(MasterEnv, "")
	t.Setenv(TokenEnv, "")
	var out, errOut bytes.Buffer
	code := Main([]string{"whoami"}, &out, &errOut)
	want := "allot: not logged in (no current allot login, no --master, no $ALLOT_MASTER), and nothing answers at the default address http://127.0.0.1:8080"
	if code != ExitError || !strings.HasPrefix(errOut.String(), want) || !strings.Contains(errOut.String(), "allot login --master URL --token-file FILE") {
		t.Errorf("exit %d, stderr %q, want %d and %q", code, errOut.String(), ExitError, want)
	}
}
