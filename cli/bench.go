package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

// benchFlags are the settings of allot bench live.
type benchFlags struct {
	master, token, join string
	masterPID           int
	db, data            string
	pool                string
	agents, gpus        int
	jobs, slots         int
	rate                float64
	submitters          int
	taskTime            time.Duration
	syncWait            int
	timeout             time.Duration
	json                bool
}

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure a live master under load",
	}
	cmd.AddCommand(newBenchLiveCmd())
	return cmd
}

func newBenchLiveCmd() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "live",
		Short: "Load a real master with simulated agents and a submitter, and report what it sustained",
		Long: `Load a real master with simulated agents and a submitter, and report
submit throughput and latency, the time from submission to start, the drain
rate (task starts and exits per second), the master's CPU time and memory
(peak, at the end, and sampled every 2 s), and the store's size.

Without --master, the command starts 'allot master' as a child process on
a free local port, with SQLite in --data (a temporary directory unless
given) or the store of --db, and stops it at the end; its CPU time and
resident memory come from /proc. With --master it loads a running
master instead: --token is an admin's API token (it makes a join token
for the agents unless --join-token is given), and --master-pid names the
master's process for CPU and memory.

The agents run in this process and speak the real agent protocol (long
polls, and a sync that does not wait for each new report, as allot agent
does); their tasks are fake: each "runs" for --task-time and completes.
Each job asks for --slots GPUs. The submitter sends --jobs jobs from
--submitters concurrent clients, at --rate per second (0: as fast as
they go). The run ends when every accepted job has ended, or fails after
--timeout. See docs/performance.md for figures.`,
		Example: `  allot bench live --agents 100 --jobs 10000 --task-time 2s
  allot bench live --agents 1000 --jobs 100000 --rate 1000 --db postgres://allot@db/bench
  allot bench live --master https://allot:8080 --token "$ALLOT_TOKEN" --master-pid 4242 --agents 50`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runBenchLive(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.master, "master", "", "URL of a running master to load (default: start one)")
	fl.StringVar(&f.token, "token", "", "an admin's API token for --master (default $"+TokenEnv+")")
	fl.StringVar(&f.join, "join-token", "", "join token for the agents with --master (default: make one with --token)")
	fl.IntVar(&f.masterPID, "master-pid", 0, "process id of the --master, for its CPU time and peak memory")
	fl.StringVar(&f.db, "db", "", "database URL of the master started: sqlite://PATH or postgres://...")
	fl.StringVar(&f.data, "data", "", "data directory of the master started (default: a temporary one, removed at the end)")
	fl.StringVar(&f.pool, "pool", "default", "pool of the simulated agents")
	fl.IntVar(&f.agents, "agents", 100, "simulated agents")
	fl.IntVar(&f.gpus, "gpus", 8, "GPUs per agent")
	fl.IntVar(&f.jobs, "jobs", 1000, "jobs to submit")
	fl.IntVar(&f.slots, "slots", 1, "GPUs per job")
	fl.Float64Var(&f.rate, "rate", 0, "submissions per second; 0 means as fast as the submitters go")
	fl.IntVar(&f.submitters, "submitters", 8, "concurrent submitting clients")
	fl.DurationVar(&f.taskTime, "task-time", time.Second, "how long each fake task runs")
	fl.IntVar(&f.syncWait, "sync-wait", 10, "seconds the agents ask the master to hold a sync")
	fl.DurationVar(&f.timeout, "timeout", 10*time.Minute, "the longest the run may take")
	fl.BoolVar(&f.json, "json", false, "print the report as JSON")
	return cmd
}

func (f benchFlags) check() error {
	switch {
	case f.agents < 1 || f.gpus < 1 || f.jobs < 1 || f.slots < 1 || f.submitters < 1:
		return usageErrorf("--agents, --gpus, --jobs, --slots and --submitters: expected values >= 1")
	case f.slots > f.gpus:
		return usageErrorf("--slots %d: expected at most --gpus (%d): jobs run on one node", f.slots, f.gpus)
	case f.rate < 0 || f.taskTime < 0 || f.syncWait < 0 || f.timeout <= 0:
		return usageErrorf("--rate, --task-time and --sync-wait: expected values >= 0, --timeout > 0")
	case f.master != "" && (f.db != "" || f.data != ""):
		return usageErrorf("--db and --data configure the master this command starts: not with --master")
	case f.master == "" && f.masterPID != 0:
		return usageErrorf("--master-pid: only with --master")
	}
	return checkDB("--db", f.db)
}

// benchTarget is the master under load: its address, the tokens, and
// where to read its process and store figures.
type benchTarget struct {
	url, token, join string
	pid              int
	backend          string
	storeSize        func(context.Context) (int64, error)
	stop             func() error
}

func runBenchLive(ctx context.Context, stdout, stderr io.Writer, f benchFlags) error {
	if err := f.check(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	var t *benchTarget
	var err error
	if f.master != "" {
		t, err = connectBenchMaster(ctx, f)
	} else {
		t, err = startBenchMaster(ctx, stderr, f)
	}
	if err != nil {
		return err
	}
	rep, runErr := runBench(ctx, t, f)
	if t.stop != nil {
		if err := t.stop(); err != nil && runErr == nil {
			runErr = fmt.Errorf("stop the master: %w", err)
		}
	}
	if rep == nil {
		return runErr
	}
	if err := rep.print(stdout, f.json); err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	return rep.check()
}

// connectBenchMaster prepares the load of a running master.
func connectBenchMaster(ctx context.Context, f benchFlags) (*benchTarget, error) {
	// The client's reading of the address is the one of every command:
	// host:port, and a URL ending in /api/v1, name the master's root.
	cl, err := client.New(f.master, nil)
	if err != nil {
		return nil, usageErrorf("--master: %w", err)
	}
	t := &benchTarget{url: cl.Addr(), token: f.token, join: f.join, pid: f.masterPID, backend: "unknown (--master)"}
	if t.token == "" {
		t.token = strings.TrimSpace(os.Getenv(TokenEnv))
	}
	if t.token == "" {
		return nil, usageErrorf("--token: an admin's API token is needed with --master (or $%s)", TokenEnv)
	}
	if t.join == "" {
		tok, err := cl.WithToken(t.token).Identity().CreateToken(ctx, api.NewToken{Kind: "join", Note: "allot bench live", TTLS: 3600})
		if err != nil {
			return nil, fmt.Errorf("make a join token for the agents: %w", err)
		}
		t.join = tok.Secret
	}
	return t, nil
}

// startBenchMaster starts `allot master` (this executable) as a child
// process, so that its CPU time and memory are its own, not the agents'.
func startBenchMaster(ctx context.Context, stderr io.Writer, f benchFlags) (*benchTarget, error) {
	data, temp := f.data, false
	if data == "" {
		d, err := os.MkdirTemp("", "allot-bench-")
		if err != nil {
			return nil, fmt.Errorf("data directory: %w", err)
		}
		data, temp = d, true
	}
	data, err := filepath.Abs(data)
	if err != nil {
		return nil, fmt.Errorf("--data: %w", err)
	}
	addr, err := freeLocalAddr()
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this executable to start the master: %w", err)
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		return nil, fmt.Errorf("--data: %w", err)
	}
	logf, err := os.Create(filepath.Join(data, "bench-master.log"))
	if err != nil {
		return nil, fmt.Errorf("the master's log: %w", err)
	}
	// The agents hold a long poll and may send a report at the same time;
	// the submitters and the report's queries need a few more.
	args := []string{"master", "--data", data, "--listen", addr, "--log-level", "warn",
		"--max-conns", fmt.Sprint(max(4096, 2*f.agents+f.submitters+64))}
	if f.db != "" {
		args = append(args, "--db", f.db)
	}
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start the master: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); logf.Close() }()
	t := &benchTarget{url: "http://" + addr, pid: cmd.Process.Pid, backend: backendName(f.db)}
	t.storeSize = func(ctx context.Context) (int64, error) { return storeSize(ctx, f.db, data) }
	t.stop = func() error {
		cmd.Process.Signal(syscall.SIGTERM)
		err := <-exited
		if temp {
			os.RemoveAll(data)
		}
		return err
	}
	if err := t.awaitMaster(ctx, data, exited); err != nil {
		cmd.Process.Kill()
		<-exited
		fmt.Fprintf(stderr, "the master's log is in %s\n", logf.Name())
		return nil, err
	}
	return t, nil
}

// awaitMaster waits for the started master to answer and to leave its
// first admin's token, then makes the agents' join token with it.
func (t *benchTarget) awaitMaster(ctx context.Context, data string, exited chan error) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		raw, err := os.ReadFile(filepath.Join(data, AdminTokenFile))
		if err == nil && len(raw) > 0 {
			if resp, herr := http.Get(t.url + "/healthz"); herr == nil {
				resp.Body.Close()
				t.token = strings.TrimSpace(string(raw))
				break
			}
		}
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("the master stopped at start: %v (its log is bench-master.log in the data directory)", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return errors.New("the master did not answer within 60 s")
		}
	}
	cl, err := client.New(t.url, nil)
	if err != nil {
		return err
	}
	tok, err := cl.WithToken(t.token).Identity().CreateToken(ctx, api.NewToken{Kind: "join", Note: "allot bench live"})
	if err != nil {
		return fmt.Errorf("make a join token for the agents: %w", err)
	}
	t.join = tok.Secret
	return nil
}

// freeLocalAddr picks a free port on the loopback interface.
func freeLocalAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func backendName(db string) string {
	if strings.HasPrefix(db, "postgres") {
		return "postgres"
	}
	return "sqlite"
}
