package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/plural"
)

func newLoginCmd() *cobra.Command {
	var token, tokenFile string
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Save an API token for a master, and make it the default master",
		Long: "Check the token with the master (--master) and save it for that master, readable\n" +
			"by you only, in $" + ConfigEnv + " or allot/credentials.json in your configuration\n" +
			"directory. That master becomes the default of later commands, which send the\n" +
			"token; $" + TokenEnv + " overrides it. A file given to --token-file must hold the\n" +
			"token alone, as allot token create > FILE writes it. For a master on a private\n" +
			"CA, give the CA with --ca FILE: it is saved with the token, and a host:port\n" +
			"--master then means https://.",
		Example: "  allot login --master https://allot.example.org --token-file ~/allot.token\n" +
			"  allot login --master 10.0.0.5:8443 --ca ca.pem --token-file ~/allot.token\n" +
			"  allot login --master http://127.0.0.1:8080 --token allot_u_...",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (token == "") == (tokenFile == "") {
				return usageErrorf("give the token with exactly one of --token and --token-file")
			}
			if tokenFile != "" {
				var err error
				if token, err = readTokenFile("--token-file", tokenFile); err != nil {
					return err
				}
			}
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			ctx, cancel := requestContext(cmd)
			defer cancel()
			who, err := c.WithToken(token).Identity().Whoami(ctx)
			if err != nil {
				return fmt.Errorf("check the token with %s: %w", c.Addr(), err)
			}
			path, err := saveLogin(c.Addr(), token, commandCA(cmd))
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Logged in to %s as %s%s; saved in %s\n", c.Addr(), who.User, adminWords(who.Admin), path)
			return nil
		},
	}
	cmd.Flags().StringVar(&token, "token", "", "the API token (visible to other users in the process list: prefer --token-file)")
	cmd.Flags().StringVar(&tokenFile, "token-file", "", "a file holding the API token")
	return cmd
}

// readTokenFile reads a token kept alone in a file, as "allot token
// create ... > FILE" writes it; surrounding space is dropped. A file that
// holds more (the whole message of token create, copied from a terminal)
// is refused naming the file: its token would go out as an invalid
// header, and the error would blame the connection.
func readTokenFile(flag, path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", flag, err)
	}
	token := strings.TrimSpace(string(data))
	if token == "" {
		return "", fmt.Errorf("%s %s: the file is empty; expected a token", flag, path)
	}
	if strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
		more := "spaces or control characters"
		if lines := strings.Count(token, "\n") + 1; lines > 1 {
			more = plural.Count(lines, "line")
		}
		return "", fmt.Errorf("%s %s: expected the token alone, but the file holds more (%s); keep only the token's line "+
			"(allot token create prints the token alone on stdout: allot token create ... > FILE)", flag, path, more)
	}
	return token, nil
}

func adminWords(admin bool) string {
	if admin {
		return " (admin)"
	}
	return ""
}

func newLogoutCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "logout",
		Short: "Forget the saved token of the master",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			creds, path, err := loadCredentials()
			if err != nil {
				return err
			}
			addr := normalAddr(masterAddr(cmd))
			if _, ok := creds.Masters[addr]; !ok {
				return fmt.Errorf("not logged in to %s (%s)", addr, path)
			}
			delete(creds.Masters, addr)
			if creds.Current == addr {
				creds.Current = ""
			}
			if err := creds.save(path); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Logged out of %s\n", addr)
			return nil
		},
	}
}

func newWhoamiCmd() *cobra.Command {
	var out outputFlag
	cmd := &cobra.Command{
		Use:   "whoami",
		Short: "Show the user of your API token and its roles",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runOne(cmd, &out, func(ctx context.Context, c *client.Client) (any, error) { return c.Identity().Whoami(ctx) },
				func(w io.Writer, v any) error {
					who := v.(api.Whoami)
					fmt.Fprintf(w, "%s%s\n", who.User, adminWords(who.Admin))
					for _, p := range sortedKeys(who.Roles) {
						fmt.Fprintf(w, "  %s in %s\n", who.Roles[p], p)
					}
					if len(who.ConfigProjects) > 0 {
						fmt.Fprintf(w, "  submits only to %s (the master's configuration file, users: section)\n",
							strings.Join(who.ConfigProjects, ", "))
					}
					return nil
				})
		},
	}
	out.register(cmd)
	return cmd
}

// runOne is the body of a command that makes one request and prints its
// answer as JSON, YAML or text.
func runOne(cmd *cobra.Command, out *outputFlag, fetch func(context.Context, *client.Client) (any, error),
	text func(io.Writer, any) error) error {
	if err := out.check(); err != nil {
		return err
	}
	c, err := newClient(cmd)
	if err != nil {
		return err
	}
	ctx, cancel := requestContext(cmd)
	defer cancel()
	v, err := fetch(ctx, c)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if done, err := out.structured(w, v); done {
		return err
	}
	return text(tableOut(cmd, w), v)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// parseRoles reads --role PROJECT=ROLE flags.
func parseRoles(flags []string, allowEmpty bool) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range flags {
		p, r, ok := strings.Cut(f, "=")
		if !ok || p == "" || (r == "" && !allowEmpty) {
			return nil, usageErrorf("--role %q: expected PROJECT=ROLE with ROLE viewer, member or lead (PROJECT * for all)", f)
		}
		out[p] = r
	}
	return out, nil
}

func newUserCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "user", Short: "Manage users and their roles (admins)"}
	var admin bool
	var roles []string
	create := &cobra.Command{
		Use:     "create NAME",
		Short:   "Create a user with roles in projects",
		Example: "  allot user create alice --role vision=member --role nlp=viewer\n  allot user create ops --admin",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := parseRoles(roles, false)
			if err != nil {
				return err
			}
			return mutate(cmd, func(ctx context.Context, c *client.Client) (string, error) {
				u, err := c.Identity().CreateUser(ctx, api.NewUser{Name: args[0], Admin: admin, Roles: r})
				for _, w := range u.Warnings {
					fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+w)
				}
				return fmt.Sprintf("Created user %s%s; give it a token with: allot token create --user %s", u.Name,
					adminWords(u.Admin), u.Name), err
			})
		},
	}
	create.Flags().BoolVar(&admin, "admin", false, "make the user an admin")
	create.Flags().StringArrayVar(&roles, "role", nil, "PROJECT=ROLE (viewer, member or lead; PROJECT * for all), repeatable")
	var setRoles []string
	role := &cobra.Command{
		Use:     "role NAME",
		Short:   "Set (PROJECT=ROLE) or remove (PROJECT=) a user's roles",
		Example: "  allot user role alice --role vision=lead --role nlp=",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := parseRoles(setRoles, true)
			if err != nil {
				return err
			}
			if len(r) == 0 {
				return usageErrorf("--role: give at least one PROJECT=ROLE")
			}
			return mutate(cmd, func(ctx context.Context, c *client.Client) (string, error) {
				u, err := c.Identity().UpdateUser(ctx, args[0], api.UserUpdate{Roles: r})
				// A role the users: section keeps from use (trial 29j J3).
				for _, w := range u.Warnings {
					fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+w)
				}
				return fmt.Sprintf("User %s: %s", u.Name, rolesWords(u.Roles)), err
			})
		},
	}
	role.Flags().StringArrayVar(&setRoles, "role", nil, "PROJECT=ROLE, or PROJECT= to remove, repeatable")
	list := listCommand("list", "List users and their roles", func(c *client.Client, ctx context.Context) ([]api.User, error) { return c.Identity().Users(ctx) }, narrow(printUsers))
	list.Example = "  allot user list\n  allot user list -o json"
	cmd.AddCommand(create, role, setDisabledCmd("disable", true), setDisabledCmd("enable", false), list)
	return cmd
}

func setDisabledCmd(verb string, disabled bool) *cobra.Command {
	short := "Disable a user: the user's tokens stop working at once"
	if !disabled {
		short = "Enable a disabled user: the user's tokens work again"
	}
	return &cobra.Command{
		Use:   verb + " NAME",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return mutate(cmd, func(ctx context.Context, c *client.Client) (string, error) {
				u, err := c.Identity().UpdateUser(ctx, args[0], api.UserUpdate{Disabled: &disabled})
				if err != nil || !disabled {
					return fmt.Sprintf("User %s %sd", u.Name, verb), err
				}
				return fmt.Sprintf("User %s disabled%s", u.Name, liveJobsNote(ctx, c, u.Name)), nil
			})
		},
	}
}

// liveJobsNote says what becomes of a disabled user's queued and running
// jobs: nothing, so that an admin who wants them stopped knows to kill
// them. It is "" when the user has none, or when they cannot be listed
// (the change is made; this is only a note).
func liveJobsNote(ctx context.Context, c *client.Client, user string) string {
	jobs, err := c.Jobs(ctx, client.JobFilter{User: user, State: "queued,running"})
	if err != nil || len(jobs) == 0 {
		return ""
	}
	left := "are left as they are"
	if len(jobs) == 1 {
		left = "is left as it is"
	}
	return fmt.Sprintf("; the user's %d queued or running %s %s (allot jobs --user %s; allot job kill -u %s stops them)",
		len(jobs), plural.Noun(len(jobs), "job"), left, user, user)
}

// mutate is the body of a command that makes one change and prints what
// it did.
func mutate(cmd *cobra.Command, do func(context.Context, *client.Client) (string, error)) error {
	c, err := newClient(cmd)
	if err != nil {
		return err
	}
	ctx, cancel := requestContext(cmd)
	defer cancel()
	msg, err := do(ctx, c)
	if err != nil {
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout(), msg)
	return nil
}

func rolesWords(roles map[string]string) string {
	if len(roles) == 0 {
		return "no roles"
	}
	var parts []string
	for _, p := range sortedKeys(roles) {
		parts = append(parts, p+"="+roles[p])
	}
	return strings.Join(parts, ",")
}

func printUsers(w io.Writer, users []api.User) error {
	t := newTable(w, "NAME", "ADMIN", "STATE", "ROLES", "AGE")
	for _, u := range users {
		state := "enabled"
		if u.Disabled {
			state = "disabled"
		}
		t.row(u.Name, strconv.FormatBool(u.Admin), state, rolesWords(u.Roles), age(u.CreatedAt))
	}
	return t.flush()
}

func newTokenCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "token", Short: "Manage API tokens (your own; admins: everyone's) and agents' join tokens (admins)"}
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a token (see allot token list for IDs)",
		Long: `Revoke a token (see allot token list for IDs). A revoked token is refused
at once; revoking it again changes nothing and says so. The last live
token of the last enabled admin is not revoked (409): make another admin
token first, since getting one back otherwise needs the master stopped
(allot master recover-admin). Revoking the token you are using is allowed
when another admin token is left, and the command says so.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID("token ID", args[0])
			if err != nil {
				return err
			}
			return mutate(cmd, func(ctx context.Context, c *client.Client) (string, error) {
				rt, err := c.Identity().RevokeToken(ctx, id)
				if err != nil {
					return "", err
				}
				return revokeMessage(id, rt), nil
			})
		},
	}
	var kind, subject string
	list := listCommand("list", "List tokens (never their secrets)", func(c *client.Client, ctx context.Context) ([]api.Token, error) {
		return c.Identity().Tokens(ctx, kind, subject)
	}, narrow(printTokens))
	list.Example = "  allot token list\n  allot token list --kind join -o json"
	list.Flags().StringVar(&kind, "kind", "", "only tokens of this kind: user, join or node")
	list.Flags().StringVar(&subject, "subject", "", "only tokens of this user or node")
	cmd.AddCommand(newTokenCreateCmd(), revoke, list)
	return cmd
}

// newTokenCreateCmd is allot token create.
func newTokenCreateCmd() *cobra.Command {
	var user, note, ttl string
	var join bool
	create := &cobra.Command{
		Use:   "create",
		Short: "Make an API token (your own, or as an admin a user's), or a join token for agents; the secret is shown once",
		Example: "  allot token create --note ci\n" +
			"  allot token create --user alice --note laptop\n" +
			"  allot token create --join --ttl 2h",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Without --user the token is the caller's own, which any
			// user may make; another user's, or a join token, is an
			// admin's to make.
			nt := api.NewToken{Kind: api.TokenUser, User: user, Note: note}
			if join {
				if user != "" {
					return usageErrorf("--join and --user: a join token belongs to no user; give one")
				}
				nt.Kind = api.TokenJoin
			}
			if ttl != "" {
				s, err := parseSeconds("ttl", ttl)
				if err != nil {
					return err
				}
				// The API reads 0 as the kind's default; given on the
				// command line it would be silently replaced.
				if s == 0 {
					return usageErrorf("--ttl: expected a lifetime > 0, got %q (leave --ttl out for the default: no expiry for API tokens, 24h for join tokens)", ttl)
				}
				nt.TTLS = s
			}
			return createToken(cmd, nt)
		},
	}
	create.Flags().StringVar(&user, "user", "", "the user the API token belongs to (default: you; another user's needs the admin role)")
	create.Flags().BoolVar(&join, "join", false, "make a join token, with which agents register nodes")
	create.Flags().StringVar(&note, "note", "", "what the token is for")
	create.Flags().StringVar(&ttl, "ttl", "", "lifetime, e.g. 24h (default: none for API tokens, 24h for join tokens)")
	return create
}

// createToken makes token nt and prints its secret alone on stdout, so
// that "allot token create ... > FILE" makes the file that --token-file
// and --join-token-file read; the words about it follow on stderr. The
// secret comes first and no word points at a line to come: with 2>&1,
// or stdout piped on and stderr not, the two streams reach the reader in
// either order (trial 2026-11-29a P4), and each order reads right.
func createToken(cmd *cobra.Command, nt api.NewToken) error {
	c, err := newClient(cmd)
	if err != nil {
		return err
	}
	ctx, cancel := requestContext(cmd)
	defer cancel()
	t, err := c.Identity().CreateToken(ctx, nt)
	if err != nil {
		return err
	}
	made, use := tokenMessage(t, c.Addr(), commandCA(cmd))
	if _, err := fmt.Fprintln(cmd.OutOrStdout(), t.Secret); err != nil {
		return err
	}
	fmt.Fprintln(cmd.ErrOrStderr(), made)
	fmt.Fprintln(cmd.ErrOrStderr(), use)
	return nil
}

// revokeMessage says what a revoke did: nothing for a token revoked
// before, and for the token this command used, that the next command
// will be refused.
func revokeMessage(id int64, rt api.RevokedToken) string {
	switch {
	case rt.AlreadyRevoked && rt.Token.RevokedAt != nil:
		return fmt.Sprintf("Token %d was already revoked at %s; nothing changed", id, formatTime(rt.Token.RevokedAt))
	case rt.AlreadyRevoked:
		return fmt.Sprintf("Token %d was already revoked; nothing changed", id)
	case rt.Yours:
		return fmt.Sprintf("Revoked token %d. It is the token this command used: the next command is refused until you sign in with another (allot login)", id)
	}
	return fmt.Sprintf("Revoked token %d", id)
}

// tokenMessage says what was made and how to use it against master, the
// address this command used, and ca, the CA file it trusts ("" for
// none): the lines after the secret.
func tokenMessage(t api.CreatedToken, master, ca string) (made, use string) {
	var b strings.Builder
	fmt.Fprintf(&b, "Created %s token %d", t.Token.Kind, t.Token.ID)
	if t.Token.Kind == api.TokenUser {
		fmt.Fprintf(&b, " for %s", t.Token.Subject)
	}
	if t.Token.ExpiresAt != nil {
		// As the CLI prints a time to come elsewhere (when): the display
		// zone's date-time and how long from now, so that a reader in
		// another zone still knows when it lapses.
		fmt.Fprintf(&b, ", valid until %s", when(*t.Token.ExpiresAt))
	}
	b.WriteString(". It is shown only this once, alone on stdout (allot token create ... > FILE saves it to a file).")
	if t.Token.Kind == api.TokenJoin {
		return b.String(), fmt.Sprintf("Start agents with: allot agent --master %s%s --join-token-file FILE (or $ALLOT_JOIN_TOKEN)", master, caArg(ca))
	}
	return b.String(), fmt.Sprintf("The user logs in with: allot login --master %s%s --token-file FILE", master, caArg(ca))
}

func printTokens(w io.Writer, tokens []api.Token) error {
	// REVOKED says when; the audit log says by whom (allot audit).
	t := newTable(w, "ID", "KIND", "SUBJECT", "STATE", "NOTE", "AGE", "EXPIRES", "REVOKED")
	now := time.Now()
	for _, tk := range tokens {
		state, expires := "live", "-"
		if tk.ExpiresAt != nil {
			expires = formatTime(tk.ExpiresAt)
			if now.After(*tk.ExpiresAt) {
				state = "expired"
			}
		}
		if tk.RevokedAt != nil {
			state = "revoked"
		}
		t.row(strconv.FormatInt(tk.ID, 10), tk.Kind, tk.Subject, state, orDash(tk.Note), age(tk.CreatedAt), expires,
			formatTime(tk.RevokedAt))
	}
	return t.flush()
}
