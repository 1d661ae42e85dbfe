package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/agentd"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/version"
)

type agentFlags struct {
	name      string
	pool      string
	fakeGPUs  int
	gpuType   string
	workDir   string
	labels    []string
	onExit    string
	exitGrace time.Duration
	logLevel  string
	logFormat string
	logJSON   bool // the deprecated --log-json (registerLogFlags)
	joinFile  string
}

// JoinTokenEnv names the environment variable with an agents' join token.
const JoinTokenEnv = "ALLOT_JOIN_TOKEN"

func newAgentCmd() *cobra.Command {
	var f agentFlags
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run the node agent: register this node's GPUs with the master and run its tasks",
		Long: `Run the node agent. It registers the node's GPUs with the master, then
syncs with it in a loop: it starts, preempts and kills task attempts as
the master says, reports how they run and end, and streams their output.
It keeps tasks running while the master is unreachable and reconnects.

GPUs are found with nvidia-smi. On a machine without an NVIDIA driver,
--fake-gpus N declares N fake GPUs (0 for a CPU-only node) of --gpu-type.

On SIGINT or SIGTERM the agent stops taking commands and, with --on-exit
kill (the default), asks every task to checkpoint, kills it after
--exit-grace, and reports the exits before it exits. With --on-exit keep
the tasks are left running, unreported; the next agent started on the
same --work-dir adopts them (the master ends them as lost if the node is
silent for its agent_timeout first, and the next agent then kills them at
its word; under a master that fences, their task shims stop them at the
fence's time if no agent has heard the master by then). A second SIGINT or
SIGTERM exits at once, as --on-exit keep would. See docs/agent.md.`,
		Example: `  allot agent --master http://127.0.0.1:8080 --name gpu-01 --pool a100
  allot agent --name dev-1 --fake-gpus 4 --gpu-type h100 --label rack=r1 --work-dir /tmp/dev-1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := stopOnSignals(cmd, "tasks may be left running; the next allot agent on the same --work-dir adopts them")
			defer stop()
			cfg, err := f.config(ctx, cmd)
			if err != nil {
				return err
			}
			a, err := agentd.New(cfg)
			if err != nil {
				return err
			}
			return a.Run(ctx)
		},
	}
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	fl := cmd.Flags()
	fl.StringVar(&f.name, "name", host, "this node's name, unique in the cluster")
	fl.StringVar(&f.pool, "pool", "", "the resource pool the node joins (default: the master's default_pool)")
	fl.IntVar(&f.fakeGPUs, "fake-gpus", 0, "declare this many fake GPUs instead of detecting them with nvidia-smi")
	fl.StringVar(&f.gpuType, "gpu-type", "", "the type of the fake GPUs, e.g. h100 (default fake)")
	fl.StringVar(&f.workDir, "work-dir", "", "the agent's state and the tasks' working directories (default ~/.allot/agents/NAME)")
	fl.StringArrayVar(&f.labels, "label", nil, "a node label as key=value; repeat for more")
	fl.StringVar(&f.onExit, "on-exit", string(agentd.ExitKill), "what a stopping agent does with its tasks: kill (checkpoint, then kill) or keep")
	fl.DurationVar(&f.exitGrace, "exit-grace", 30*time.Second, "with --on-exit kill, how long tasks get to checkpoint")
	registerLogFlags(fl, &f.logLevel, &f.logFormat, &f.logJSON)
	fl.StringVar(&f.joinFile, "join-token-file", "", "a file with the join token (allot token create --join) for the node's first registration (default: $"+JoinTokenEnv+")")
	return cmd
}

// config turns the flags into the agent's configuration, detecting the
// GPUs unless fake ones are declared.
func (f *agentFlags) config(ctx context.Context, cmd *cobra.Command) (agentd.Config, error) {
	if err := f.check(cmd); err != nil {
		return agentd.Config{}, err
	}
	logger, err := newLogger(cmd.ErrOrStderr(), f.logLevel, logFormatOf(f.logFormat, f.logJSON))
	if err != nil {
		return agentd.Config{}, err
	}
	labels, err := parseLabels(f.labels)
	if err != nil {
		return agentd.Config{}, err
	}
	gpus, err := f.gpus(ctx, cmd.Flags().Changed("fake-gpus"))
	if err != nil {
		return agentd.Config{}, err
	}
	// The address rule is the client commands': a URL, or host:port.
	master, err := masterClient(cmd, nil)
	if err != nil {
		return agentd.Config{}, err
	}
	join, err := f.joinToken()
	if err != nil {
		return agentd.Config{}, err
	}
	ca := flagCA(cmd)
	hc, err := client.HTTPClient(ca)
	if err != nil {
		return agentd.Config{}, fmt.Errorf("--ca or %s: %w", CAEnv, err)
	}
	workDir := f.workDir
	if workDir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return agentd.Config{}, fmt.Errorf("--work-dir not given and no home directory for the default: %w", err)
		}
		workDir = filepath.Join(home, ".allot", "agents", f.name)
	}
	if _, err := os.Stat(filepath.Join(workDir, agentd.CredentialFileName)); join == "" && err != nil {
		return agentd.Config{}, fmt.Errorf("node %s has no credential in %s yet: give a join token with --join-token-file or $%s "+
			"(an admin makes one with: allot token create --join)", f.name, workDir, JoinTokenEnv)
	}
	return agentd.Config{
		Master:    master.Addr(),
		Name:      f.name,
		Pool:      f.pool,
		Labels:    labels,
		GPUs:      gpus,
		WorkDir:   workDir,
		OnExit:    agentd.OnExit(f.onExit),
		ExitGrace: f.exitGrace,
		Version:   version.String(),
		Logger:    logger,
		JoinToken: join,
		Client:    hc,
		Runner:    agent.Runner{Shim: taskShim()},
	}, nil
}

// check validates the flags' own values, each naming its flag, before
// anything is looked at (GPUs, credentials, the master): a wrong command
// line is reported as such, not as what it would have led to.
func (f *agentFlags) check(cmd *cobra.Command) error {
	// The master's rule for node names, which it applies at registration.
	if err := auth.CheckName("--name", f.name); err != nil {
		return asUsage(err)
	}
	if f.onExit != string(agentd.ExitKill) && f.onExit != string(agentd.ExitKeep) {
		return usageErrorf("--on-exit: expected %s or %s, got %q", agentd.ExitKill, agentd.ExitKeep, f.onExit)
	}
	if f.exitGrace < 0 {
		return usageErrorf("--exit-grace: expected a duration >= 0, got %v", f.exitGrace)
	}
	if cmd.Flags().Changed("fake-gpus") && f.fakeGPUs < 0 {
		return usageErrorf("--fake-gpus: expected a count >= 0, got %d", f.fakeGPUs)
	}
	if _, err := newLogger(io.Discard, f.logLevel, logFormatOf(f.logFormat, f.logJSON)); err != nil {
		return err
	}
	_, err := parseLabels(f.labels)
	return err
}

// taskShim is this binary, which runs as a task shim when called with
// agent.ShimArg (cmd/allot), so that tasks' exit statuses outlive the
// agent; "" (no shim) when the binary cannot be found.
func taskShim() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}

// joinToken reads --join-token-file, else $ALLOT_JOIN_TOKEN; none is fine
// for a node that already holds its credential.
func (f *agentFlags) joinToken() (string, error) {
	if f.joinFile != "" {
		return readTokenFile("--join-token-file", f.joinFile)
	}
	return strings.TrimSpace(os.Getenv(JoinTokenEnv)), nil
}

// gpus returns the declared fake inventory, or what nvidia-smi lists.
// Only a missing nvidia-smi suggests the fake inventory: any other
// failure is a driver problem on a machine that may well have GPUs.
func (f *agentFlags) gpus(ctx context.Context, fake bool) ([]agent.GPU, error) {
	if fake { // a negative count is refused by check
		return agent.Fake(f.fakeGPUs, f.gpuType), nil
	}
	if f.gpuType != "" {
		return nil, usageErrorf("--gpu-type applies to fake GPUs only; give --fake-gpus too (detected GPUs carry their own type)")
	}
	gpus, err := agent.Detect(ctx)
	if errors.Is(err, agent.ErrNoNvidiaSMI) {
		return nil, fmt.Errorf("%w: this machine has no NVIDIA driver; pass --fake-gpus N to declare N fake GPUs (0 for a CPU-only node)", err)
	}
	return gpus, err
}

// parseLabels reads key=value flags.
func parseLabels(flags []string) (map[string]string, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	labels := make(map[string]string, len(flags))
	for _, kv := range flags {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, usageErrorf("--label %q: expected key=value", kv)
		}
		if _, dup := labels[k]; dup {
			return nil, usageErrorf("--label %q: label %s given twice", kv, k)
		}
		labels[k] = v
	}
	return labels, nil
}

// registerLogFlags registers the log flags that the master and the agent
// share: --log-level, --log-format text|json, and --log-json, the
// master's old spelling of --log-format json, kept as a deprecated alias
// (hidden from the help; cobra says so when it is used).
func registerLogFlags(fl *pflag.FlagSet, level, format *string, asJSON *bool) {
	fl.StringVar(level, "log-level", "info", "log level: debug, info, warn or error")
	fl.StringVar(format, "log-format", "text", "log format: text or json (JSON lines)")
	fl.BoolVar(asJSON, "log-json", false, "the same as --log-format json")
	_ = fl.MarkDeprecated("log-json", "use --log-format json")
}

// logFormatOf is the log format that --log-format and the deprecated
// --log-json ask for: json with --log-json, else format ("" is text).
func logFormatOf(format string, asJSON bool) string {
	switch {
	case asJSON:
		return "json"
	case format == "":
		return "text"
	}
	return format
}

// newLogger builds a daemon's structured logger (agent, master, dev).
func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, usageErrorf("--log-level: expected debug, info, warn or error, got %q", level)
	}
	opts := &slog.HandlerOptions{Level: lvl}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usageErrorf("--log-format: expected text or json, got %q", format)
}
