package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/master"
	"github.com/allot-sched/allot/store"
)

type recoverFlags struct {
	data, db  string
	user      string
	revokeOld bool
	// listen and tlsCert are allot master's --listen and --tls-cert, for
	// the login line (recoverLogin); "" where not given.
	listen, tlsCert string
}

func newRecoverAdminCmd() *cobra.Command {
	var f recoverFlags
	cmd := &cobra.Command{
		Use:   "recover-admin",
		Short: "Give an admin a new API token when every admin token is lost (on the master's host, master stopped)",
		Long: `Give admin --user a new API token, written to DATA/` + AdminTokenFile + ` (mode 0600)
as at a master's first start, when every admin token is lost: the first
admin's file was deleted, or a master started with a new --data on an
existing PostgreSQL database, which writes no token.

It opens the database directly, with the --data and --db of allot master,
so it runs on a host that can, as the master's user, with the master
stopped: it refuses while a master holds the data directory, the SQLite
file or (PostgreSQL) the database's master lock, since its writes would
race the master's. An admin that still has a token needs none of this:
allot token create --user NAME.

--user must be an enabled admin; a user that does not exist is created as
an admin only when the store has no enabled admin left. The earlier
tokens stay valid unless --revoke-old revokes them (do so when a lost
token may have been found). The audit log records the recovery, with the
local user who ran it.

Given the --listen (and --tls-cert) the master runs with, it prints the
allot login line to use once the master is started again, with --ca and
an address the certificate covers where the login needs them, as the
master prints the first admin's; without --listen it says that it cannot.`,
		Example: `  allot master recover-admin --data /var/lib/allot --listen :8443 --tls-cert /etc/allot/cert.pem
  allot master recover-admin --data ./data --db postgres://allot@db/allot --user alice --revoke-old`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRecoverAdmin(cmd.Context(), cmd.OutOrStdout(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.data, "data", "", "the master's data directory, where the token file is written (required)")
	fl.StringVar(&f.db, "db", "", "the master's database URL, as allot master --db; default SQLite in the data directory")
	fl.StringVar(&f.user, "user", "admin", "the admin to give a token")
	fl.BoolVar(&f.revokeOld, "revoke-old", false, "revoke the admin's earlier API tokens")
	fl.StringVar(&f.listen, "listen", "", "the master's --listen, for the login line (none: the line is not printed)")
	fl.StringVar(&f.tlsCert, "tls-cert", "", "the master's --tls-cert, for the login line's address and --ca")
	return cmd
}

func runRecoverAdmin(ctx context.Context, stdout io.Writer, f recoverFlags) error {
	if f.data == "" {
		return usageErrorf("--data: the master's data directory is required")
	}
	if f.user == "" {
		return usageErrorf("--user: a user name is required")
	}
	if err := checkDB("--db", f.db); err != nil {
		return err
	}
	if err := checkRecoverServe(f); err != nil {
		return err
	}
	data, err := filepath.Abs(f.data)
	if err != nil {
		return fmt.Errorf("--data %q: %w", f.data, err)
	}
	if err := checkRecoverDB(f.db, data); err != nil {
		return err
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		return fmt.Errorf("--data: %w", err)
	}
	release, err := lockData(f.db, data)
	if err != nil {
		return fmt.Errorf("%w (recover-admin writes to the database directly, so the master must be stopped first)", err)
	}
	defer release()
	st, err := store.Open(ctx, f.db, data)
	if errors.Is(err, store.ErrLocked) {
		return fmt.Errorf("--db: %w (recover-admin writes to the database directly, so the master must be stopped first)", err)
	}
	if err != nil {
		return fmt.Errorf("--db: cannot open the master's database: %w", err)
	}
	defer st.Close()
	// One transaction: on an error nothing was stored, no token either.
	r, err := master.RecoverAdmin(ctx, st, f.user, f.revokeOld, "local:"+localUser(), time.Now().UTC())
	if err != nil {
		return err
	}
	path := filepath.Join(data, AdminTokenFile)
	_, statErr := os.Stat(path)
	replaced := statErr == nil
	if err := writeSecretFile(path, r.Token+"\n"); err != nil {
		return fmt.Errorf("write the token file (the token, %d, is stored: revoke it with allot token revoke): %w", r.ID, err)
	}
	printRecovery(stdout, f, r, path, replaced)
	return nil
}

// checkRecoverDB refuses a SQLite database that does not exist: opening
// it would make an empty one, and a new admin in it, beside the master's.
func checkRecoverDB(db, data string) error {
	path, err := store.SQLiteFile(db, data)
	if err != nil {
		return usageErrorf("--db %s: %w", db, err)
	}
	if path == "" {
		return nil
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("--data/--db: no master's database at %s: give the --data (and --db) the master runs with: %w", path, err)
	}
	return nil
}

// writeSecretFile writes a secret to path, readable by this user only,
// replacing the file whole (a file left by an earlier start keeps its
// mode through a plain write; a rename does not).
func writeSecretFile(path, content string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// printRecovery says what recover-admin did; replaced: path held a token
// file already (the first admin's, or an earlier run's), whose token is
// not revoked by the overwrite but whose secret is gone, which a
// second run did without a word (trial 2026-11-29f F4).
func printRecovery(w io.Writer, f recoverFlags, r master.Recovery, path string, replaced bool) {
	if r.Created {
		fmt.Fprintf(w, "No enabled admin was left: created admin %s.\n", f.user)
	}
	fmt.Fprintf(w, "New API token %d for admin %s in %s (mode 0600).\n", r.ID, f.user, path)
	if replaced {
		fmt.Fprintf(w, "It replaced the earlier %s there (overwriting the file revokes no token: "+
			"allot token list shows them, allot token revoke ends one).\n", AdminTokenFile)
	}
	if f.revokeOld {
		fmt.Fprintf(w, "Revoked %d earlier token(s) of %s.\n", r.Revoked, f.user)
	} else {
		fmt.Fprintf(w, "Earlier tokens of %s stay valid (--revoke-old revokes them; allot token list shows them).\n", f.user)
	}
	fmt.Fprintln(w, recoverLogin(f, path))
}

// localUser names who runs the command, for the audit log.
func localUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "uid " + strconv.Itoa(os.Getuid())
}
