package agentd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/fencing"
)

// OnExit is what a stopping agent does with the tasks it runs.
type OnExit string

// Shutdown policies.
const (
	// ExitKill preempts every task with Config.ExitGrace (checkpoint
	// request, then SIGKILL at the deadline) and reports the exits.
	ExitKill OnExit = "kill"
	// ExitKeep leaves the tasks running and reports nothing; the master
	// ends them as lost once the node stops syncing, and the next agent
	// started on the work directory adopts what is left of them (doc.go,
	// "Restarts").
	ExitKeep OnExit = "keep"
)

// Defaults of Config's zero fields.
const (
	DefaultBackoffMin      = 250 * time.Millisecond
	DefaultBackoffMax      = 30 * time.Second
	DefaultMinPollInterval = fencing.DefaultPollInterval // what the master's agent_timeout warning assumes
	DefaultRequestTimeout  = 30 * time.Second
	DefaultFinalTimeout    = 10 * time.Second
	DefaultLogBufferLines  = 100_000
	// DefaultSyncWaitS is the long poll used until the master names one.
	DefaultSyncWaitS = 30
)

// Config configures an Agent. Master, Name and WorkDir are required;
// an empty Pool asks for the master's default pool (a node rule of the
// master's configuration wins either way); the other zero fields take the
// defaults above.
type Config struct {
	// Master is the master's base URL, e.g. http://127.0.0.1:8080.
	Master string
	// Name is the node's name, unique in the cluster.
	Name   string
	Pool   string
	Labels map[string]string
	// GPUs is the node's inventory, from agent.Detect or agent.Fake.
	GPUs []agent.GPU
	// WorkDir holds the agent's state file and lock, and the tasks'
	// default working directories (jobs/JOB/TASK).
	WorkDir string
	// OnExit is the shutdown policy; default ExitKill.
	OnExit OnExit
	// ExitGrace is the checkpoint deadline given to tasks at shutdown
	// under ExitKill; 0 kills right after the checkpoint request.
	ExitGrace time.Duration
	// Version is the agent's build, sent at registration.
	Version string
	// JoinToken lets the node register the first time; the master then
	// issues the node its own credential, kept in the work directory
	// (CredentialFileName) and presented from then on.
	JoinToken string
	// Runner is the template of the agent's Runner (shell, signal,
	// buffers, base environment); its OnLog is the agent's own.
	Runner agent.Runner
	// Client sends the requests; default a client with no overall
	// timeout (each request has its own).
	Client *http.Client
	Logger *slog.Logger
	// Seed seeds the retry jitter; 0 derives it from Name, so nodes
	// differ and a run is reproducible.
	Seed uint64
	// BackoffMin and BackoffMax bound the delay between retries.
	BackoffMin, BackoffMax time.Duration
	// MinPollInterval spaces the long polls of a master that answers
	// them at once.
	MinPollInterval time.Duration
	// RequestTimeout bounds a request, beyond the long poll's hold.
	RequestTimeout time.Duration
	// FinalTimeout bounds the delivery of logs and exit reports at
	// shutdown.
	FinalTimeout time.Duration
	// LogBufferLines bounds the output lines held for the master.
	LogBufferLines int
	// MetricsInterval is how often the agent reads the tasks' metrics
	// files; default DefaultMetricsInterval.
	MetricsInterval time.Duration
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

func (c *Config) validate() error {
	u, err := url.Parse(c.Master)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Errorf("master: expected an http:// or https:// URL such as http://127.0.0.1:8080, got %q", c.Master)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("master: expected a base URL without query or fragment, got %q", c.Master)
	case !nameRE.MatchString(c.Name):
		return fmt.Errorf("name: expected 1-63 letters, digits, '.', '_' or '-' starting with a letter or digit, got %q", c.Name)
	case len(c.Pool) > 128 || strings.TrimSpace(c.Pool) != c.Pool || strings.IndexFunc(c.Pool, unicode.IsControl) >= 0:
		// The rule of pool names in job files; empty asks for the
		// master's default pool.
		return fmt.Errorf("pool: expected a name of 1-128 bytes without control characters or surrounding spaces, got %q", c.Pool)
	case c.WorkDir == "":
		return errors.New("work dir: empty")
	case c.OnExit != ExitKill && c.OnExit != ExitKeep:
		return fmt.Errorf("on exit: expected %q or %q, got %q", ExitKill, ExitKeep, c.OnExit)
	case c.ExitGrace < 0:
		return fmt.Errorf("exit grace: expected a duration >= 0, got %v", c.ExitGrace)
	}
	for k := range c.Labels {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("labels: %q is not a label name", k)
		}
	}
	seen := map[int]bool{}
	for _, g := range c.GPUs {
		if g.Index < 0 || seen[g.Index] {
			return fmt.Errorf("gpus: index %d is negative or repeated", g.Index)
		}
		seen[g.Index] = true
	}
	return nil
}

// Agent is the node agent: it registers with the master, runs the
// attempts it is told to run, and reports on them. Create it with New and
// call Run once.
type Agent struct {
	cfg    Config
	log    *slog.Logger
	conn   masterConn
	runner agent.Runner
	gpus   map[int]bool
	ship   *shipper
	bootID string
	seed   uint64
	cred   *credential

	ran     atomic.Bool
	stateMu sync.Mutex // serialises state file writes; taken before mu
	execMu  sync.Mutex // serialises command execution; taken before mu
	// stopCtx ends the shipper and the watchers' wait for logs; Run sets
	// it before anything starts and cancels it as it returns.
	stopCtx context.Context

	mu         sync.Mutex
	changed    chan struct{} // closed and replaced on changes the loops wait for
	tasks      map[agent.TaskID]*attempt
	ended      []stateRecord         // ended while no agent ran; output file to deliver (ended.go)
	finished   map[agent.TaskID]bool // attempts this process ran and reported
	finOrder   []agent.TaskID
	reports    []api.Report // unacknowledged, in Seq order
	seq        int64
	acked      int64
	dirty      bool // reports queued since the report loop last sent
	waitS      int
	registered bool
	journal    journal
	gen        int // registrations so far
	closing    bool
	leaving    bool // stopping the tasks: syncs say so (api.Sync.Leaving)
	detached   bool // Run returned leaving tasks behind: touch nothing
	watchers   sync.WaitGroup

	// placement is where the master last said it put the node: the
	// registration reply's, or a later sync reply's (placed), as of
	// placement generation placeGen, which syncs acknowledge (0 from a
	// master older than the generations: syncs then send none).
	placement api.NodePlacement
	placeGen  int64

	orph   orphans     // what an earlier agent process left
	fence  fenceState  // fence.go
	limits limitState  // timelimit.go
	disown disownState // disown.go
	defers deferState  // deferstart.go
	caps   masterCaps  // caps.go: what the master takes
}

// attempt is one attempt the agent started and has not reported ended.
type attempt struct {
	spec   agent.TaskSpec
	task   *agent.Task
	rec    stateRecord
	exited bool // its processes are gone; the exit report waits for its logs
	// fenced says why the fence stopped it (fence.go), for its exit
	// report; "" when it did not.
	fenced string
	// stopped is the type of the last stop command it got (preempt,
	// kill), so that the master's re-sends are logged once: "" for none.
	// The time limits' backstop sets kill when it kills the attempt.
	stopped string
	// limited says why the time limits' backstop killed it
	// (timelimit.go), for its exit report; "" when it did not.
	limited string
}

// maxFinished bounds the memory of finished attempts kept to recognise
// a repeated start.
const maxFinished = 10_000

// New checks the configuration and prepares an agent.
// fencer and limiter are the agent seen as its fence (fence.go) and as
// the backstop of its tasks' time limits (timelimit.go): the methods of
// each part, over the agent's state, apart from the Agent's own.
type (
	fencer  struct{ *Agent }
	limiter struct{ *Agent }
)

func (a *Agent) fencer() fencer   { return fencer{a} }
func (a *Agent) limiter() limiter { return limiter{a} }

func New(cfg Config) (*Agent, error) {
	if cfg.OnExit == "" {
		cfg.OnExit = ExitKill
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("agent config: %w", err)
	}
	wd, err := filepath.Abs(cfg.WorkDir)
	if err != nil {
		return nil, fmt.Errorf("agent config: work dir: %w", err)
	}
	cfg.WorkDir = wd
	cfg.BackoffMin = orDefault(cfg.BackoffMin, DefaultBackoffMin)
	cfg.BackoffMax = orDefault(cfg.BackoffMax, DefaultBackoffMax)
	cfg.MinPollInterval = orDefault(cfg.MinPollInterval, DefaultMinPollInterval)
	cfg.RequestTimeout = orDefault(cfg.RequestTimeout, DefaultRequestTimeout)
	cfg.FinalTimeout = orDefault(cfg.FinalTimeout, DefaultFinalTimeout)
	cfg.LogBufferLines = orDefault(cfg.LogBufferLines, DefaultLogBufferLines)
	cfg.MetricsInterval = orDefault(cfg.MetricsInterval, DefaultMetricsInterval)
	a := &Agent{
		cfg:      cfg,
		log:      cmpOr(cfg.Logger, slog.Default()).With("node", cfg.Name),
		runner:   cfg.Runner,
		gpus:     map[int]bool{},
		bootID:   bootID(),
		seed:     cfg.Seed,
		changed:  make(chan struct{}),
		tasks:    map[agent.TaskID]*attempt{},
		finished: map[agent.TaskID]bool{},
		waitS:    DefaultSyncWaitS,
	}
	a.orph = orphans{a}
	if a.seed == 0 {
		h := fnv.New64a()
		h.Write([]byte(cfg.Name))
		a.seed = h.Sum64()
	}
	for _, g := range cfg.GPUs {
		a.gpus[g.Index] = true
	}
	if a.runner.Shim != "" {
		a.runner.FenceFile = filepath.Join(cfg.WorkDir, agent.FenceFileName)
	}
	a.runner.OnLog = func(id agent.TaskID, l agent.LogLine) {
		if l.Seq > adoptOutputSeqBase {
			// An adopted attempt's line, from its shim's output file:
			// it can wait there rather than be dropped.
			a.ship.pushWait(id, l)
			return
		}
		a.ship.push(id, l)
	}
	a.cred = newCredential(cfg.WorkDir, cfg.JoinToken, a.log)
	a.conn = masterConn{base: strings.TrimRight(cfg.Master, "/"), client: cmpOr(cfg.Client, &http.Client{}), cred: a.cred}
	a.journal = journal{path: filepath.Join(cfg.WorkDir, JournalFileName), log: a.log}
	a.ship = newShipper(cfg.LogBufferLines, a.newBackoff(3), a.log, a.postLogs)
	a.ship.maxDelay = func() time.Duration { return a.retryLimit(time.Now()) }
	return a, nil
}

func (a *Agent) newBackoff(k uint64) *backoff {
	return newBackoff(a.cfg.BackoffMin, a.cfg.BackoffMax, a.seed+k)
}

// Run runs the agent until ctx is cancelled, then shuts down by the
// OnExit policy and returns. It fails at once when the work directory
// cannot be used; once running it never gives up on the master.
func (a *Agent) Run(ctx context.Context) error {
	if !a.ran.CompareAndSwap(false, true) {
		return errors.New("agent: Run called twice")
	}
	if err := os.MkdirAll(a.cfg.WorkDir, 0o755); err != nil {
		return fmt.Errorf("work dir: %w", err)
	}
	unlock, err := lockWorkDir(a.cfg.WorkDir)
	if err != nil {
		return err
	}
	defer unlock()
	// The journal first: recovering exits from the tasks' shims rewrites
	// the journal, and skips attempts it already reported.
	if err := a.replayJournal(); err != nil {
		return err
	}
	adopted, err := a.orph.recoverOrphans()
	if err != nil {
		return err
	}
	a.log.Info("agent starting", "master", a.conn.base, "pool", cmp.Or(a.cfg.Pool, "(the master's default)"), "gpus", len(a.cfg.GPUs), "work_dir", a.cfg.WorkDir)

	// The shipper and the watchers outlive ctx: logs and exit reports are
	// still delivered during shutdown.
	stopCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	a.stopCtx = stopCtx
	a.orph.watchAdopted(adopted)
	a.orph.deliverEnded()
	var shipDone, loops sync.WaitGroup
	shipDone.Go(func() { a.ship.run(stopCtx) })
	loopCtx, cancelLoops := context.WithCancel(ctx)
	defer cancelLoops()
	loops.Go(func() { a.reportLoop(loopCtx) })
	loops.Go(func() { a.fencer().fenceLoop(loopCtx) })
	loops.Go(func() { a.limiter().limitLoop(loopCtx) })
	if a.runner.FenceFile != "" {
		loops.Go(func() { a.fenceFileLoop(loopCtx) })
	}
	loopErr := a.syncLoop(loopCtx)
	cancelLoops()
	loops.Wait()

	a.mu.Lock()
	a.closing = true
	// Under ExitKeep the tasks outlive the agent: no goodbye, the master
	// ends them as lost.
	a.leaving = a.cfg.OnExit == ExitKill
	a.mu.Unlock()
	// The stop is bounded: adopted attempts' lines no longer wait for
	// room in the log buffer, as their ends must not wait for a master
	// that may not come back.
	a.ship.dropWhenFull()
	if a.cfg.OnExit == ExitKeep {
		n := a.detach()
		stop()
		shipDone.Wait()
		a.log.Info("agent stopped; tasks left running", "tasks", n)
		return loopErr
	}
	a.stopTasks(stopCtx)
	stop()
	a.watchers.Wait()
	shipDone.Wait()
	a.persist()
	a.log.Info("agent stopped")
	return loopErr
}

// waitTasks waits until every task the agent started has ended.
func waitTasks(a *Agent) {
	a.mu.Lock()
	var tasks []*agent.Task
	for _, att := range a.tasks {
		tasks = append(tasks, att.task)
	}
	a.mu.Unlock()
	for _, t := range tasks {
		<-t.Done()
	}
}

// detach leaves the running tasks to themselves: the state file keeps
// their records for the next agent, and this agent stops touching it.
func (a *Agent) detach() int {
	a.persist()
	a.stateMu.Lock()
	defer a.stateMu.Unlock()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.detached = true
	return len(a.tasks)
}

// stopTasks tells the master the node is leaving, preempts every task
// with the exit grace, waits for them to end, and delivers their logs and
// exit reports within FinalTimeout of their end, the last sync saying
// that the node has left. stopCtx is cancelled by the caller afterwards.
func (a *Agent) stopTasks(stopCtx context.Context) {
	// The goodbye goes out alongside the checkpoint requests rather than
	// before them, so that a master that does not answer cannot delay the
	// tasks' stop; the syncs that keep the master's contact while the
	// tasks checkpoint say it again. The first is bounded by FinalTimeout
	// from the stop's start, the others end with the tasks, and the final
	// delivery waits for them, so that the last sync the master gets is
	// the Final one.
	if (disowner{a}).disowned() {
		// No goodbye and nothing to deliver: the master refuses the
		// credential, and the tasks were killed when it did
		// (stopDisowned).
		waitTasks(a)
		return
	}
	leaveCtx, cancelLeave := context.WithCancel(stopCtx)
	defer cancelLeave()
	first, cancelFirst := context.WithTimeout(stopCtx, a.cfg.FinalTimeout)
	defer cancelFirst()
	var leave sync.WaitGroup
	leave.Go(func() { a.syncWhileLeaving(first, leaveCtx) })
	a.mu.Lock()
	var tasks []*agent.Task
	for _, att := range a.tasks {
		tasks = append(tasks, att.task)
	}
	a.mu.Unlock()
	if len(tasks) > 0 {
		a.log.Info("preempting the running tasks", "tasks", len(tasks), "grace", a.cfg.ExitGrace)
	}
	for _, t := range tasks {
		if err := t.Preempt(a.cfg.ExitGrace); err != nil && !errors.Is(err, agent.ErrTaskDone) {
			a.log.Warn("preempt at shutdown", "task", t.ID().String(), "err", err)
		}
	}
	for _, t := range tasks {
		<-t.Done()
	}
	cancelLeave()
	leave.Wait()
	ctx, cancel := context.WithTimeout(stopCtx, a.cfg.FinalTimeout)
	defer cancel()
	if !a.deliverAll(ctx) {
		a.mu.Lock()
		n := len(a.reports) + len(a.tasks)
		a.mu.Unlock()
		a.log.Warn("could not deliver every report before stopping; they stay in the journal, and the next agent on this work directory sends them, unless the master has ended those attempts as lost by then",
			"undelivered", n, "journal", a.journal.path)
	}
}

// syncWhileLeaving sends the sync that tells the master the node is
// leaving (api.Sync.Leaving), so that it places nothing more here from now
// on, in particular not the tasks it requeues on their exit reports; an
// agent that runs nothing says goodbye in full (Final) with it. Then,
// until ctx ends (the tasks have ended), it goes on syncing as the sync
// loop did: tasks given an exit grace longer than the master's agent
// timeout would otherwise leave the master without contact, and it would
// mark the node lost and end their attempts as lost in the middle of the
// leave. An agent the master does not know (its sync got 404: a
// restarted master) registers first, saying that the node leaves
// (api.Register.Leaving), and syncs on. The first exchange is bounded by first, not by ctx:
// an agent that runs nothing still says goodbye.
func (a *Agent) syncWhileLeaving(first, ctx context.Context) {
	a.mu.Lock()
	unknown := a.gen == 0 && len(a.tasks) == 0 && len(a.reports) == 0
	disowned := a.disown.revoked
	a.mu.Unlock()
	if disowned {
		// The master takes nothing from this agent: no goodbye.
		return
	}
	if unknown {
		// The master never knew the node (its join refused, or the stop
		// came first), and it has nothing to report: no goodbye, which
		// would be one more registration to refuse, log and audit.
		return
	}
	waitS := 0
	reg := &registrar{a: a}
	for c := first; ; c = ctx {
		a.mu.Lock()
		registered := a.registered
		a.mu.Unlock()
		start := time.Now()
		var err error
		if !registered {
			err = reg.register(c)
		}
		if err == nil {
			// Even right after a registration: the sync may be the Final one.
			_, err = a.syncOnce(c, waitS)
		}
		if err != nil && ctx.Err() == nil {
			a.log.Debug("an exchange of the leaving node with the master failed; the next one says it leaves", "err", err)
		}
		if !sleep(ctx, time.Until(start.Add(a.cfg.MinPollInterval))) {
			return
		}
		a.mu.Lock()
		waitS = a.waitS
		a.mu.Unlock()
	}
}

// snapshotRunning lists the attempts whose processes run; the caller
// holds mu. An attempt that exited stays in a.tasks until its output is
// delivered and its exit report queued (watch), but is not listed: the
// master takes a running list as a moment the attempt ran, and would
// charge it until then, past its exit (trial 2026-11-29a A10).
func (a *Agent) snapshotRunning() []agent.TaskID {
	running, _ := a.snapshotTasks()
	return running
}

// snapshotTasks lists the attempts whose processes run, and those that
// exited and whose exit reports wait for their output to be delivered
// (api.Register.Exited); the caller holds mu.
func (a *Agent) snapshotTasks() (running, exited []agent.TaskID) {
	running = make([]agent.TaskID, 0, len(a.tasks))
	for id, att := range a.tasks {
		if att.exited {
			exited = append(exited, id)
		} else {
			running = append(running, id)
		}
	}
	sortIDs(running)
	sortIDs(exited)
	return running, exited
}

func sortIDs(ids []agent.TaskID) {
	sort.Slice(ids, func(i, j int) bool { return lessID(ids[i], ids[j]) })
}

func lessID(x, y agent.TaskID) bool {
	if x.JobID != y.JobID {
		return x.JobID < y.JobID
	}
	if x.TaskIndex != y.TaskIndex {
		return x.TaskIndex < y.TaskIndex
	}
	return x.Attempt < y.Attempt
}

func sortRecords(recs []stateRecord) {
	sort.Slice(recs, func(i, j int) bool { return lessID(recs[i].Task, recs[j].Task) })
}

// broadcast wakes the goroutines waiting on a.changed; the caller holds mu.
func (a *Agent) broadcast() {
	close(a.changed)
	a.changed = make(chan struct{})
}

// orDefault returns v, or def when v is the zero value.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// cmpOr returns p, or def when p is nil.
func cmpOr[T any](p, def *T) *T {
	if p == nil {
		return def
	}
	return p
}
