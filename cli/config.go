package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/master"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/spec"
)

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Work with the master's configuration file",
	}
	var checkFile string
	check := &cobra.Command{
		Use:   "check FILE",
		Short: "Validate a master configuration file",
		Long: `Parse and validate a master configuration file (pools, nodes, projects,
users) without starting anything. Prints "FILE: ok" with a count of what
it defines, or every problem found with its line; the exit status is 1
when the file has errors. A setting that is valid but works against the
cluster (an agent_timeout too short for the agents' fence, judged with
the master's and agents' default settings; a decay half_life shorter
than its period, which decays usage only at each period's end) gets a
"warning:" line on stderr, as the master's start and a reload log it;
the status stays 0.
docs/config.md describes the format.`,
		Example: "  allot config check examples/cluster.yaml\n  allot config check --config examples/cluster.yaml   # as allot master takes it",
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case checkFile != "" && len(args) > 0:
				return usageErrorf("give the file once: as an argument or as --config, not both")
			case checkFile == "" && len(args) != 1:
				return usageErrorf("expected the configuration FILE, as an argument (or --config FILE, as allot master takes it)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			path := checkFile
			if path == "" {
				path = args[0]
			}
			return runConfigCheck(cmd.OutOrStdout(), cmd.ErrOrStderr(), path)
		},
	}
	// allot master takes the file as --config: a newcomer copies it.
	check.Flags().StringVar(&checkFile, "config", "", "the configuration file, as allot master --config takes it (or give it as an argument)")
	cmd.AddCommand(check)
	cmd.AddCommand(newConfigReloadCmd())
	return cmd
}

// newConfigReloadCmd is allot config reload.
func newConfigReloadCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "reload",
		Short: "Ask the master to re-read its configuration file (admins)",
		Long: `Ask the running master to re-read its configuration file. A file with
errors is refused as a whole, and the master keeps running with the
configuration it has; the error names the file, line and field. A reload
that is taken says what it changed in the pools' scheduling settings,
the projects', the licenses' totals, the QOS levels, default_qos and the
usage decay ("changed pool hpc: reservations easy → conservative",
"changed license matlab: total 1 → 0", "removed qos high"); the what-if
export notes such changes in its window (allot history check). A reload
that drops a pool, project, license or QOS level that live jobs use is
refused, naming them; warnings (on stderr) name live jobs the reload
leaves waiting or running under settings they no longer meet.`,
		Example: "  allot config reload --master http://master:8080",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			ctx, cancel := requestContext(cmd)
			defer cancel()
			r, err := c.ReloadConfig(ctx)
			if err != nil {
				return err
			}
			if _, err := fmt.Fprintln(cmd.OutOrStdout(), "configuration reloaded"); err != nil {
				return err
			}
			for _, ch := range r.Changes {
				if _, err := fmt.Fprintln(cmd.OutOrStdout(), "  "+spec.Done(ch)); err != nil {
					return err
				}
			}
			for _, w := range r.Warnings {
				if _, err := fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+w); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// runConfigCheck checks the configuration file at path: ok to out, or
// its error; a warning of what the master would warn of at its start to
// errOut, for a master and agents with their default settings.
func runConfigCheck(out, errOut io.Writer, path string) error {
	c, err := config.Load(path)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%s: ok (%s, %s, %s)\n", path,
		plural.Count(len(c.Pools), "pool"), plural.Count(len(c.Projects), "project"), plural.Count(len(c.Users), "user"))
	if err != nil {
		return err
	}
	for _, w := range master.ConfigWarnings(path, c, master.DefaultSyncWait) {
		if _, err := fmt.Fprintln(errOut, "warning: "+w); err != nil {
			return err
		}
	}
	return nil
}
