package cli

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/store"
)

// privateCert makes a private CA and a certificate for 127.0.0.1 that it
// signed, and writes the latter alone (no chain) to dir/cert.pem, as a
// master's --tls-cert: the file and the certificate to serve.
func privateCert(t *testing.T, dir string) (string, tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "private CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "master"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "cert.pem")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return file, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestFirstAdminLoginCA (trial leftover): the first start of a master
// serving HTTPS logs the admin's login with --ca and the absolute path of
// its certificate file, as allot token create prints it, and a client
// given that file trusts the master (here a certificate of a private CA,
// the file without the CA); over plain HTTP the line has no --ca.
func TestFirstAdminLoginCA(t *testing.T) {
	dir := t.TempDir()
	certFile, cert := privateCert(t, dir)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	t.Chdir(dir) // a relative --tls-cert, as an operator gives it
	for _, tc := range []struct {
		name, tlsCert, url, want string
	}{
		{"https", "cert.pem", srv.URL, "allot login --master " + srv.URL + " --ca " + certFile + " --token-file "},
		{"plain http", "", "http://m:8080", "allot login --master http://m:8080 --token-file "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			st, err := store.Open(context.Background(), "", data)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var log bytes.Buffer
			ca := loginCA(tc.tlsCert)
			if err := bootstrapAdmin(context.Background(), st, data, "", tc.url, ca, slog.New(slog.NewTextHandler(&log, nil))); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(log.String(), tc.want+filepath.Join(data, AdminTokenFile)) {
				t.Fatalf("log %q, want %q", log.String(), tc.want)
			}
			if ca == "" {
				return
			}
			hc, err := client.HTTPClient(ca)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := hc.Get(srv.URL)
			if err != nil {
				t.Fatalf("a client given --ca %s: %v", ca, err)
			}
			resp.Body.Close()
		})
	}
	if got := loginCA(filepath.Join(dir, "nosuch.pem")); got != "" {
		t.Errorf("loginCA of no file: %q, want none", got)
	}
}

// selfSigned writes a self-signed certificate naming dns and ips to a
// file in dir and returns its path.
func selfSigned(t *testing.T, dir string, dns []string, ips []net.IP) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "master"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: dns, IPAddresses: ips,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.CreateTemp(dir, "cert*.pem")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pem.Encode(f, &pem.Block{Type: "CERTIFICATE", Bytes: der}); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// TestLoginAddr (trial 2026-11-29d D7): the first admin's login line
// names an address the master's certificate covers, so that it works as
// printed.
func TestLoginAddr(t *testing.T) {
	dir := t.TempDir()
	local := selfSigned(t, dir, []string{"localhost"}, nil)
	named := selfSigned(t, dir, []string{"gpu-master.lab", "localhost"}, nil)
	withIP := selfSigned(t, dir, []string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)})
	wild := selfSigned(t, dir, []string{"*.lab"}, nil)
	for _, tc := range []struct{ name, cert, addr, want string }{
		{"loopback IP, certificate for localhost", local, "127.0.0.1:8443", "localhost:8443"},
		{"loopback IP prefers localhost", named, "127.0.0.1:8443", "localhost:8443"},
		{"other IP takes the first name", named, "10.0.0.5:8443", "gpu-master.lab:8443"},
		{"certificate names the IP", withIP, "127.0.0.1:8443", "127.0.0.1:8443"},
		{"certificate names the host", named, "gpu-master.lab:8443", "gpu-master.lab:8443"},
		{"only a wildcard: keep the address", wild, "10.0.0.5:8443", "10.0.0.5:8443"},
		{"no file: keep the address", filepath.Join(dir, "nosuch.pem"), "127.0.0.1:8443", "127.0.0.1:8443"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := loginAddr(tc.cert, tc.addr); got != tc.want {
				t.Errorf("loginAddr = %q, want %q", got, tc.want)
			}
		})
	}
}
