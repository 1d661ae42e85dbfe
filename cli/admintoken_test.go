package cli

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sched/allot/store"
)

// TestAdminTokenFileReminder: the first start writes the first admin's
// token file (mode 0600); a later start warns while the file is still
// there, and once it is deleted says that it wrote none and how to
// recover (a master given a new --data on an existing database is in the
// same place).
func TestAdminTokenFileReminder(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(context.Background(), "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	path := filepath.Join(dir, AdminTokenFile)
	cases := []struct {
		name   string
		before func()
		db     string
		want   string // in the log
	}{
		{"first start", func() {}, "", "created the first admin"},
		{"restart with the file", func() {}, "", "an admin's token file (the first admin's, or one allot master recover-admin wrote) is still in the data directory"},
		{"restart without it", func() {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, "", `recover="allot master recover-admin --data ` + dir + ` --listen 127.0.0.1:8080"`},
		{"restart on another database", func() {}, "postgres://u:secret@db/allot", `recover-admin --data ` + dir + ` --db <this master's --db>`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.before()
			var log bytes.Buffer
			if err := bootstrapAdmin(context.Background(), st, dir, recoverHint(dir, tc.db, "127.0.0.1:8080", ""), "http://m:8080", "", slog.New(slog.NewTextHandler(&log, nil))); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(log.String(), tc.want) || strings.Contains(log.String(), "secret") {
				t.Fatalf("log %q, want %q (and no password)", log.String(), tc.want)
			}
			if tc.name == "first start" {
				if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
					t.Fatalf("token file: %v, %v; want mode 0600", fi, err)
				}
			}
		})
	}
}

// TestRecoverHint: the recover-admin command a restarted master suggests
// carries its --listen and --tls-cert, which recover-admin needs to print
// a login line that works (recoverLogin), and never the --db's value.
func TestRecoverHint(t *testing.T) {
	rel, err := filepath.Abs("cert2.pem")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, db, listen, cert, want string
	}{
		{"plain", "", ":8080", "", "allot master recover-admin --data /d --listen :8080"},
		{"tls", "", "0.0.0.0:8443", "/etc/allot/cert.pem", "allot master recover-admin --data /d --listen 0.0.0.0:8443 --tls-cert /etc/allot/cert.pem"},
		{"postgres", "postgres://u:secret@db/allot", ":8080", "", "allot master recover-admin --data /d --db <this master's --db> --listen :8080"},
		// Trial 29f F4: run from anywhere, as --data is absolute.
		{"relative cert", "", ":8443", "cert2.pem", "allot master recover-admin --data /d --listen :8443 --tls-cert " + shellQuote(rel)},
		{"quoted", "", ":8080", "/my certs/c.pem", "allot master recover-admin --data /d --listen :8080 --tls-cert '/my certs/c.pem'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := recoverHint("/d", tc.db, tc.listen, tc.cert); got != tc.want {
				t.Errorf("recoverHint = %q, want %q", got, tc.want)
			}
		})
	}
}
