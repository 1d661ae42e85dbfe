package cli

import (
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// loginCA is the CA file that the first admin's `allot login` needs
// against a master serving HTTPS with the certificate in certFile (its
// --tls-cert; "" for plain HTTP, which needs none): certFile itself, as
// an absolute path, as allot login saves it. A Go client (the CLI, the
// agents) trusts a certificate given as a CA as it is, so the file does
// for a self-signed certificate and for one a private CA signed that the
// file does not chain to its root. "" when the system's roots verify the
// file's chain (a public CA's certificate), or the file does not read as
// PEM certificates (the master checked it loads: CheckTLS).
func loginCA(certFile string) string {
	if certFile == "" {
		return ""
	}
	certs := readCerts(certFile)
	if len(certs) == 0 {
		return ""
	}
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	// No name to check: whether the address is one the certificate names
	// is the client's check, with its own hint (client.TLSHint).
	if _, err := certs[0].Verify(x509.VerifyOptions{Intermediates: inter}); err == nil {
		return ""
	}
	if abs, err := filepath.Abs(certFile); err == nil {
		return abs
	}
	return certFile
}

// readCerts is the PEM certificates in file, the leaf first; nil when the
// file does not read.
func readCerts(file string) []*x509.Certificate {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var certs []*x509.Certificate
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		if c, err := x509.ParseCertificate(block.Bytes); block.Type == "CERTIFICATE" && err == nil {
			certs = append(certs, c)
		}
	}
	return certs
}

// loginAddr is the address, host:port, that the first admin's `allot
// login` should name for a master listening on addr with the
// certificate in certFile: addr itself unless the certificate does not
// name its host (a master on 127.0.0.1 whose certificate names
// localhost, say), when a client would refuse it. Then it is a name the
// certificate gives, localhost first for a loopback address, so that the
// line the master prints works as it is (trial 2026-11-29d D7).
func loginAddr(certFile, addr string) string {
	host, port, err := net.SplitHostPort(addr)
	certs := readCerts(certFile)
	if err != nil || len(certs) == 0 || certs[0].VerifyHostname(host) == nil {
		return addr
	}
	names := certs[0].DNSNames
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() && slices.Contains(names, "localhost") {
		return net.JoinHostPort("localhost", port)
	}
	if len(names) > 0 && !strings.Contains(names[0], "*") {
		return net.JoinHostPort(names[0], port)
	}
	return addr
}
