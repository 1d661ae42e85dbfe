package cli

import (
	"context"
	"fmt"
	"math"
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

// addMasterFlag gives the root command the persistent --master flag
// shared by every command that talks to a master.
func addMasterFlag(root *cobra.Command) {
	root.PersistentFlags().String("master", "",
		fmt.Sprintf("the master's URL or host:port (default: $%s, else %s)", MasterEnv, DefaultMaster))
}

// masterAddr is --master when given, else $ALLOT_MASTER, else the default.
func masterAddr(cmd *cobra.Command) string {
	if f := cmd.Flag("master"); f != nil && f.Changed {
		return f.Value.String()
	}
	if v := strings.TrimSpace(os.Getenv(MasterEnv)); v != "" {
		return v
	}
	return DefaultMaster
}

// newClient returns a client for the master the command names.
func newClient(cmd *cobra.Command) (*client.Client, error) {
	addr := masterAddr(cmd)
	c, err := client.New(addr, nil)
	if err != nil {
		return nil, fmt.Errorf("--master or %s: %w", MasterEnv, err)
	}
	return c, nil
}

// requestContext bounds one request of a client command.
func requestContext(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return context.WithTimeout(cmd.Context(), requestTimeout)
}

// parseJobID reads a job id argument.
func parseJobID(s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("job ID: expected a positive integer, got %q", s)
	}
	return id, nil
}

// parsePriority reads a priority number or class name (any case).
func parsePriority(s string) (num int, class string, err error) {
	v := strings.TrimSpace(s)
	if n, perr := strconv.Atoi(v); perr == nil {
		if n < jobfile.MinPriority || n > jobfile.MaxPriority {
			return 0, "", fmt.Errorf("priority: expected %d to %d (lower is more important), got %d", jobfile.MinPriority, jobfile.MaxPriority, n)
		}
		return n, "", nil
	}
	c := jobfile.PriorityClass(strings.ToUpper(v))
	if c.Priority() == 0 {
		return 0, "", fmt.Errorf("priority: expected a number from %d to %d or one of HIGH, NORMAL, LOW, got %q", jobfile.MinPriority, jobfile.MaxPriority, s)
	}
	return 0, string(c), nil
}

// parseWeight reads a fair-share weight: a finite number > 0.
func parseWeight(s string) (float64, error) {
	w, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(w) || math.IsInf(w, 0) || w <= 0 {
		return 0, fmt.Errorf("weight: expected a number > 0, got %q", s)
	}
	return w, nil
}
