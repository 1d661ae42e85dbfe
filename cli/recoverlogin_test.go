package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecoverAdminLogin: recover-admin's login line carries, from the
// master's --listen and --tls-cert, an address the certificate covers
// and --ca where the login needs it, as the first admin's does; without
// --listen it says it cannot know them rather than print a line that
// fails; flags it cannot use are refused.
func TestRecoverAdminLogin(t *testing.T) {
	dir := t.TempDir()
	cert := selfSigned(t, dir, []string{"localhost"}, nil)
	abs, err := filepath.Abs(cert)
	if err != nil {
		t.Fatal(err)
	}
	notPEM := filepath.Join(dir, "key.txt")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		args    []string
		want    string // in the output, TOKEN for the token file's path
		wantErr string
	}{
		{name: "nothing known", want: "Start the master, then log in with allot login --token-file TOKEN (the address, and --ca"},
		{name: "plain HTTP", args: []string{"--listen", "127.0.0.1:8080"},
			want: "Start the master, then: allot login --master http://127.0.0.1:8080 --token-file TOKEN, and delete the file."},
		{name: "HTTPS, every interface, self-signed for localhost", args: []string{"--listen", ":8443", "--tls-cert", cert},
			want: "allot login --master https://localhost:8443 --ca " + shellQuote(abs) + " --token-file TOKEN, and delete the file."},
		{name: "a certificate without the address", args: []string{"--tls-cert", cert}, wantErr: "give the master's --listen too"},
		{name: "no such file", args: []string{"--listen", ":8443", "--tls-cert", filepath.Join(dir, "nosuch.pem")},
			wantErr: "nosuch.pem: no such file: give the master's --tls-cert"},
		{name: "no certificate", args: []string{"--listen", ":8443", "--tls-cert", notPEM}, wantErr: "no PEM certificate read"},
		{name: "no port", args: []string{"--listen", "gpu-master"}, wantErr: "expected the master's HOST:PORT"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := t.TempDir()
			firstStart(t, data)
			out, _, err := run(t, append([]string{"master", "recover-admin", "--data", data}, c.args...)...)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want %q", err, c.wantErr)
				}
				return
			}
			want := strings.ReplaceAll(c.want, "TOKEN", shellQuote(filepath.Join(data, AdminTokenFile)))
			if err != nil || !strings.Contains(out, want) {
				t.Fatalf("out %q, err %v; want %q", out, err, want)
			}
			if strings.Contains(out, "--master URL") {
				t.Fatalf("out %q: a login line that fails as printed", out)
			}
		})
	}
}
