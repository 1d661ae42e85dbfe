package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
)

// listCommand builds a command that lists objects of the master: fetch
// gets them, and text prints them as a table, with more columns when wide.
// columns, when given, are its wide table's headers, of which --columns
// picks some (columns.go).
func listCommand[T any](use, short string, fetch func(c *client.Client, ctx context.Context) ([]T, error),
	text func(w io.Writer, items []T, wide bool) error, columns ...string) *cobra.Command {
	var out outputFlag
	var cols columnsFlag
	cmd := &cobra.Command{
		Use:     use,
		Short:   short,
		Example: "  allot " + use + "\n  allot " + use + " -o json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := out.check(); err != nil {
				return err
			}
			if err := cols.check(out); err != nil {
				return err
			}
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			ctx, cancel := requestContext(cmd)
			defer cancel()
			items, err := fetch(c, ctx)
			if err != nil {
				return err
			}
			if items == nil {
				items = []T{} // JSON [] rather than null
			}
			w := cmd.OutOrStdout()
			if done, err := out.structured(w, items); done {
				return err
			}
			return text(cols.writer(tableOut(cmd, w)), items, out.wide() || cols.set())
		},
	}
	out.register(cmd)
	registerNoHeaders(cmd)
	if columns != nil {
		cols.register(cmd, columns)
	}
	return cmd
}

func newNodesCmd() *cobra.Command {
	cmd := listCommand("nodes", "List the registered nodes and their GPUs in use", (*client.Client).Nodes, printNodes, nodesColumns...)
	cmd.Example += "\n  allot nodes --columns name,state,slots,last_seen"
	cmd.Long = `List the registered nodes and their GPUs in use.

STATE is up, lost or left, with ,draining or ,drained while an admin
drains the node and ,leaving while its agent shuts down. SLOTS is GPUs in
use / GPUs. LAST SEEN is the agent's last contact: a node is lost once it
is older than the master's agent_timeout. REASON is the admin's drain
reason and, for a lost node, since when, and until when the master holds
the tasks that must not run twice (lost_node_grace) before they end as
lost.
-o wide adds the agent's version, when it registered, who drained it and
when, and NODE RULE: what the master's configuration decided for it (its
pool and labels).
--columns prints only the columns it names, in that order (any of the
-o wide table's; LAST_SEEN for LAST SEEN).`
	return cmd
}

func newPoolsCmd() *cobra.Command {
	cmd := listCommand("pools", "List the pools, their policies and load; -o wide adds reservations and backfill windows",
		(*client.Client).Pools, printPools, poolsColumns...)
	cmd.Example += "\n  allot pools --columns name,slots,queued"
	cmd.Long = `List the pools, their policies and load.

SLOTS is GPUs in use / GPUs of the nodes up; NODES the nodes up, with
those drained, and those lost or left apart. -o wide adds the starts the
last scheduling pass reserved and the backfill window they leave.
--columns prints only the columns it names, in that order (any of the
-o wide table's; BACKFILL_WINDOW for BACKFILL WINDOW).`
	return cmd
}

func newProjectsCmd() *cobra.Command {
	cmd := listCommand("projects", "List the projects with their quota, use, limit and the most important priority class their members may give a job",
		(*client.Client).Projects, printProjects, projectsColumns...)
	cmd.Example += "\n  allot projects --columns name,quota,used,max_priority"
	cmd.Long = `List the projects with their quota, use, limit and the most important
priority class their members may give a job (MAX PRIORITY).

-o wide adds each project's QOS. --columns prints only the columns it
names, in that order (any of the -o wide table's; IN_QUOTA_POOLS for
IN QUOTA POOLS).`
	return cmd
}

// narrow adapts a table printer without extra columns to listCommand:
// -o wide prints the same table.
func narrow[T any](text func(io.Writer, []T) error) func(io.Writer, []T, bool) error {
	return func(w io.Writer, items []T, _ bool) error { return text(w, items) }
}

// printNodes prints the nodes; a drained node's state reads up,draining
// or up,drained with the admin's reason, a node whose agent is shutting
// down up,leaving. Wide adds each agent's version,
// when it registered, who drained it when, and what the master's node
// rule decided (nodeRule).
func printNodes(w io.Writer, nodes []api.Node, wide bool) error {
	header := nodesColumns[:8]
	if wide {
		header = nodesColumns
	}
	t := newTable(w, header...)
	for _, n := range nodes {
		state := n.State
		if n.Leaving {
			state += ",leaving"
		}
		if n.Drain != "" {
			state += "," + n.Drain
		}
		pool := n.Pool
		if n.PoolNote != "" && wide {
			pool += " (agent's " + n.AgentPool + ": not configured)"
		}
		row := []string{n.Name, pool, state, orDash(n.GPUType), fmt.Sprintf("%d/%d", n.Used, n.Slots),
			formatLabels(n.Labels), age(n.HeartbeatAt), nodeReason(n)}
		if wide {
			drained := "-"
			if n.DrainedAt != nil {
				drained = formatTime(n.DrainedAt) + " by " + orDash(n.DrainedBy)
			}
			row = append(row, orDash(n.Version), formatTime(&n.RegisteredAt), drained, nodeRule(n))
		}
		t.row(row...)
	}
	return t.flush()
}

// nodesColumns are the columns of allot nodes -o wide, which --columns
// may name; without -o wide the first eight.
var nodesColumns = []string{"NAME", "POOL", "STATE", "GPU", "SLOTS", "LABELS", "LAST SEEN", "REASON",
	"VERSION", "REGISTERED", "DRAINED", "NODE RULE"}

// nodeReason is a node's REASON: why it is out of service, the admin's
// drain reason and, for a node lost or left, since when, and until when
// the master holds its tasks through the loss.
func nodeReason(n api.Node) string {
	var parts []string
	if n.DrainReason != "" {
		parts = append(parts, n.DrainReason)
	}
	switch {
	case n.LostAt == nil:
	case n.State == "left":
		parts = append(parts, "its agent left at "+formatTime(n.LostAt))
	case n.HeldUntil != nil:
		parts = append(parts, "lost at "+formatTime(n.LostAt)+"; its tasks are held until "+formatTime(n.HeldUntil)+
			" (lost_node_grace), then end as lost unless its agent is back")
	default:
		parts = append(parts, "lost at "+formatTime(n.LostAt)+": no word from its agent for agent_timeout")
	}
	return orDash(strings.Join(parts, "; "))
}

// nodeRule says what the node rule of the master's configuration decided
// of node n, which its agent's --pool and --label do not show: "pool"
// when it pins the pool (with the agent's --pool where it differs), then
// the labels it puts over the agent's, a list as the dashboard's node
// rule column writes it: "pool (agent's: batch), rack=r7, switch=s1";
// "-" for nothing.
func nodeRule(n api.Node) string {
	var parts []string
	switch {
	case n.PoolByRule && n.AgentPool != "":
		parts = append(parts, "pool (agent's: "+n.AgentPool+")")
	case n.PoolByRule:
		parts = append(parts, "pool")
	}
	for _, k := range slices.Sorted(maps.Keys(n.RuleLabels)) {
		parts = append(parts, k+"="+n.RuleLabels[k])
	}
	return orDash(strings.Join(parts, ", "))
}

// printPools prints the pools; wide adds the starts the last scheduling
// pass reserved and the backfill window they leave.
func printPools(w io.Writer, pools []api.Pool, wide bool) error {
	header := poolsColumns[:8]
	if wide {
		header = poolsColumns
	}
	t := newTable(w, header...)
	for _, p := range pools {
		var opts []string
		if p.Preemption {
			opts = append(opts, "preemption")
		}
		if p.Backfill {
			opts = append(opts, "backfill")
		}
		if p.Placement != "" {
			opts = append(opts, p.Placement)
		}
		row := []string{p.Name, p.Policy, orDash(strings.Join(opts, ",")), exactDuration(p.GraceS),
			poolNodesText(p), fmt.Sprintf("%d/%d", p.Used+guestGPUs(p), p.Slots), strconv.Itoa(p.QueuedJobs), strconv.Itoa(p.RunningTasks)}
		if wide {
			row = append(row, reservationsText(p.Reservations), windowText(p.BackfillWindow))
		}
		t.row(row...)
	}
	if err := t.flush(); err != nil {
		return err
	}
	return printPoolNotes(w, pools)
}

// guestGPUs is what jobs of other pools hold on p's nodes (api.Pool.Guests),
// which SLOTS counts as used: the pool's jobs cannot get them.
func guestGPUs(p api.Pool) int {
	n := 0
	for _, g := range p.Guests {
		n += g.GPUs
	}
	return n
}

// poolsColumns are the columns of allot pools -o wide, which --columns
// may name; without -o wide the first eight.
var poolsColumns = []string{"NAME", "POLICY", "OPTIONS", "GRACE", "NODES", "SLOTS", "QUEUED", "RUNNING",
	"RESERVATIONS", "BACKFILL WINDOW"}

// poolNodesText is a pool's NODES: the nodes up, with how many of them
// are drained, and the nodes lost or left, which are not among them nor
// in SLOTS: "2", "2 (1 drained)", "1 (+1 lost)", "0 (+1 lost, +1 left)".
func poolNodesText(p api.Pool) string {
	var parts []string
	if p.DrainedNodes > 0 {
		parts = append(parts, strconv.Itoa(p.DrainedNodes)+" drained")
	}
	if p.LostNodes > 0 {
		parts = append(parts, "+"+strconv.Itoa(p.LostNodes)+" lost")
	}
	if p.LeftNodes > 0 {
		parts = append(parts, "+"+strconv.Itoa(p.LeftNodes)+" left")
	}
	if len(parts) == 0 {
		return strconv.Itoa(p.Nodes)
	}
	return strconv.Itoa(p.Nodes) + " (" + strings.Join(parts, ", ") + ")"
}

// printPoolNotes explains, under the pools' table, the rows that read
// like a fault: a pool whose jobs run on nodes a reload moved to other
// pools (SLOTS "1/0": they hold GPUs there, not in the pool), the pool
// such a node moved into (SLOTS counts those GPUs as used), one with
// nodes lost or left while jobs wait (their slots are not in SLOTS, and
// a job only they could hold waits for them), and one with no node up
// whose jobs wait (they wait until a node joins it, not for others to
// end); and, first, a master whose scheduling passes fail.
func printPoolNotes(w io.Writer, pools []api.Pool) error {
	var notes []string
	if len(pools) > 0 && pools[0].SchedulerError != "" {
		notes = append(notes, "the master's scheduling passes fail, so no pool schedules (queued jobs stay queued "+
			"whatever their reasons and ETAs say): "+pools[0].SchedulerError+"; see the master's log and /healthz")
	}
	for _, p := range pools {
		if len(p.Elsewhere) > 0 {
			on := make([]string, len(p.Elsewhere))
			for i, n := range p.Elsewhere {
				on[i] = n.Node + " (now in " + n.Pool + ")"
			}
			notes = append(notes, fmt.Sprintf("%s: its jobs run on %s, moved out of the pool by a configuration reload; "+
				"SLOTS counts the GPUs they hold there", p.Name, strings.Join(on, ", ")))
		}
		if len(p.Guests) > 0 {
			held := make([]string, len(p.Guests))
			for i, g := range p.Guests {
				held[i] = fmt.Sprintf("%s's jobs hold %s on %s", g.Pool, plural.Count(g.GPUs, "GPU"), g.Node)
			}
			notes = append(notes, fmt.Sprintf("%s: %s, moved into the pool by a configuration reload while they ran there; "+
				"SLOTS counts them as used", p.Name, strings.Join(held, ", ")))
		}
		if p.WaitingTasks > 0 {
			// QUEUED counts queued jobs, as allot jobs -t queued lists
			// them; a running experiment's trials still waiting are in
			// no list of queued jobs (trial 2026-11-29i I1).
			notes = append(notes, fmt.Sprintf("%s: %s %s to start in running jobs (an experiment's trials, an array's tasks), "+
				"not counted in QUEUED", p.Name, plural.Count(p.WaitingTasks, "task"), map[bool]string{true: "waits", false: "wait"}[p.WaitingTasks == 1]))
		}
		if away := p.LostNodes + p.LeftNodes; away > 0 && p.QueuedJobs+p.WaitingTasks > 0 {
			its, they, them := "its", "it", "it"
			if away > 1 {
				its, they, them = "their", "they", "them"
			}
			notes = append(notes, fmt.Sprintf("%s: %s %s not up (lost or left); %s slots are not in SLOTS, and a job only %s could hold waits for %s to come back (allot nodes says since when)",
				p.Name, plural.Count(away, "node"), plural.Be(away), its, they, them))
		}
		if p.Nodes == 0 && p.QueuedJobs > 0 {
			notes = append(notes, fmt.Sprintf("%s: no node is up in the pool; its %s %s until one is",
				p.Name, plural.Count(p.QueuedJobs, "queued job"), map[bool]string{true: "waits", false: "wait"}[p.QueuedJobs == 1]))
		}
	}
	if len(notes) == 0 {
		return nil
	}
	_, err := fmt.Fprintln(w, "\n"+strings.Join(notes, "\n"))
	return err
}

// reservationsText renders "job 5 at 14:00 (8 slots), job 7 at 15:30 (2 slots)".
func reservationsText(rs []api.Reservation) string {
	var parts []string
	for _, r := range rs {
		what := plural.Count(r.Slots, "slot")
		if r.License != "" {
			what += ", license " + r.License
		}
		parts = append(parts, fmt.Sprintf("job %d at %s (%s)", r.Job, formatTime(&r.Start), what))
	}
	return orDash(strings.Join(parts, ", "))
}

// windowText renders "2 slots for 1h 20m", or "2 slots" with no end.
func windowText(bw *api.BackfillWindow) string {
	if bw == nil {
		return "-"
	}
	s := plural.Count(bw.Slots, "slot")
	if bw.Until != nil {
		s += " for " + sched.HumanDuration(bw.Seconds)
	}
	return s
}

// printProjects prints the projects. QUOTA applies only in quota pools,
// each on its own, so IN QUOTA POOLS gives the use there (pool by pool
// when there are several) and OVER the excess in the most over-quota
// pool; USED counts every pool. MAX PRIORITY is the most important
// priority class its members' jobs may take (projectCap). Wide adds the
// QOS levels its jobs may name.
func printProjects(w io.Writer, projects []api.Project, wide bool) error {
	header := projectsColumns[:11]
	if wide {
		header = projectsColumns
	}
	t := newTable(w, header...)
	for _, p := range projects {
		limit := "-"
		if p.Limit > 0 {
			limit = strconv.Itoa(p.Limit)
		}
		over := "-"
		if p.OverQuota > 0 {
			over = strconv.Itoa(p.OverQuota)
		}
		row := []string{p.Name, orDash(p.Parent), strconv.Itoa(p.Quota), strconv.Itoa(p.Used), quotaPoolUse(p.QuotaPools), over, limit,
			strconv.FormatFloat(p.OverQuotaWeight, 'g', -1, 64), strconv.Itoa(p.QueuedJobs), strconv.Itoa(p.RunningTasks), projectCap(p)}
		if wide {
			row = append(row, projectQOS(p))
		}
		t.row(row...)
	}
	return t.flush()
}

// projectsColumns are the columns of allot projects -o wide, which
// --columns may name; without -o wide all but QOS.
var projectsColumns = []string{"NAME", "PARENT", "QUOTA", "USED", "IN QUOTA POOLS", "OVER", "LIMIT", "WEIGHT",
	"QUEUED", "RUNNING", "MAX PRIORITY", "QOS"}

// quotaPoolUse renders a project's use of the quota pools: the number
// alone for one pool, pool=used for each of several, "-" for none.
func quotaPoolUse(pools []api.ProjectPoolUse) string {
	switch len(pools) {
	case 0:
		return "-"
	case 1:
		return poolHeld(pools[0])
	}
	parts := make([]string, len(pools))
	for i, p := range pools {
		parts[i] = p.Pool + "=" + poolHeld(p)
	}
	return strings.Join(parts, ",")
}

// poolHeld is what a project holds in one quota pool, with what LOW work
// borrows of it, which counts toward no quota: "6" or "6(3 borrowed)".
func poolHeld(p api.ProjectPoolUse) string {
	if p.Borrowed == 0 {
		return strconv.Itoa(p.Used)
	}
	return fmt.Sprintf("%d(%d borrowed)", p.Used, p.Borrowed)
}

// projectCap renders a project's max_priority_class: "-" for none (every
// class), "NORMAL", or "NORMAL (org's)" when a parent's setting caps it.
func projectCap(p api.Project) string {
	if p.MaxPriorityClass == "" {
		return "-"
	}
	if p.MaxPriorityClassFrom != "" {
		return p.MaxPriorityClass + " (" + p.MaxPriorityClassFrom + "'s)"
	}
	return p.MaxPriorityClass
}

// projectQOS renders the QOS levels a project's jobs may name: "any",
// "normal,high", or "normal,high (org's)" for a parent's list.
func projectQOS(p api.Project) string {
	if len(p.QOS) == 0 {
		return "any"
	}
	s := strings.Join(p.QOS, ",")
	if p.QOSFrom != "" {
		s += " (" + p.QOSFrom + "'s)"
	}
	return s
}
