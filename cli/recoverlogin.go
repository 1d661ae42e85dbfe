package cli

import (
	"fmt"
	"net"
	"os"
)

// checkRecoverServe refuses, as usage errors, a --listen that is no
// HOST:PORT and a --tls-cert that holds no PEM certificate: the login
// line made from them would fail.
func checkRecoverServe(f recoverFlags) error {
	if f.listen != "" {
		if _, _, err := net.SplitHostPort(f.listen); err != nil {
			return usageErrorf("--listen %s: expected the master's HOST:PORT, e.g. 127.0.0.1:8080: %w", f.listen, err)
		}
	}
	if f.tlsCert != "" {
		// A file that is not there is said so, not "no PEM certificate"
		// (trial 2026-11-29f F4).
		if _, err := os.Stat(f.tlsCert); err != nil {
			return usageErrorf("--tls-cert %s: no such file: give the master's --tls-cert: %w", f.tlsCert, err)
		}
	}
	if f.tlsCert != "" && len(readCerts(f.tlsCert)) == 0 {
		return usageErrorf("--tls-cert %s: no PEM certificate read from it: give the master's --tls-cert", f.tlsCert)
	}
	if f.tlsCert != "" && f.listen == "" {
		return usageErrorf("--tls-cert: give the master's --listen too, for the login line's address")
	}
	return nil
}

// recoverLogin is recover-admin's last line: the allot login to run once
// the master is started again with the token file at path, made as the
// master makes the first admin's (runMaster): its --listen, on this host
// when it listens on every interface (recover-admin runs on the
// master's host), an address its --tls-cert covers (loginAddr) and
// --ca where the login needs it (loginCA). Without --listen it cannot
// know the address, nor whether the master serves HTTPS, and says so
// rather than print a line that would fail (it printed "--master URL",
// with no --ca where an HTTPS master needs one).
func recoverLogin(f recoverFlags, path string) string {
	if f.listen == "" {
		return fmt.Sprintf("Start the master, then log in with allot login --token-file %s (the address, and --ca for an HTTPS master "+
			"whose certificate clients do not trust, are not known here: give recover-admin the master's --listen and --tls-cert "+
			"for the whole line), and delete the file.", shellQuote(path))
	}
	addr := f.listen
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
	}
	url := "http://" + addr
	if f.tlsCert != "" {
		url = "https://" + loginAddr(f.tlsCert, addr)
	}
	return "Start the master, then: allot login --master " + url + caArg(loginCA(f.tlsCert)) +
		" --token-file " + shellQuote(path) + ", and delete the file."
}
