package cli

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
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
	data, err := os.ReadFile(certFile)
	if err != nil {
		return ""
	}
	var certs []*x509.Certificate
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		if c, err := x509.ParseCertificate(block.Bytes); block.Type == "CERTIFICATE" && err == nil {
			certs = append(certs, c)
		}
	}
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
