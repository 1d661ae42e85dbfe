package cli

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/store"
)

// TestRecoverAdminCommand: allot master recover-admin writes a new admin
// token to DATA/admin.token (mode 0600, replacing a file left with looser
// bits, and saying that it did), and refuses, naming what is wrong, without the flags, without
// the master's database, while a master holds it, and for a user that is
// not an admin.
func TestRecoverAdminCommand(t *testing.T) {
	cases := []struct {
		name    string
		setup   func(t *testing.T, data string) // after the master's first start
		args    []string                        // after recover-admin --data DATA
		wantErr string                          // "" for success
		wantOut string
	}{
		{name: "token for the first admin", wantOut: "New API token 2 for admin admin in"},
		{name: "old token revoked", args: []string{"--revoke-old"}, wantOut: "Revoked 1 earlier token(s) of admin."},
		{name: "a loose token file is replaced", setup: func(t *testing.T, data string) {
			if err := os.WriteFile(filepath.Join(data, AdminTokenFile), []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, wantOut: "It replaced the earlier admin.token there (overwriting the file revokes no token"},
		{name: "not an admin", setup: func(t *testing.T, data string) { addUser(t, data, "bob") },
			args: []string{"--user", "bob"}, wantErr: `refused: user "bob" is not an admin (enabled admins: admin)`},
		{name: "no such user", args: []string{"--user", "zed"},
			wantErr: `no user "zed"; the enabled admins are admin: give --user one of them`},
		{name: "master running", setup: func(t *testing.T, data string) {
			release, err := lockData("", data)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(release)
		}, wantErr: "the data directory is in use by process"},
		{name: "no database", setup: func(t *testing.T, data string) {
			if err := os.Remove(filepath.Join(data, store.DefaultSQLiteFile)); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "no master's database at"},
		{name: "database cannot be opened", args: []string{"--db", "postgres://u:hunter2@127.0.0.1:1/allot?connect_timeout=2"},
			wantErr: "--db: cannot open the master's database"},
		{name: "not a database", args: []string{"--db", "mysql://db/x"}, wantErr: "not a database allot can use"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := t.TempDir()
			first := firstStart(t, data)
			if c.setup != nil {
				c.setup(t, data)
			}
			out, _, err := run(t, append([]string{"master", "recover-admin", "--data", data}, c.args...)...)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || strings.Contains(err.Error(), "hunter2") {
					t.Fatalf("err %v, want %q (and no password)", err, c.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(out, c.wantOut) {
				t.Fatalf("out %q, err %v; want %q", out, err, c.wantOut)
			}
			if c.setup == nil && strings.Contains(out, "replaced") {
				t.Fatalf("out %q: no earlier token file was there to replace", out)
			}
			checkRecoveredFile(t, data, first, strings.Contains(strings.Join(c.args, " "), "--revoke-old"))
		})
	}
}

// firstStart does what a master's first start does to data, and returns
// the first admin's token; the file is then deleted, as docs/security.md
// asks.
func firstStart(t *testing.T, data string) string {
	t.Helper()
	st, err := store.Open(context.Background(), "", data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := bootstrapAdmin(context.Background(), st, data, "", "http://m", "", discardLogger()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(data, AdminTokenFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func addUser(t *testing.T, data, name string) {
	t.Helper()
	st, err := store.Open(context.Background(), "", data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.CreateUser(context.Background(), store.User{Name: name}); err != nil {
		t.Fatal(err)
	}
}

// checkRecoveredFile checks the token file's mode, that its token is the
// admin's, and the first token's fate.
func checkRecoveredFile(t *testing.T, data, first string, revoked bool) {
	t.Helper()
	path := filepath.Join(data, AdminTokenFile)
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %v, %v; want mode 0600", fi, err)
	}
	b, _ := os.ReadFile(path)
	st, err := store.Open(context.Background(), "", data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now()
	c, err := st.CredentialByHash(context.Background(), auth.Hash(strings.TrimSpace(string(b))))
	if err != nil || c.Subject != "admin" || !c.Live(now) {
		t.Fatalf("new token %+v, %v", c, err)
	}
	o, err := st.CredentialByHash(context.Background(), auth.Hash(first))
	if err != nil || o.Live(now) == revoked {
		t.Fatalf("first token %+v, %v; want live %v", o, err, !revoked)
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
