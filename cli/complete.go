package cli

import "github.com/spf13/cobra"

func registerJobsCompletion(cmd *cobra.Command) {}
