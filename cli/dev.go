package cli

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/agentd"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/master"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/version"
	"github.com/allot-sched/allot/web"
)

// devConfigYAML is the dev cluster's configuration. It goes through
// config.Parse like an administrator's file, so that it obeys every rule
// a real master's file does.
//
//go:embed dev.yaml
var devConfigYAML []byte

// devNode is one in-process agent of the dev cluster. Its pool is pinned
// by the nodes section of dev.yaml.
type devNode struct {
	name    string
	pool    string
	gpus    int
	gpuType string
}

// devNodes are the dev cluster's agents, one in each pool.
var devNodes = []devNode{
	{name: "dev-1", pool: "default", gpus: 8, gpuType: "h100"},
	{name: "dev-2", pool: "batch", gpus: 4, gpuType: "a100"},
	{name: "dev-3", pool: "shared", gpus: 4, gpuType: "l40s"},
}

// Timeouts of the dev cluster.
const (
	// devExitGrace is how long tasks get to checkpoint when the cluster
	// stops; the default pool gives preempted tasks as long.
	devExitGrace = 10 * time.Second
	// devReadyTimeout bounds the wait for every agent to register.
	devReadyTimeout = 60 * time.Second
	// devServerStop bounds the wait for open requests at the end.
	devServerStop = 2 * time.Second
)

type devFlags struct {
	listen   string
	data     string
	logLevel string
}

func newDevCmd() *cobra.Command {
	var f devFlags
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run a local cluster: a master, three agents with fake GPUs and the dashboard",
		Long: `Run a whole Allot cluster in one process, for trying Allot out and for
development: a master with SQLite in the data directory, the dashboard at
its root, and three agents with fake GPUs: dev-1 (8 h100) in the pool
"default" (priority with preemption and backfill), dev-2 (4 a100) in the
pool "batch" (EASY backfill) and dev-3 (4 l40s) in the pool "shared"
(multi-factor priority with decayed fair share). Tasks run as real processes
on this machine, in DATA/agents/NODE/jobs/JOB/TASK; CUDA_VISIBLE_DEVICES
names the fake GPUs.

Nothing is submitted: the command prints the address to point the CLI at.
Jobs, logs and checkpoints live in the data directory, so a later
'allot dev' on the same directory carries on where this one stopped;
remove the directory to start afresh.

SIGINT (Ctrl-C) or SIGTERM stops the cluster: scheduling stops first, then
the agents ask every task to checkpoint (10 s, as a preemption), kill what
is left and report the exits, so the master requeues the tasks; then the
master stops. A second Ctrl-C exits at once; the next 'allot dev' on the
same data directory adopts any task left running. See docs/dev.md.`,
		Example: `  allot dev
  allot dev --listen 127.0.0.1:9090 --data .allot-dev-9090   # inside the repository, as the experiment examples need`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := stopOnSignals(cmd, "the next allot dev on "+f.data+" adopts any task left running")
			defer stop()
			return runDev(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8080", "address to serve the dashboard and the API on")
	fl.StringVar(&f.data, "data", ".allot-dev", "data directory: the SQLite database, checkpoints and the agents' work directories")
	fl.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	return cmd
}

// devCluster is a running dev cluster.
type devCluster struct {
	log     *slog.Logger
	data    string
	st      store.Store
	m       *master.Master
	ln      net.Listener
	srv     *http.Server
	agents  []*agentd.Agent
	served  chan error
	agentc  chan error // one value per agent, when its Run returns
	stopSrv context.CancelFunc
	// token is the admin's API token of this start; join is the agents'
	// join token; login is where the CLI's login to the cluster went.
	token, join string
	login       devLogin
}

func runDev(ctx context.Context, stdout, stderr io.Writer, f devFlags) error {
	logger, err := newLogger(stderr, f.logLevel, "text")
	if err != nil {
		return err
	}
	cfg, err := config.Parse("dev.yaml", devConfigYAML)
	if err != nil {
		// The file is compiled in; a failure is a defect of this build.
		return fmt.Errorf("the built-in dev configuration is invalid: %w", err)
	}
	data, err := filepath.Abs(f.data)
	if err != nil {
		return fmt.Errorf("--data: %w", err)
	}
	// The address is taken before the data directory is made: a start
	// that cannot serve must leave nothing behind.
	ln, err := listenFlag(f.listen)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		ln.Close()
		return fmt.Errorf("--data: %w", err)
	}
	release, err := lockData("", data)
	if err != nil {
		ln.Close()
		return err
	}
	defer release()
	c := &devCluster{log: logger, data: data, served: make(chan error, 1), agentc: make(chan error, len(devNodes))}
	if err := c.startMaster(ctx, cfg, ln); err != nil {
		return err
	}
	defer c.st.Close()
	loopCtx, stopLoop := context.WithCancel(context.WithoutCancel(ctx))
	loop := make(chan error, 1)
	go func() { loop <- c.m.Run(loopCtx) }()
	agentCtx, stopAgents := context.WithCancel(context.WithoutCancel(ctx))
	running, err := c.startAgents(agentCtx)
	if err == nil {
		err = c.waitReady(ctx)
	}
	if err == nil && ctx.Err() == nil {
		printDevBanner(stdout, c.url(), f.data, c.login)
		if wd, werr := os.Getwd(); werr == nil {
			if note := examplesNote(wd, f.data); note != "" {
				fmt.Fprint(stdout, "\n"+note)
			}
		}
		err = c.wait(ctx)
	}
	// Scheduling stops first, so that nothing new starts on an agent
	// that is stopping; the agents then checkpoint their tasks and report
	// the exits to the master, which still serves them; the master goes
	// last.
	stopLoop()
	<-loop
	stopAgents()
	for range running {
		if aerr := <-c.agentc; aerr != nil && err == nil {
			err = aerr
		}
	}
	if serr := c.stopServer(); serr != nil && err == nil {
		err = serr
	}
	logger.Info("dev cluster stopped")
	return err
}

// startMaster opens the store, makes the master and serves it with the
// dashboard on ln, which it closes if it fails.
func (c *devCluster) startMaster(ctx context.Context, cfg *config.Config, ln net.Listener) error {
	st, err := store.Open(ctx, "", c.data)
	if err != nil {
		ln.Close()
		return err
	}
	m, err := master.New(ctx, master.Options{Store: st, Config: cfg, DataDir: c.data, Logger: c.log, UI: web.Handler()})
	if err != nil {
		ln.Close()
		st.Close()
		return err
	}
	if err := c.credentials(ctx, st); err != nil {
		ln.Close()
		st.Close()
		return err
	}
	// Held syncs and log polls end when the server is stopped, not on the
	// signal: the agents still report to the master while they stop.
	srvCtx, stopSrv := context.WithCancel(context.WithoutCancel(ctx))
	c.st, c.m, c.ln, c.stopSrv = st, m, ln, stopSrv
	c.srv = master.NewServer(m.Handler(), master.ServerOptions{}, func(net.Listener) context.Context { return srvCtx })
	go func() { c.served <- master.Serve(c.srv, ln, master.ServerOptions{}) }()
	if c.login, err = saveDevLogin(c.url(), c.token, c.data, issuedHere(ctx, st)); err != nil {
		return fmt.Errorf("save the CLI's credentials: %w", err)
	}
	if c.login.err != nil {
		c.log.Warn("the CLI's credentials file is unreadable; the dev cluster's login is only in its own file",
			"file", c.login.shared, "err", c.login.err)
	}
	return nil
}

// credentials makes sure of an admin, user admin, with a fresh API token
// (revoking those of earlier starts), and makes a join token for the
// agents (revoking those of earlier starts too); the admin's token is also left in DATA/admin.token for the
// dashboard's sign-in.
func (c *devCluster) credentials(ctx context.Context, st store.Store) error {
	now := time.Now().UTC()
	token, err := master.BootstrapAdmin(ctx, st, devAdmin, devNote, false, now)
	if err != nil {
		return fmt.Errorf("dev admin: %w", err)
	}
	if err := revokeDevJoins(ctx, st, now); err != nil {
		return fmt.Errorf("dev join token: %w", err)
	}
	join, err := master.NewJoinToken(ctx, st, devAdmin, devNote, devJoinTTL, now)
	if err != nil {
		return fmt.Errorf("dev join token: %w", err)
	}
	if err := os.WriteFile(filepath.Join(c.data, AdminTokenFile), []byte(token+"\n"), 0o600); err != nil {
		return fmt.Errorf("write the admin token: %w", err)
	}
	c.token, c.join = token, join
	return nil
}

// devJoinTTL is the life of the join token of one allot dev start.
const devJoinTTL = 24 * time.Hour

// devAdmin is the dev cluster's admin, and devNote the note on the
// credentials allot dev makes, by which it knows its own logins.
const devAdmin, devNote = "admin", "allot dev"

func (c *devCluster) url() string { return "http://" + c.ln.Addr().String() }

// startAgents starts one in-process agent per dev node and returns how
// many run (each sends one value on agentc when it returns).
func (c *devCluster) startAgents(ctx context.Context) (int, error) {
	n := 0
	for _, d := range devNodes {
		a, err := agentd.New(agentd.Config{
			Master:    c.url(),
			Name:      d.name,
			Pool:      d.pool,
			GPUs:      agent.Fake(d.gpus, d.gpuType),
			WorkDir:   filepath.Join(c.data, "agents", d.name),
			OnExit:    agentd.ExitKill,
			ExitGrace: devExitGrace,
			Version:   version.String(),
			Logger:    c.log,
			JoinToken: c.join,
			Runner:    agent.Runner{Shim: taskShim()},
		})
		if err != nil {
			return n, fmt.Errorf("agent %s: %w", d.name, err)
		}
		c.agents = append(c.agents, a)
		n++
		go func() {
			if err := a.Run(ctx); err != nil {
				c.agentc <- fmt.Errorf("agent %s: %w", d.name, err)
				return
			}
			c.agentc <- nil
		}()
	}
	return n, nil
}

// waitReady waits until every agent's node is up at the master.
func (c *devCluster) waitReady(ctx context.Context) error {
	cl, err := client.New(c.url(), nil)
	if err != nil {
		return err
	}
	cl = cl.WithToken(c.token)
	ctx, cancel := context.WithTimeout(ctx, devReadyTimeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		nodes, err := cl.Nodes(ctx)
		if err == nil && upNodes(nodes) == len(devNodes) {
			return nil
		}
		select {
		case aerr := <-c.agentc:
			// An agent that returns this early could not start (a work
			// directory locked by another allot dev, say).
			c.agentc <- nil
			if aerr == nil {
				aerr = errors.New("an agent stopped before its node was up")
			}
			return aerr
		case serr := <-c.served:
			c.served <- serr
			return fmt.Errorf("serve: %w", serr)
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("the agents did not all register within %s", devReadyTimeout)
			}
			return nil
		case <-tick.C:
		}
	}
}

func upNodes(nodes []api.Node) int {
	n := 0
	for _, nd := range nodes {
		for _, d := range devNodes {
			if nd.Name == d.name && nd.State == "up" {
				n++
			}
		}
	}
	return n
}

// wait returns nil when ctx ends, or the first failure of the server or
// of an agent.
func (c *devCluster) wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case err := <-c.served:
		c.served <- err
		return fmt.Errorf("serve: %w", err)
	case err := <-c.agentc:
		c.agentc <- nil
		if err == nil {
			err = errors.New("an agent stopped unexpectedly")
		}
		return err
	}
}

// stopServer ends open requests and stops serving.
func (c *devCluster) stopServer() error {
	c.stopSrv()
	ctx, cancel := context.WithTimeout(context.Background(), devServerStop)
	defer cancel()
	err := c.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		// Every handler ends with the server's base context, so what is
		// left are connections that never sent a request (a client's dial
		// that finished after its request was cancelled): net/http waits
		// 5 s for those. Nothing is lost by closing them.
		err = c.srv.Close()
	}
	if serr := <-c.served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = fmt.Errorf("serve: %w", serr)
	}
	return err
}

func printDevBanner(w io.Writer, url, data string, login devLogin) {
	var nodes []string
	for _, d := range devNodes {
		nodes = append(nodes, fmt.Sprintf("%s (%d× %s, pool %s)", d.name, d.gpus, d.gpuType, d.pool))
	}
	how, setup := "the CLI is logged in ("+login.shared+")", ""
	if !login.saved {
		how = "the CLI's login is in " + login.own
		kept := "could not be read"
		if login.err == nil {
			kept = "keeps your login to " + login.current
			if login.current == url {
				// Most often the login of an allot dev whose data
				// directory was removed: this one cannot tell it from
				// another master's, and "your login to" its own
				// address would read as this cluster's.
				kept = "keeps a login to " + url + " that this cluster did not issue (another master's, or an earlier allot dev's whose data directory is gone; allot logout forgets it)"
			}
		}
		setup = fmt.Sprintf("\n  # %s %s, so point the CLI at this cluster's own file:\n  export %s=%s\n",
			login.shared, kept, ConfigEnv, login.own)
	}
	fmt.Fprintf(w, `Allot dev cluster is up.

  dashboard  %[1]s/
  API        %[1]s/api/v1
  nodes      %[2]s
  data       %[3]s
  user       admin (an admin); %[4]s,
             the dashboard's sign-in token is in %[5]s

In another terminal:
%[6]s
  allot submit examples/jobs/hello.yaml
  allot jobs --all
  allot job logs 1

(Without allot on your PATH, use go run ./cmd/allot in its place, or
go build -o allot ./cmd/allot first.)

Ctrl-C stops the cluster; running tasks are asked to checkpoint first.
`, url, strings.Join(nodes, ", "), data, how, filepath.Join(data, AdminTokenFile), setup)
}
