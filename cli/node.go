package cli

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

func newNodeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "node",
		Short: "List nodes; drain, resume and delete them (admins)",
		Long: `Take a node out of service and back. A drained node starts no new task;
the tasks running there finish (they are not preempted for other jobs
either), and "allot nodes" shows it draining, then drained once it is
empty. The drain and its reason are stored, so a master restart or the
agent registering again keeps the node drained until "allot node resume".
"allot node delete" forgets a node on which nothing runs; stop its agent
first, as an agent that registers again comes back as a new node.`,
	}
	var reason string
	drain := nodeCommand("drain NAME", "Stop new tasks from starting on a node; running ones finish",
		"  allot node drain dgx-3 --reason \"replace PSU\"\n  allot nodes    # dgx-3 up,draining, then up,drained",
		func(ctx context.Context, c *client.Client, name string) (api.Node, error) {
			return c.DrainNode(ctx, name, reason)
		})
	drain.PreRunE = func(*cobra.Command, []string) error {
		if strings.TrimSpace(reason) == "" {
			return usageErrorf("--reason: say why the node is drained (allot nodes shows it)")
		}
		return nil
	}
	drain.Flags().StringVar(&reason, "reason", "", "why the node is drained (required; shown by allot nodes)")
	resume := nodeCommand("resume NAME", "Make a drained node schedulable again", "  allot node resume dgx-3",
		func(ctx context.Context, c *client.Client, name string) (api.Node, error) {
			return c.ResumeNode(ctx, name)
		})
	resume.SuggestFor = []string{"undrain", "uncordon"}
	var revoke bool
	del := &cobra.Command{
		Use:   "delete NAME",
		Short: "Forget a node on which nothing runs",
		Long: `Forget a node on which nothing runs; a node that still runs tasks is
refused, with the tasks named. An agent that still runs registers again
at its next sync, with its node credential, as a new node: the answer
says so when the agent was heard recently, with the token to revoke.
--revoke also revokes the node's credential, in the same change, so that
its agent is refused from its next request on (it then kills at once,
with no checkpoint grace, any task it still runs there, and sends
nothing more). An agent that also holds a live join token can join again
with it: the answer names that token, to revoke too if no other host
needs it.`,
		Example: "  allot node drain dgx-3 --reason retire && allot node delete dgx-3\n" +
			"  allot node delete --revoke dgx-3    # a suspect host: keep its agent out",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeNodeArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			return mutate(cmd, func(ctx context.Context, c *client.Client) (string, error) {
				d, err := c.DeleteNode(ctx, args[0], revoke)
				if err != nil {
					return "", err
				}
				return deletedNodeWords(d, revoke), nil
			})
		},
	}
	del.Flags().BoolVar(&revoke, "revoke", false, "also revoke the node's credential, so that its agent cannot register again with it")
	cmd.AddCommand(listAlias(newNodesCmd(), "nodes"), drain, resume, del)
	return cmd
}

// nodeCommand builds a node subcommand that takes a node name and -o, and
// prints the node that do returns.
func nodeCommand(use, short, example string, do func(ctx context.Context, c *client.Client, name string) (api.Node, error)) *cobra.Command {
	var out outputFlag
	cmd := &cobra.Command{
		Use:               use,
		Short:             short,
		Example:           example,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeNodeArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.check(); err != nil {
				return err
			}
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			ctx, cancel := requestContext(cmd)
			defer cancel()
			n, err := do(ctx, c, args[0])
			if err != nil {
				return err // the master's error names the node
			}
			w := cmd.OutOrStdout()
			if done, err := out.structured(w, n); done {
				return err
			}
			return printNodes(w, []api.Node{n}, out.wide())
		},
	}
	out.register(cmd)
	return cmd
}

// completeNodeArg completes a node name as the first argument.
func completeNodeArg(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, noFiles
	}
	return completeNodes(cmd, args, toComplete)
}

// deletedNodeWords is what node delete prints: the deletion, then the
// master's note on the node's agent (what keeps it out).
func deletedNodeWords(d api.DeletedNode, revoke bool) string {
	msg := "Deleted node " + d.Name
	switch {
	case d.Note != "":
		msg += "\n" + d.Note
	case revoke:
		// A master from before --revoke deletes and ignores it.
		msg += "\nThe master did not say that it revoked the node's credential (it may be older than --revoke): " +
			"find the credential with allot token list --kind node and revoke it with allot token revoke ID."
	}
	return msg
}
