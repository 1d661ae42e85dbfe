package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestMasterAddrAPIPath: an address ending in /api/v1, as allot dev prints
// the API, names the master's root, wherever the address comes from: the
// login saved for the root is found, and requests do not repeat the path.
func TestMasterAddrAPIPath(t *testing.T) {
	const token = "allot_u_api"
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		switch {
		case r.Header.Get("Authorization") != "Bearer "+token:
			reply(w, http.StatusUnauthorized, api.Error{Error: "no valid token"})
		case r.URL.Path != "/api/v1/pools":
			reply(w, http.StatusNotFound, api.Error{Error: "no endpoint " + r.Method + " " + r.URL.Path})
		default:
			reply(w, http.StatusOK, []api.Pool{{Name: "research"}})
		}
	}))
	t.Cleanup(srv.Close)
	// creds writes a credentials file whose login and current master are
	// spelt as key.
	creds := func(t *testing.T, key string) {
		path := filepath.Join(t.TempDir(), "credentials.json")
		data, err := json.Marshal(credentials{Current: key, Masters: map[string]masterAccount{key: {Token: token}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv(ConfigEnv, path)
	}
	tests := []struct {
		name  string
		login string // the address the saved login is keyed by
		env   string // ALLOT_MASTER
		flag  string // --master
	}{
		{name: "flag", login: srv.URL, flag: srv.URL + "/api/v1"},
		{name: "flag with slash", login: srv.URL, flag: srv.URL + "/api/v1/"},
		{name: "flag host:port", login: srv.URL, flag: strings.TrimPrefix(srv.URL, "http://") + "/api/v1"},
		{name: "env", login: srv.URL, env: srv.URL + "/api/v1"},
		{name: "login's address", login: srv.URL + "/api/v1"},
		{name: "login's address, flag at root", login: srv.URL + "/api/v1", flag: srv.URL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			creds(t, tt.login)
			t.Setenv(MasterEnv, tt.env)
			paths = nil
			args := []string{"pools", "-o", "json"}
			if tt.flag != "" {
				args = append([]string{"--master", tt.flag}, args...)
			}
			out, _, err := run(t, args...)
			if err != nil || !strings.Contains(out, `"research"`) {
				t.Errorf("allot %s = %q, %v (requests %v)", strings.Join(args, " "), out, err, paths)
			}
		})
	}
}

// TestLoadCredentialsNormalises: logins saved under an address with the
// API's path are found under the master's root; one saved at the root
// wins over one that maps to it.
func TestLoadCredentialsNormalises(t *testing.T) {
	tests := []struct {
		name        string
		file        credentials
		wantCurrent string
		want        map[string]masterAccount
	}{
		{
			name:        "api path",
			file:        credentials{Current: "http://h:1/api/v1/", Masters: map[string]masterAccount{"http://h:1/api/v1": {Token: "a"}}},
			wantCurrent: "http://h:1",
			want:        map[string]masterAccount{"http://h:1": {Token: "a"}},
		},
		{
			name:        "root wins",
			file:        credentials{Current: "http://h:1", Masters: map[string]masterAccount{"http://h:1/api/v1": {Token: "old"}, "http://h:1": {Token: "new"}}},
			wantCurrent: "http://h:1",
			want:        map[string]masterAccount{"http://h:1": {Token: "new"}},
		},
		{
			name:        "others kept",
			file:        credentials{Masters: map[string]masterAccount{"h:2": {Token: "b"}, "not a url": {Token: "c"}}},
			wantCurrent: "",
			want:        map[string]masterAccount{"http://h:2": {Token: "b"}, "not a url": {Token: "c"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "credentials.json")
			t.Setenv(ConfigEnv, path)
			if err := tt.file.save(path); err != nil {
				t.Fatal(err)
			}
			c, _, err := loadCredentials()
			if err != nil {
				t.Fatal(err)
			}
			if c.Current != tt.wantCurrent || len(c.Masters) != len(tt.want) {
				t.Fatalf("loaded %+v, want current %q and %v", c, tt.wantCurrent, tt.want)
			}
			for k, v := range tt.want {
				if c.Masters[k] != v {
					t.Errorf("masters[%q] = %+v, want %+v", k, c.Masters[k], v)
				}
			}
		})
	}
}

// TestTokenHintNamesMaster: the hint after a new token names the master
// this command used, in the form --master takes it, also when it was
// given with (a part of) the API's path. The hint goes to stderr and the
// secret alone to stdout, so that "allot token create ... > FILE" makes
// a file --token-file and --join-token-file read.
func TestTokenHintNamesMaster(t *testing.T) {
	f := newFakeMaster(t)
	tests := []struct {
		name   string
		master string
		args   []string
		want   string
	}{
		{"join token", f.srv.URL, []string{"--join"}, "Start agents with: allot agent --master " + f.srv.URL + " --join-token-file FILE"},
		{"join token, master given with /api", f.srv.URL + "/api", []string{"--join"}, "allot agent --master " + f.srv.URL + " --join-token-file"},
		{"join token, master given with /api/", f.srv.URL + "/api/", []string{"--join"}, "allot agent --master " + f.srv.URL + " --join-token-file"},
		{"user token", f.srv.URL + "/api/v1", []string{"--user", "ann"}, "The user logs in with: allot login --master " + f.srv.URL + " --token-file FILE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := run(t, append([]string{"token", "create", "--master", tt.master}, tt.args...)...)
			if err != nil || !strings.Contains(errOut, tt.want) || out != "allot_secret\n" {
				t.Errorf("allot token create: %v\nstdout: %q\nstderr: %s\nwant the secret alone on stdout and %q on stderr", err, out, errOut, tt.want)
			}
		})
	}
}

// TestTokenHint: a token the master does not know gets a hint saying
// where it came from (the login saved for the address, or $ALLOT_TOKEN),
// since a saved login may be another master's; other refusals get none.
func TestTokenHint(t *testing.T) {
	msg := "invalid API token: the token is not known"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			reply(w, http.StatusUnauthorized, api.Error{Error: "authentication required: send an API token"})
			return
		}
		if r.Header.Get("Authorization") == "Bearer allot_u_off" {
			reply(w, http.StatusUnauthorized, api.Error{Error: `invalid API token: user "ann" is disabled; its tokens work again once an admin enables it (allot user enable ann)`})
			return
		}
		reply(w, http.StatusUnauthorized, api.Error{Error: msg})
	}))
	t.Cleanup(srv.Close)
	tests := []struct {
		name         string
		saved, token string
		want         string // "" for no hint
		// login: the command is allot login with this flag and value
		// (a file name is made into a file holding the bad token), not
		// allot pools; its hint must not say to log in again.
		login []string
	}{
		{"saved login", "allot_u_old", "", "The token is the login saved for " + srv.URL + " in ", nil},
		// Trial 2026-11-29d D1: the token came from login's flag, not
		// from the saved login, whatever $ALLOT_TOKEN says.
		{"login --token-file", "allot_u_old", "allot_u_env", "The token came from --token-file ", []string{"--token-file", "bad.tok"}},
		{"login --token", "allot_u_old", "", "The token came from --token, which " + srv.URL + " refused", []string{"--token", "allot_u_bogus"}},
		{"ALLOT_TOKEN", "", "allot_u_env", "The token came from $ALLOT_TOKEN, which " + srv.URL + " refused.", nil},
		{"no token", "", "", "", nil},
		// Logging in again would not help a disabled user.
		{"disabled user", "allot_u_off", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "credentials.json")
			c := credentials{Masters: map[string]masterAccount{}}
			if tt.saved != "" {
				c.Masters[srv.URL] = masterAccount{Token: tt.saved}
			}
			data, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv(ConfigEnv, path)
			t.Setenv(TokenEnv, tt.token)
			args := []string{"--master", srv.URL, "pools"}
			if tt.login != nil {
				flag, value := tt.login[0], tt.login[1]
				if flag == "--token-file" {
					value = filepath.Join(t.TempDir(), value)
					if err := os.WriteFile(value, []byte("allot_bogus_token_123\n"), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				args = []string{"--master", srv.URL, "login", flag, value}
			}
			var out, errOut strings.Builder
			if code := Main(args, &out, &errOut); code != ExitError {
				t.Fatalf("exit %d, want %d; stderr %q", code, ExitError, errOut.String())
			}
			got := errOut.String()
			if tt.name == "no token" && !strings.HasPrefix(got, "allot: not logged in to "+srv.URL+": allot login --master "+srv.URL) {
				t.Errorf("stderr %q: want the not-logged-in words of a 401 to no token (trial 29f F7)", got)
			}
			if tt.want == "" && strings.Contains(got, "The token") {
				t.Errorf("stderr %q: want no hint", got)
			}
			if tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("stderr %q: want the hint %q", got, tt.want)
			}
			if tt.want != "" && tt.saved != "" && tt.login == nil && !strings.Contains(got, "allot login --master "+srv.URL) {
				t.Errorf("stderr %q: want the command that logs in again", got)
			}
			if tt.login != nil && (strings.Contains(got, "log in again") || strings.Contains(got, "login saved for")) {
				t.Errorf("stderr %q: allot login's own token was refused; want no advice to log in again, no word of the saved login", got)
			}
		})
	}
}

// TestBadMasterAddr: an address that is not a master's URL is a usage
// error (exit 2) wherever it comes from, and the message says where: the
// flag, the environment or the saved login, which the command line does
// not show.
func TestBadMasterAddr(t *testing.T) {
	tests := []struct {
		name  string
		flag  string // --master
		env   string // ALLOT_MASTER
		login string // the credentials file's current master
		want  string
	}{
		{name: "flag", flag: "ftp://x", want: `allot: --master: master address "ftp://x": expected a URL such as http://127.0.0.1:8080 or host:port`},
		{name: "flag wins over a good env", flag: "ftp://x", env: "127.0.0.1:1", want: `allot: --master: master address "ftp://x"`},
		{name: "env", env: "ftp://x", want: `allot: $ALLOT_MASTER: master address "ftp://x": expected`},
		{name: "env without a host", env: "http://", want: `allot: $ALLOT_MASTER: master address "http://": expected`},
		{name: "login", login: "ftp://x", want: `(allot login): master address "ftp://x": expected`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "credentials.json")
			if tt.login != "" {
				data, err := json.Marshal(credentials{Current: tt.login, Masters: map[string]masterAccount{tt.login: {Token: "allot_u_x"}}})
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv(ConfigEnv, path)
			t.Setenv(MasterEnv, tt.env)
			args := []string{"jobs"}
			if tt.flag != "" {
				args = append([]string{"--master", tt.flag}, args...)
			}
			var out, errOut strings.Builder
			code := Main(args, &out, &errOut)
			if code != ExitUsage || !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("allot %s: exit %d, stderr %q; want exit %d and %q", strings.Join(args, " "), code, errOut.String(), ExitUsage, tt.want)
			}
			if tt.login != "" && !strings.Contains(errOut.String(), path) {
				t.Errorf("the message does not name the credentials file %s: %q", path, errOut.String())
			}
		})
	}
}
