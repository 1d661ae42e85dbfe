package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/version"
)

func newVersionCmd() *cobra.Command {
	var out outputFlag
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of this allot binary",
		Long: `Print the version of this allot binary, its VCS commit and the Go
release that built it, for bug reports. allot --version prints the version
alone. The master reports its own version on /healthz and in the
X-Allot-Version header of every response; 'allot nodes -o wide' shows each
agent's.`,
		Example: "  allot version\n  allot version -o json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := out.check(); err != nil {
				return err
			}
			info := version.Get()
			w := cmd.OutOrStdout()
			if done, err := out.structured(w, info); done {
				return err
			}
			fmt.Fprintf(w, "allot %s\n", info.Version)
			if info.Revision != "" {
				dirty := ""
				if info.Modified {
					dirty = " (modified)"
				}
				fmt.Fprintf(w, "commit: %s%s %s\n", info.Revision, dirty, info.Time)
			}
			_, err := fmt.Fprintf(w, "go: %s\n", info.Go)
			return err
		},
	}
	out.register(cmd)
	return cmd
}
