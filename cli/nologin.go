package cli

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/client"
)

// notLoggedIn rewords err when the command reached no master at the
// built-in default address that it used only because nothing named
// another: no --master, no $ALLOT_MASTER, no current login (never logged
// in, or just logged out). "cannot reach the master at
// http://127.0.0.1:8080" then sends a new user looking for a broken
// master rather than at the login they lack (trial 2026-11-29e E11).
// The address used is unchanged (docs/cli.md's order); only the words
// are. Any other error is returned as it is.
func notLoggedIn(cmd *cobra.Command, err error) error {
	var ue *client.UnreachableError
	if cmd == nil {
		return err
	}
	if !errors.As(err, &ue) {
		return noToken(cmd, err)
	}
	if _, from := masterSource(cmd); from != defaultMasterSource {
		return err
	}
	if strings.TrimSpace(os.Getenv(TokenEnv)) != "" {
		// A token without an address: the user has one, and only the
		// master is missing.
		return fmt.Errorf("no master named (no --master, no $%s, no current allot login), "+
			"and nothing answers at the default address %s (%w); set %s (or --master) to your master's URL",
			MasterEnv, DefaultMaster, ue.Err, MasterEnv)
	}
	return fmt.Errorf("not logged in (no current allot login, no --master, no $%s), "+
		"and nothing answers at the default address %s (%w); log in with "+
		"allot login --master URL --token-file FILE (or set %s and %s)",
		MasterEnv, DefaultMaster, ue.Err, MasterEnv, TokenEnv)
}

// noToken rewords the master's 401 when the command sent no token at all
// (no $ALLOT_TOKEN, no --token or --token-file, no login saved for that
// master): the master's "send an API token as 'Authorization: Bearer
// TOKEN'" is HTTP talk to a CLI user, who lacks a login (trial
// 2026-11-29f F7). A 401 of a token that was sent is left as it is, for
// tokenHint to say where that token came from.
func noToken(cmd *cobra.Command, err error) error {
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Status != http.StatusUnauthorized || tokenFlagSource(cmd) != "" ||
		strings.TrimSpace(os.Getenv(TokenEnv)) != "" {
		return err
	}
	addr := normalAddr(masterAddr(cmd))
	if creds, _, lerr := loadCredentials(); lerr != nil || creds.Masters[addr].Token != "" {
		return err
	}
	return &noTokenError{addr: addr, err: err}
}

// noTokenError is noToken's words; it wraps the master's 401, which
// still decides the exit code, without repeating its HTTP words.
type noTokenError struct {
	addr string
	err  error
}

func (e *noTokenError) Error() string {
	// The status stays, as on every error the master returned, for
	// scripts and for those who know HTTP.
	return fmt.Sprintf("not logged in to %s: allot login --master %s --token-file FILE (or set %s) (master: 401 Unauthorized)",
		e.addr, e.addr, TokenEnv)
}

func (e *noTokenError) Unwrap() error { return e.err }
