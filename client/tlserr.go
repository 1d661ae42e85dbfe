package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// CAHint is the fix for a master whose certificate is signed by a CA the
// machine does not trust. It names the --ca flag and $ALLOT_CA, which the
// CLI, allot agent and allot k8s-agent all take.
const CAHint = "give the master's CA certificate (a PEM file) with --ca FILE or $ALLOT_CA; " +
	"if one was given, it is not the CA that signed the master's certificate"

// httpsBody is the start of the body Go's HTTPS server answers a plain
// HTTP request with (a 400).
const httpsBody = "Client sent an HTTP request to an HTTPS server"

// CertError reports whether err is a failure to verify the master's
// certificate: unknown authority, a name the certificate does not cover,
// an expired one. Retrying the same request cannot pass until either
// side's certificates change.
func CertError(err error) bool {
	var (
		ua  x509.UnknownAuthorityError
		he  x509.HostnameError
		ci  x509.CertificateInvalidError
		cve *tls.CertificateVerificationError
	)
	return errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci) || errors.As(err, &cve)
}

// TLSHint says what to do about a failure to talk TLS with a master: a
// certificate it cannot verify (one hint per kind), or an https:// address
// of a master that serves plain HTTP. "" for any other error.
func TLSHint(err error) string {
	var (
		ua x509.UnknownAuthorityError
		he x509.HostnameError
		ci x509.CertificateInvalidError
	)
	switch {
	case errors.As(err, &ua):
		return "the master's certificate is signed by an unknown authority: " + CAHint
	case errors.As(err, &he):
		return hostnameHint(he)
	case errors.As(err, &ci) && ci.Reason == x509.Expired:
		return "the master's certificate has expired or is not valid yet: check this machine's clock, " +
			"else the master's operator must renew the certificate (allot master --tls-cert)"
	case CertError(err):
		return "the master's certificate failed verification: the master's operator must give it a certificate " +
			"for serving (allot master --tls-cert) that its CA (--ca FILE or $ALLOT_CA here) signed"
	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return "the master serves plain HTTP: use an http:// address, or start the master with --tls-cert and --tls-key"
	}
	return ""
}

// hostnameHint names the names the certificate covers, one of which the
// address must use.
func hostnameHint(he x509.HostnameError) string {
	var names []string
	if he.Certificate != nil {
		names = append(names, he.Certificate.DNSNames...)
		for _, ip := range he.Certificate.IPAddresses {
			names = append(names, ip.String())
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf("the master's certificate is not valid for %s (it names no host): the master's operator must "+
			"reissue it with %s among its subject alternative names", he.Host, he.Host)
	}
	return fmt.Sprintf("the master's certificate is valid for %s, not %s: give the master's address with one of those "+
		"names (--master or $ALLOT_MASTER), or have the certificate reissued to name %s",
		strings.Join(names, ", "), he.Host, he.Host)
}

// httpsAnswer rewords the 400 that an HTTPS master answers a plain HTTP
// request with, which says nothing of the fix, for the client of base.
func httpsAnswer(e *Error, base *url.URL) *Error {
	if e.Status != http.StatusBadRequest || base.Scheme != "http" || !strings.HasPrefix(e.Message, httpsBody) {
		return e
	}
	u := *base
	u.Scheme = "https"
	e.Message = fmt.Sprintf("%s: the master serves HTTPS: use %s (with --ca FILE or $ALLOT_CA if its CA is private)",
		httpsBody, u.String())
	return e
}
