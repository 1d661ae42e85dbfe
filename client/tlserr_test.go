package client

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testCA is a private CA that signs test masters' certificates.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	file string // its certificate as PEM, for HTTPClient
}

func newTestCA(t *testing.T) testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return testCA{cert: cert, key: key, file: file}
}

// master starts an HTTPS master whose certificate the CA signed for ips
// and names, valid until notAfter; every request gets an empty job list.
func (ca testCA) master(t *testing.T, ips []net.IP, names []string, notAfter time.Time) *httptest.Server {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "master"},
		NotBefore: notAfter.Add(-2 * time.Hour), NotAfter: notAfter,
		IPAddresses: ips, DNSNames: names,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("[]"))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// TestTLSErrors: each failure to talk TLS with a master says what to do
// about it, and none tells to try another address for a certificate
// that another address would not make trusted (trial 2026-11-29c C2).
func TestTLSErrors(t *testing.T) {
	ca := newTestCA(t)
	loopback := []net.IP{net.IPv4(127, 0, 0, 1)}
	good := ca.master(t, loopback, nil, time.Now().Add(time.Hour))
	expired := ca.master(t, loopback, nil, time.Now().Add(-time.Hour))
	named := ca.master(t, nil, []string{"master.example"}, time.Now().Add(time.Hour))
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	t.Cleanup(plain.Close)
	host := func(s *httptest.Server) string { return strings.TrimPrefix(s.URL, "https://") }
	tests := []struct {
		name   string
		addr   string
		ca     string // the CA file the client trusts; "" for the system's
		want   string
		isCert bool // CertError
	}{
		{name: "unknown authority", addr: good.URL, want: "signed by an unknown authority: give the master's CA certificate (a PEM file) with --ca FILE or $ALLOT_CA", isCert: true},
		{name: "hostname mismatch", addr: named.URL, ca: ca.file,
			want: "the master's certificate is valid for master.example, not 127.0.0.1: give the master's address with one of those names", isCert: true},
		{name: "expired", addr: expired.URL, ca: ca.file, want: "has expired or is not valid yet: check this machine's clock", isCert: true},
		{name: "host:port of an HTTPS master", addr: host(good), ca: ca.file,
			want: "master: 400 Bad Request: Client sent an HTTP request to an HTTPS server: the master serves HTTPS: use https://" + host(good) + " (with --ca FILE"},
		{name: "https:// of a plain HTTP master", addr: strings.Replace(plain.URL, "http://", "https://", 1),
			want: "the master serves plain HTTP: use an http:// address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc, err := HTTPClient(tt.ca)
			if err != nil {
				t.Fatal(err)
			}
			c, err := New(tt.addr, hc)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Jobs(context.Background(), JobFilter{})
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "another address") {
				t.Fatalf("error %v\nwant it to contain %q, and not to suggest another address", err, tt.want)
			}
			t.Log(err)
			if CertError(err) != tt.isCert {
				t.Errorf("CertError = %v, want %v", !tt.isCert, tt.isCert)
			}
		})
	}
	t.Run("trusted", func(t *testing.T) {
		hc, err := HTTPClient(ca.file)
		if err != nil {
			t.Fatal(err)
		}
		c, err := New(good.URL, hc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Jobs(context.Background(), JobFilter{}); err != nil {
			t.Fatalf("with the CA: %v", err)
		}
	})
}

// TestHTTPSAnswerOnlyRewordsThatAnswer: another 400 keeps its message.
func TestHTTPSAnswerOnlyRewordsThatAnswer(t *testing.T) {
	c, err := New("127.0.0.1:1", nil)
	if err != nil {
		t.Fatal(err)
	}
	e := httpsAnswer(&Error{Status: http.StatusBadRequest, Message: "resources.slots: expected a count"}, c.tr.base)
	if e.Message != "resources.slots: expected a count" {
		t.Fatalf("message %q: want it unchanged", e.Message)
	}
}
