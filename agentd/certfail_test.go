package agentd

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestCertFailureEndsFirstRegistration: an agent that cannot verify the
// master's certificate on its first registration exits at once with what
// to do, rather than retrying for ever (trial 2026-11-29c C2): no retry
// passes while its --ca and the master's certificate stay as they are.
func TestCertFailureEndsFirstRegistration(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1) // a request that got through the handshake
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes the agent breaks off
	srv.StartTLS()
	t.Cleanup(srv.Close)
	tests := []struct {
		name   string
		master string
		client *http.Client
		want   string
	}{
		{"unknown authority", srv.URL, nil,
			"the master's certificate is signed by an unknown authority: give the master's CA certificate (a PEM file) with --ca FILE or $ALLOT_CA"},
		// httptest's certificate names example.com and the loopback IPs.
		{"hostname mismatch", strings.Replace(srv.URL, "127.0.0.1", "localhost", 1), srv.Client(),
			"the master's certificate is valid for example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(t, &fakeMaster{srv: srv}, t.TempDir())
			cfg.Master, cfg.Client, cfg.JoinToken = tt.master, tt.client, "allot_j_join"
			a, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err = a.Run(ctx)
			if err == nil || !strings.Contains(err.Error(), "cannot register node node-1 with the master at "+tt.master) ||
				!strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Run = %v\nwant it to end at once with %q", err, tt.want)
			}
			if ctx.Err() != nil {
				t.Fatal("Run ended by the test's deadline, not by the certificate failure")
			}
		})
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests got past the handshake, want none", n)
	}
}

// TestCertFailureFatal: which registration failures end the agent. A
// node that registered before, or runs tasks, keeps retrying a
// certificate failure: the master's operator may renew or reissue the
// certificate, and exiting would leave its tasks unreported.
func TestCertFailureFatal(t *testing.T) {
	certErr := &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}
	tests := []struct {
		name       string
		registered bool // the node registered before in this process
		err        error
		fatal      bool
	}{
		{"certificate, first registration", false, certErr, true},
		{"certificate, registered before", true, certErr, false},
		{"refused join, first registration", false, &statusError{path: "/agents/register", status: 422, msg: "too many GPUs"}, true},
		{"unreachable, first registration", false, errors.New("connection refused"), false},
		{"no error", false, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &Agent{cfg: Config{Name: "n1", Master: "https://m:8443"}}
			if tt.registered {
				a.gen = 1
			}
			err := (&registrar{a: a}).fatal(tt.err)
			if (err != nil) != tt.fatal {
				t.Fatalf("fatal(%v) = %v, want fatal %v", tt.err, err, tt.fatal)
			}
		})
	}
}

// TestCertFailureLoggedWithHint: an agent that keeps retrying a
// certificate failure, in its registration or its syncs, logs it once
// at error level with what to do, then at debug level.
func TestCertFailureLoggedWithHint(t *testing.T) {
	var buf bytes.Buffer
	a := &Agent{log: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	reg := &registrar{a: a}
	err := &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}
	tests := []struct {
		name   string
		log    func()
		logged bool
	}{
		{"registration, first", func() { reg.logFailure(context.Background(), err) }, true},
		{"registration, again", func() { reg.logFailure(context.Background(), err) }, false},
		{"sync, first failure", func() { a.logFailure(context.Background(), 1, err) }, true},
		{"sync, second failure", func() { a.logFailure(context.Background(), 2, err) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf.Reset()
			tt.log()
			got := buf.String()
			if logged := got != ""; logged != tt.logged {
				t.Fatalf("logged %v, want %v: %q", logged, tt.logged, got)
			}
			if tt.logged && (!strings.Contains(got, "level=ERROR") || !strings.Contains(got, "--ca FILE or $ALLOT_CA")) {
				t.Fatalf("log %q: want an error with the hint", got)
			}
		})
	}
}
