package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/jobfile"
)

// DefaultMaster is the master's address when neither --master nor
// ALLOT_MASTER gives one.
const DefaultMaster = "http://127.0.0.1:8080"

// MasterEnv names the environment variable with the master's address.
const MasterEnv = "ALLOT_MASTER"

// requestTimeout bounds each request of the client commands; following a
// log is bounded by the job instead.
const requestTimeout = 30 * time.Second

// addMasterFlag gives the root command the persistent --master and --ca
// flags shared by every command that talks to a master.
func addMasterFlag(root *cobra.Command) {
	root.PersistentFlags().String("master", "",
		fmt.Sprintf("the master's URL or host:port, which means http://, or https:// with --ca (default: $%s, else the one of allot login, else %s)", MasterEnv, DefaultMaster))
	root.PersistentFlags().String("ca", "", fmt.Sprintf("a PEM file of CAs to trust for an HTTPS master on a private CA (default: $%s; allot login saves it)", CAEnv))
}

// masterAddr is --master when given, else $ALLOT_MASTER, else the current
// master of the credentials file, else the default.
func masterAddr(cmd *cobra.Command) string {
	addr, _ := masterSource(cmd)
	return addr
}

// masterSource is masterAddr with where the address came from, for the
// message that refuses it: "--master", "$ALLOT_MASTER", the credentials
// file, or the default.
func masterSource(cmd *cobra.Command) (addr, from string) {
	if f := cmd.Flag("master"); f != nil && f.Changed {
		return withScheme(f.Value.String(), flagCA(cmd)), "--master"
	}
	if v := strings.TrimSpace(os.Getenv(MasterEnv)); v != "" {
		return withScheme(v, flagCA(cmd)), "$" + MasterEnv
	}
	if c, path, err := loadCredentials(); err == nil && c.Current != "" {
		return c.Current, fmt.Sprintf("the current master of %s (allot login)", path)
	}
	return DefaultMaster, defaultMasterSource
}

// defaultMasterSource is masterSource's from for DefaultMaster.
const defaultMasterSource = "the default master"

// masterClient is the client of the master the command names. An address
// that is not one is a usage error (exit 2), named with where it came
// from: a bad $ALLOT_MASTER or saved login is not seen on the command
// line.
func masterClient(cmd *cobra.Command, hc *http.Client) (*client.Client, error) {
	addr, from := masterSource(cmd)
	c, err := client.New(addr, hc)
	if err != nil {
		return nil, usageErrorf("%s: %w", from, err)
	}
	return c, nil
}

// newClient returns a client for the master the command names, with the
// token of $ALLOT_TOKEN or, else, the one allot login saved for it.
func newClient(cmd *cobra.Command) (*client.Client, error) {
	creds, _, err := loadCredentials()
	if err != nil {
		return nil, err
	}
	acct := creds.Masters[normalAddr(masterAddr(cmd))]
	hc, err := client.HTTPClient(clientCA(cmd, creds))
	if err != nil {
		return nil, fmt.Errorf("--ca or %s: %w", CAEnv, err)
	}
	c, err := masterClient(cmd, hc)
	if err != nil {
		return nil, err
	}
	token := acct.Token
	if v := strings.TrimSpace(os.Getenv(TokenEnv)); v != "" {
		token = v
	}
	return c.WithToken(token).WithNotes(cmd.ErrOrStderr()), nil
}

// withScheme is addr with https:// in front when it is a bare host:port
// and a CA is given (--ca or $ALLOT_CA): a CA is only of use to an HTTPS
// master, so one given with a host:port says which scheme is meant. Without
// a CA a host:port stays plain HTTP (client.New), as it always was.
func withScheme(addr, ca string) string {
	a := strings.TrimSpace(addr)
	if ca == "" || a == "" || strings.Contains(a, "://") {
		return addr
	}
	return "https://" + a
}

// flagCA is the CA file that --ca, else $ALLOT_CA, gives; "" for none.
func flagCA(cmd *cobra.Command) string {
	if f := cmd.Flag("ca"); f != nil && f.Changed {
		return strings.TrimSpace(f.Value.String())
	}
	return strings.TrimSpace(os.Getenv(CAEnv))
}

// clientCA is the CA file a client command trusts: --ca, else $ALLOT_CA,
// else the one allot login saved for the command's master (creds).
func clientCA(cmd *cobra.Command, creds credentials) string {
	if ca := flagCA(cmd); ca != "" {
		return ca
	}
	return creds.Masters[normalAddr(masterAddr(cmd))].CA
}

// requestContext bounds one request of a client command.
func requestContext(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return context.WithTimeout(cmd.Context(), requestTimeout)
}

// parseJobID reads a job id argument.
func parseJobID(s string) (int64, error) { return parseID("job ID", s) }

// parseJobIDs parses a command's job ID arguments, failing at the first
// that is not one.
func parseJobIDs(args []string) ([]int64, error) {
	ids := make([]int64, len(args))
	for i, a := range args {
		id, err := parseJobID(a)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}

// parseID reads an ID argument; what names it ("token ID").
func parseID(what, s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || id < 1 {
		return 0, usageErrorf("%s: expected a positive integer, got %q", what, s)
	}
	return id, nil
}

// parsePriority reads a priority number or class name (any case).
func parsePriority(s string) (num int, class string, err error) {
	v := strings.TrimSpace(s)
	if n, perr := strconv.Atoi(v); perr == nil {
		if n < jobfile.MinPriority || n > jobfile.MaxPriority {
			return 0, "", usageErrorf("priority: expected %d to %d (lower is more important), got %d", jobfile.MinPriority, jobfile.MaxPriority, n)
		}
		return n, "", nil
	}
	c := jobfile.PriorityClass(strings.ToUpper(v))
	if c.Priority() == 0 {
		return 0, "", usageErrorf("priority: expected a number from %d to %d or one of HIGH, NORMAL, LOW, got %q", jobfile.MinPriority, jobfile.MaxPriority, s)
	}
	return 0, string(c), nil
}

// parseWeight reads a fair-share weight: a finite number > 0.
func parseWeight(s string) (float64, error) {
	w, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(w) || math.IsInf(w, 0) || w <= 0 {
		return 0, usageErrorf("weight: expected a number > 0, got %q", s)
	}
	return w, nil
}

// tokenHint says where the token a master refused came from: a login
// saved for the address may belong to another master since started there
// (a new allot dev, a master on a new store) or have been revoked, which
// the bare 401 does not say. "" for any other error, when no token was
// sent (the master's answer then says to log in), and for a disabled user.
// A token given on the command line (--token-file, --token: allot login,
// allot bench) is named as such, ahead of $ALLOT_TOKEN, which such a
// command does not send.
func tokenHint(cmd *cobra.Command, err error) string {
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Status != http.StatusUnauthorized {
		return ""
	}
	if strings.Contains(ce.Message, " is disabled") {
		// The token is known and live; its user is off, which logging in
		// again would not change (the master says who can lift it).
		return ""
	}
	addr := normalAddr(masterAddr(cmd))
	if from := tokenFlagSource(cmd); from != "" {
		// allot login --token-file BAD: the saved login was not used,
		// and logging in again with the same token would not help
		// (trial 2026-11-29d D1).
		return fmt.Sprintf("The token came from %s, which %s refused; nothing was saved. "+
			"Give a token of that master (an admin makes one with allot token create).", from, addr)
	}
	if strings.TrimSpace(os.Getenv(TokenEnv)) != "" {
		return fmt.Sprintf("The token came from $%s, which %s refused.", TokenEnv, addr)
	}
	creds, path, lerr := loadCredentials()
	if lerr != nil || creds.Masters[addr].Token == "" {
		return ""
	}
	return fmt.Sprintf("The token is the login saved for %s in %s; if another master has been started there since, or the token was revoked, log in again: allot login --master %s",
		addr, path, addr)
}

// tokenFlagSource names the command-line flag that cmd took its token
// from, "--token-file PATH" or "--token", or "" when it has no such flag
// or it was not given.
func tokenFlagSource(cmd *cobra.Command) string {
	if f := cmd.Flags().Lookup("token-file"); f != nil && f.Changed {
		return "--token-file " + f.Value.String()
	}
	if f := cmd.Flags().Lookup("token"); f != nil && f.Changed {
		return "--token"
	}
	return ""
}
