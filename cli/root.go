package cli

import (
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/version"
)

// New builds the root command.
func New() *cobra.Command {
	root := &cobra.Command{
		Use:           "allot",
		Short:         "Allot schedules work on shared GPU clusters",
		Long:          "Allot is a scheduler and workload manager for shared GPU clusters.\nIt runs the same scheduling core live and in a discrete-event simulator.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.String(),
	}
	root.SetVersionTemplate("allot {{.Version}}\n")
	addMasterFlag(root)
	root.AddCommand(newSimCmd())
	root.AddCommand(newMasterCmd())
	root.AddCommand(newConfigCmd())
	root.AddCommand(newSubmitCmd(), newJobsCmd(), newJobCmd(), newExperimentCmd(), newNodesCmd(), newNodeCmd(), newPoolsCmd(), newProjectsCmd())
	root.AddCommand(newAgentCmd())
	root.AddCommand(newK8sSchedulerCmd())
	root.AddCommand(newK8sDevCmd())
	root.AddCommand(newK8sAgentCmd())
	root.AddCommand(newDevCmd(), newBenchCmd())
	root.AddCommand(newVersionCmd())
	audit := newAuditCmd()
	registerNoHeaders(audit) // its table is runOne's, which reads the flag
	root.AddCommand(newLoginCmd(), newLogoutCmd(), newWhoamiCmd(), newUserCmd(), newTokenCmd(), audit)
	root.AddCommand(newUsageCmd(), newHistoryCmd(), newFairnessCmd(), newExplainCmd())
	root.AddCommand(newPrioritiesCmd())
	markUsageErrors(root)
	return root
}

// parseSeconds reads a duration given as whole seconds, a Go duration
// string such as 90m, or whole days such as 7d (as --since takes them).
func parseSeconds(flag, v string) (int64, error) {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, usageErrorf("--%s: expected a duration >= 0, got %q", flag, v)
		}
		return n, nil
	}
	if days, ok := strings.CutSuffix(v, "d"); ok {
		if n, err := strconv.ParseInt(days, 10, 64); err == nil && n >= 0 && n <= 36500 {
			return n * 86400, nil
		}
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d%time.Second != 0 {
		return 0, usageErrorf("--%s: expected whole seconds or a duration such as 90m or 7d, got %q", flag, v)
	}
	return int64(d / time.Second), nil
}
