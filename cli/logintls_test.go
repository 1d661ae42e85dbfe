package cli

import (
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// newTLSMaster starts an HTTPS master on a certificate of its own (a
// private CA, as far as the client knows) that answers whoami and token
// create, and writes that certificate to ca.pem in dir.
func newTLSMaster(t *testing.T, dir string) (srv *httptest.Server, caFile string) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/whoami", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, 200, api.Whoami{User: "root", Admin: true})
	})
	mux.HandleFunc("POST /api/v1/tokens", func(w http.ResponseWriter, r *http.Request) {
		var nt api.NewToken
		if err := json.NewDecoder(r.Body).Decode(&nt); err != nil {
			reply(w, 400, api.Error{Error: err.Error()})
			return
		}
		reply(w, 201, api.CreatedToken{Token: api.Token{ID: 9, Kind: nt.Kind, Subject: nt.User}, Secret: "allot_secret"})
	})
	srv = httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	caFile = filepath.Join(dir, "ca.pem")
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, caFile
}

// TestLoginTLS: allot login to a master on a private CA. Without the CA
// the error says to give it (not to try another address); a host:port
// given with a CA means https://; an http:// address of an HTTPS master
// is told to use https://. The CA saved with the login is an absolute
// path, so that later commands find it from any directory.
func TestLoginTLS(t *testing.T) {
	dir := t.TempDir()
	srv, caFile := newTLSMaster(t, dir)
	hostPort := strings.TrimPrefix(srv.URL, "https://")
	tests := []struct {
		name    string
		args    []string
		env     string // $ALLOT_CA
		want    string // in the output, or the error when wantErr
		wantErr bool
	}{
		{name: "no CA", args: []string{"--master", srv.URL}, wantErr: true,
			want: "give the master's CA certificate (a PEM file) with --ca FILE or $ALLOT_CA"},
		{name: "host:port with --ca is https", args: []string{"--master", hostPort, "--ca", "ca.pem"},
			want: "Logged in to " + srv.URL + " as root (admin)"},
		{name: "host:port with $ALLOT_CA is https", args: []string{"--master", hostPort}, env: "ca.pem",
			want: "Logged in to " + srv.URL + " as root (admin)"},
		{name: "http:// of an HTTPS master", args: []string{"--master", "http://" + hostPort, "--ca", "ca.pem"}, wantErr: true,
			want: "the master serves HTTPS: use " + srv.URL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(dir) // the CA is given relative to it
			t.Setenv(ConfigEnv, filepath.Join(t.TempDir(), "credentials.json"))
			t.Setenv(CAEnv, tt.env)
			out, _, err := run(t, append([]string{"login", "--token", "allot_u_root"}, tt.args...)...)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "another address") {
					t.Fatalf("allot login: %v\nwant an error with %q, not suggesting another address", err, tt.want)
				}
				return
			}
			if err != nil || !strings.Contains(out, tt.want) {
				t.Fatalf("allot login: %v\nstdout: %s\nwant %q", err, out, tt.want)
			}
			creds, _, err := loadCredentials()
			if err != nil {
				t.Fatal(err)
			}
			if got := creds.Masters[srv.URL].CA; got != caFile {
				t.Errorf("saved CA %q, want the absolute %q", got, caFile)
			}
		})
	}
}

// TestTokenHintCA: after a login with a CA, the command lines that token
// create prints for agents and users give the CA too, by the path the
// login saved; without a CA they give none (TestTokenHintNamesMaster).
func TestTokenHintCA(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a dir") // a path with a space is quoted
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	srv, caFile := newTLSMaster(t, dir)
	t.Setenv(ConfigEnv, filepath.Join(t.TempDir(), "credentials.json"))
	t.Setenv(CAEnv, "")
	t.Chdir(dir)
	if _, _, err := run(t, "login", "--master", srv.URL, "--ca", "ca.pem", "--token", "allot_u_root"); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // later commands find the CA by the login's path
	quoted := "'" + caFile + "'"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"join token", []string{"--join"}, "Start agents with: allot agent --master " + srv.URL + " --ca " + quoted + " --join-token-file FILE"},
		{"user token", []string{"--user", "ann"}, "The user logs in with: allot login --master " + srv.URL + " --ca " + quoted + " --token-file FILE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := run(t, append([]string{"token", "create"}, tt.args...)...)
			if err != nil || out != "allot_secret\n" || !strings.Contains(errOut, tt.want) {
				t.Fatalf("allot token create: %v\nstdout: %q\nstderr: %s\nwant %q", err, out, errOut, tt.want)
			}
		})
	}
}

// TestWithScheme: a bare host:port is https:// when a CA is given, else
// left to the client's rule (http://); a URL keeps its scheme.
func TestWithScheme(t *testing.T) {
	tests := []struct {
		name, addr, ca, want string
	}{
		{"host:port, no CA", "m:8443", "", "m:8443"},
		{"host:port, CA", "m:8443", "ca.pem", "https://m:8443"},
		{"http URL, CA", "http://m:8080", "ca.pem", "http://m:8080"},
		{"https URL, no CA", "https://m:8443", "", "https://m:8443"},
		{"empty", "", "ca.pem", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withScheme(tt.addr, tt.ca); got != tt.want {
				t.Errorf("withScheme(%q, %q) = %q, want %q", tt.addr, tt.ca, got, tt.want)
			}
		})
	}
}
