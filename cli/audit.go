package cli

import (
	"context"
	"io"
	"strconv"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/spf13/cobra"
)

func newAuditCmd() *cobra.Command {
	var out outputFlag
	var after int64
	var actor string
	var limit, last int
	var win client.Window
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Show the audit log: who changed what, when, and the outcome (admins)",
		Long: `Show the audit log: every request that changed state (or tried to), and
every refused request of an agent, once answered: when, who, the method
and path, the status, a detail and the request id. The detail of a refusal
is its message; that of a change that succeeded says what it changed:
"time_limit 10m → 1m30s" for a job's update, "disabled" or "enabled" for a
user's, "killed", "drained: REASON", "created user ana: member on vision",
what a configuration reload added and removed, a token's id and owner
(never its secret). TARGET is what the request acted on: the job, node,
user or token of its path, or the job a submission made. --since and
--until keep the entries written in that window. Admins only.

While the master's database is down nothing can be written to it: the
requests refused during an outage, which changed nothing, have no entry
(the master's log counts them when the database is back).`,
		Example: "  allot audit --last 20\n  allot audit --actor user:alice --since 7d\n  allot audit --since 2026-11-29T09:00 --until 12:00\n" +
			"  allot audit --actor local:root\n  allot audit --after 120 -o json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkAuditCounts(cmd, last); err != nil {
				return err
			}
			// Checked as history's and usage's windows are, each bound
			// optional: the log reads whole unless asked for less.
			if err := checkWindow(&win, "--until"); err != nil {
				return err
			}
			q := client.AuditQuery{After: after, Actor: actor, Limit: limit, Window: win}
			if last > 0 {
				q.Limit, q.Last = 0, last
			}
			return runOne(cmd, &out, func(ctx context.Context, c *client.Client) (any, error) {
				es, err := c.Identity().Audit(ctx, q)
				if es == nil {
					es = []api.AuditEntry{}
				}
				return es, err
			}, func(w io.Writer, v any) error {
				return printAudit(w, v.([]api.AuditEntry))
			})
		},
	}
	cmd.Flags().Int64Var(&after, "after", 0, "only entries after this sequence number")
	cmd.Flags().StringVar(&actor, "actor", "", "only entries of this actor: user:NAME, node:NAME, join-token:ID, local:OSUSER (recover-admin), master (its starts and store outages) or anonymous")
	cmd.Flags().IntVar(&limit, "limit", 1000, "at most this many entries, the oldest")
	cmd.Flags().IntVar(&last, "last", 0, "the newest N entries (1..10000), printed oldest first; not with --limit")
	cmd.Flags().StringVarP(&win.Since, "since", "S", "", "only entries written since: "+whenHelp)
	cmd.Flags().StringVarP(&win.Until, "until", "E", "", "only entries written before: "+whenHelp+"; default now")
	out.register(cmd)
	return cmd
}

// printAudit prints audit entries as a table. TARGET is what the request
// acted on, which its path does not say for a submission (POST /jobs:
// the job it made) or a user's creation (trial 2026-11-29i I13).
func printAudit(w io.Writer, es []api.AuditEntry) error {
	t := newTable(w, "SEQ", "TIME", "ACTOR", "ACTION", "TARGET", "STATUS", "DETAIL")
	for _, e := range es {
		t.row(strconv.FormatInt(e.Seq, 10), e.At.Local().Format(time.DateTime), e.Actor, e.Action,
			orDash(e.Target), strconv.Itoa(e.Status), orDash(e.Detail))
	}
	return t.flush()
}

// checkAuditCounts refuses --last out of the master's range, or given with
// --limit: one asks for the oldest entries, the other for the newest.
func checkAuditCounts(cmd *cobra.Command, last int) error {
	switch {
	case !cmd.Flags().Changed("last"):
		return nil
	case cmd.Flags().Changed("limit"):
		return usageErrorf("--last and --limit: give one (--last: the newest entries, --limit: the oldest)")
	case last < 1 || last > 10000:
		return usageErrorf("--last: expected 1..10000, got %d", last)
	}
	return nil
}
