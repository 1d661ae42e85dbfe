package master

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// Defaults for the Options left zero.
const (
	DefaultTick         = time.Second
	DefaultGrace        = 30 * time.Second
	DefaultAgentTimeout = 30 * time.Second
	// DefaultSyncWait is how long a sync without commands is held.
	DefaultSyncWait = 10 * time.Second
	// maxPasses bounds the passes run for one event; the simulator uses the
	// same bound.
	maxPasses = 1000
	// maxRest bounds the pause after an event-driven step.
	maxRest = 100 * time.Millisecond
)

// Clock tells the time. The master reads it for every timestamp it
// persists, for Snapshot.Now, and for agent timeouts and time limits, so
// that tests can drive all of them.
type Clock interface {
	Now() time.Time
}

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now().UTC() }

// Options configure a Master.
type Options struct {
	// Store is the opened store; the Master does not close it.
	Store store.Store
	// Config is the configuration to start with; nil means config.Default().
	Config *config.Config
	// ConfigPath is the file that a reload re-reads; "" disables reloads.
	ConfigPath string
	// LoadConfig reads ConfigPath on reload; nil means config.Load.
	LoadConfig func(path string) (*config.Config, error)
	// DataDir is the master's data directory; checkpoints go under
	// DataDir/checkpoints unless CheckpointRoot is set.
	DataDir string
	// CheckpointRoot is where tasks' checkpoint directories are made:
	// ROOT/JOB/TASK. It must be reachable at the same path from every node
	// (a shared file system) for a task to resume on another node.
	CheckpointRoot string
	// Logger receives structured logs; nil means slog.Default().
	Logger *slog.Logger
	// Clock is the time source; nil means the wall clock.
	Clock Clock
	// Tick is the interval of idle scheduling passes, agent-loss checks
	// and time-limit checks; 0 means DefaultTick.
	Tick time.Duration
	// SyncWait is the longest a sync is held without commands; 0 means
	// DefaultSyncWait.
	SyncWait time.Duration
	// UI, when set, is served at / (the dashboard).
	UI http.Handler
	// PrivateMetrics makes /metrics need a user's API token.
	PrivateMetrics bool
	// MaxNodeGPUs caps the GPUs a node may declare when it registers; 0
	// means DefaultMaxNodeGPUs.
	MaxNodeGPUs int
	// UserRate and UserBurst bound each user's changes (requests other
	// than GET) per second, with a burst (ratelimit.go); 0 means
	// DefaultUserRate and DefaultUserBurst, a negative UserRate no limit.
	UserRate  float64
	UserBurst int
	// watchJob is the Master's watchJob from its start on, so that a
	// test watches the changes a restart's restore makes too (tests
	// only: watchJobStates).
	watchJob func(j *mjob, from, to store.JobState)
}

// DefaultMaxNodeGPUs is the most GPUs a node may declare unless
// configured otherwise: well above any server built today.
const DefaultMaxNodeGPUs = 64

// Master is the live scheduler. It owns the mirror of jobs, tasks and
// nodes and the transitions that change it over the store (state.go),
// the submissions queued for the mirror (submit.go), the configuration
// and its reload, and the loop (Run, Tick, Step). Two parts that every
// transition calls own their state: batches (a batcher: the batches the
// transitions are stored in, batch.go) and pub (a readPublisher: the read
// view, readview.go). The other work around the mirror is done by the
// parts it holds, each over it: planner (the scheduling passes), agents (the agent protocol),
// access (authentication and users), storeHealth (the store's health);
// New rebuilds the mirror with a restorer (restore.go), and Handler adds
// jobsAPI and clusterAPI for the REST API. doc.go says which lock guards
// what.
type Master struct {
	st     store.Store
	log    *slog.Logger
	clock  Clock
	opt    Options
	load   func(string) (*config.Config, error)
	metric *metrics
	// The parts, set by New and never changed. planner's fields are
	// guarded by mu; agents' queue of syncs, access's caches and health
	// have locks of their own (doc.go, "Types and locks").
	planner *planner
	agents  *agents
	access  *access
	// health is the store's health (health.go); it has its own lock.
	health storeHealth
	// passes is whether the scheduling passes fail (passhealth.go); it
	// has its own lock.
	passes passHealth
	// waits is the wait ledger (waitledger.go): each job's waits by
	// kind of reason, for the fairness audit; it has its own lock.
	waits waitLedger
	// The parts that the changes of the mirror call: pub publishes the
	// read view (readview.go), batches opens, commits and undoes the
	// batches (batch.go). Their fields are guarded by mu, except the
	// published view, which is atomic.
	pub     readPublisher
	batches batcher
	// lastLoop is when the loop last ran (UnixNano), for /livez.
	lastLoop atomic.Int64
	// history reads the store's history back and prunes it (retention.go).
	history history

	// kickc wakes the loop for an event-driven pass.
	kickc chan struct{}
	// running is Run's context, whose end tells a request cancelled by
	// the master's stop from one its client hung up on (clientGone).
	running atomic.Pointer[context.Context]
	// cfgNow is cfg, for readers that do not hold mu; set with it.
	cfgNow atomic.Pointer[config.Config]
	// feas is the published view of submit-time feasibility, nil when
	// it must be built again (feasible.go).
	feas atomic.Pointer[feasView]
	// subs holds the jobs stored but not yet in the mirror; lock moves
	// them in (submit.go). It has its own lock, taken after mu.
	subs submissions

	mu sync.Mutex
	// Everything below is guarded by mu.
	cfg  *config.Config
	jobs map[int64]*mjob
	// order lists the mirror's jobs by id for the snapshot.
	order    []*mjob
	goneJobs int // jobs of order that left the mirror since compactOrder
	// cfgGen is incremented by each reload and each change of the
	// account tree; it invalidates every job's snapshot entry
	// (mjob.entryGen) and rebuilds the planner's roster (roster.go).
	cfgGen int
	// open holds the tasks with an open attempt (hold adds, release
	// drops), the few the time limits scan rather than every job.
	open   map[*mtask]struct{}
	nodes  map[string]*mnode
	event  bool // an event happened since the last event pass
	logc   map[int64]chan struct{}
	closed bool
	// changes counts the jobs marked changed (readPublisher.markJob)
	// and the passes asked for (kick): a settling whose core planned
	// while a handler changed something takes its instant again
	// (settling.Scheduled).
	changes uint64
	// fair is the fair-share account tree and usage (fairshare.go);
	// nextUsageFlush is when open attempts next get usage records.
	fair           *fairShare
	nextUsageFlush time.Time
	// tails holds back from the GPU-seconds metric the usage of
	// attempts failed as lost that a late exit may cut (lostusage.go).
	tails tailBook
	// reports holds the passes after a store outage while the agents'
	// held reports are on their way (reportsettle.go).
	reports reportWait
	// watch, when set (tests only: watchTaskStates), hears of every
	// stored row setTask records, with the state its task left and
	// entered, so that a test checks each change against the graph
	// (lifecycle.TaskEdge); amend marks a late exit's amendment of a
	// lost end (amendTask), the one change off a terminal state. nil in
	// production: one nil check.
	watch func(t *mtask, from, to store.TaskState, amend bool)
	// watchJob, when set (tests only: watchJobStates, by
	// Options.watchJob, from before the restore), hears of every stored
	// row setJob records, with the state its job left and
	// entered, so that a test checks each change against the graph
	// (lifecycle.JobEdge). nil in production: one nil check.
	watchJob func(j *mjob, from, to store.JobState)
}

// defaults checks the options and fills in those left zero.
func (opt *Options) defaults() error {
	if opt.Store == nil {
		return errors.New("master: no store")
	}
	if opt.Config == nil {
		opt.Config = config.Default()
	}
	if err := checkConfig(opt.Config); err != nil {
		return fmt.Errorf("master: %w", err)
	}
	if opt.CheckpointRoot == "" {
		if opt.DataDir == "" {
			return errors.New("master: neither a data directory nor a checkpoint root is set")
		}
		opt.CheckpointRoot = filepath.Join(opt.DataDir, "checkpoints")
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Clock == nil {
		opt.Clock = wallClock{}
	}
	if opt.Tick <= 0 {
		opt.Tick = DefaultTick
	}
	if opt.SyncWait <= 0 {
		opt.SyncWait = DefaultSyncWait
	}
	if opt.MaxNodeGPUs <= 0 {
		opt.MaxNodeGPUs = DefaultMaxNodeGPUs
	}
	return nil
}

// New loads the master's state from the store and returns a Master ready
// to serve; Run starts its loop.
func New(ctx context.Context, opt Options) (*Master, error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	m := &Master{
		st:      opt.Store,
		log:     opt.Logger,
		clock:   opt.Clock,
		opt:     opt,
		load:    opt.LoadConfig,
		kickc:   make(chan struct{}, 1),
		cfg:     opt.Config,
		cfgGen:  1,
		jobs:    map[int64]*mjob{},
		open:    map[*mtask]struct{}{},
		nodes:   map[string]*mnode{},
		logc:    map[int64]chan struct{}{},
		fair:    newFairShare(decayOf(opt.Config)),
		health:  storeHealth{st: opt.Store, log: opt.Logger, clock: opt.Clock, minGap: probeMinGap},
		history: history{st: opt.Store, log: opt.Logger},
	}
	if m.load == nil {
		m.load = config.Load
	}
	m.cfgNow.Store(opt.Config)
	m.watchJob = opt.watchJob
	m.pub.m, m.batches.m = m, m
	m.planner = &planner{m: m, preempted: newPreemptBudget()}
	m.planner.limits.m, m.planner.limits.began = m, m.now()
	m.access = &access{server: server{m}}
	m.agents = &agents{server: server{m}, strays: strayBook{server: server{m}}, late: lateExits{server{m}}}
	m.agents.trials, m.agents.limits = agentTrials{m.agents}, agentLimits{m.agents}
	m.metric = newMetrics(m)
	m.tails.metric = m.metric
	m.health.up = m.metric.storeUp
	m.passes.log, m.passes.failures = opt.Logger, m.metric.passFailures
	m.health.passes = &m.passes
	if opt.UserRate >= 0 {
		m.access.limits = newUserLimits(cmp.Or(opt.UserRate, DefaultUserRate), cmp.Or(opt.UserBurst, DefaultUserBurst))
	}
	if err := (&restorer{m: m}).restore(ctx); err != nil {
		return nil, fmt.Errorf("master: restore state: %w", err)
	}
	under := jobsUnder{m.jobs, m.cfg}
	warnings := append(under.orphans(), under.disallowedQOS()...)
	warnings = append(warnings, under.neverRuns()...)
	warnings = append(warnings, under.licenseWarnings(nil)...)
	warnings = append(warnings, under.unknownQOS()...)
	warnings = append(warnings, ConfigWarnings(opt.ConfigPath, m.cfg, opt.SyncWait)...)
	for _, w := range warnings {
		m.log.Warn("configuration: " + w)
	}
	m.noteStart(ctx) // startaudit.go
	m.event = true
	m.pub.publishAll()
	return m, nil
}

// Run runs the scheduling loop until ctx ends: a pass on every event and
// on every tick, with agent-loss and time-limit checks on the tick, and
// the time limits' kills at the earliest deadline (timelimits.go).
func (m *Master) Run(ctx context.Context) error {
	m.running.Store(&ctx)
	t := time.NewTicker(m.opt.Tick)
	defer t.Stop()
	limit := time.NewTimer(time.Hour)
	defer limit.Stop()
	m.Step(ctx)
	for {
		m.planner.limits.arm(limit)
		select {
		case <-ctx.Done():
			return nil
		case <-m.kickc:
			began := time.Now()
			m.Step(ctx)
			// Under a storm of events, rest as long as the passes took, so
			// that scheduling takes at most half a CPU and the events that
			// come meanwhile share the next pass.
			rest := time.NewTimer(min(time.Since(began), maxRest))
			select {
			case <-ctx.Done():
				rest.Stop()
				return nil
			case <-rest.C:
			}
		case <-t.C:
			m.Tick(ctx)
		case <-limit.C:
			m.planner.limits.fire(ctx)
		}
	}
}

// Tick does the periodic work: checks the store (and does nothing more
// while it is down), forgets jobs past history_retention, marks silent
// agents lost, kills tasks past their time limit, records the usage of
// running tasks every usageInterval, and runs a scheduling pass.
func (m *Master) Tick(ctx context.Context) {
	m.lastLoop.Store(time.Now().UnixNano())
	if !m.checkStore(ctx) {
		return
	}
	m.history.prune(ctx, m.now(), m.Config().HistoryRetention)
	// Silent agents' nodes are lost between settlings (betweenSettlings);
	// the loop runs Tick and Step in turn anyway.
	between := m.betweenSettlings()
	m.lock()
	m.agents.checkAgents(ctx)
	m.planner.limits.checkTimeLimits(ctx)
	if err := m.flushUsage(ctx); err != nil {
		m.log.Error("recording usage", "err", err)
	}
	due := m.planner.etaRun.due(time.Now())
	m.unlock()
	between()
	m.Step(ctx)
	if due {
		m.planner.refreshETA()
	}
}

// Step runs scheduling passes now: after an event, passes until the plan
// settles; otherwise one pass. After a store outage it waits, briefly,
// for the reports the agents said are on their way (reportsettle.go):
// the event stays due.
func (m *Master) Step(ctx context.Context) {
	if m.health.downOrBack() && !m.checkStore(ctx) {
		return // the tick probes the store again and kicks a pass once it is back
	}
	// One pass at a time: the passes release mu while the core
	// schedules (stale.go).
	m.planner.passMu.Lock()
	defer m.planner.passMu.Unlock()
	m.lock()
	defer m.unlock()
	if m.reports.holds(m.agents, m.now()) {
		return
	}
	m.passes.record(m.planner.schedule(ctx), m.now())
}

// kick asks the loop for an event-driven pass. Callers hold mu.
func (m *Master) kick() {
	m.event = true
	m.changes++
	select {
	case m.kickc <- struct{}{}:
	default:
	}
}

// now is the clock's time in UTC.
func (m *Master) now() time.Time { return m.clock.Now().UTC() }

// Config returns the configuration in force.
func (m *Master) Config() *config.Config {
	// Not through mu: a submission reads it, and should not wait for a
	// batch's commit to do so.
	return m.cfgNow.Load()
}

// decayOf is the configuration's usage decay, or the default for a
// configuration built without one.
func decayOf(cfg *config.Config) sched.Decay {
	if cfg.SchedDecay().Validate() != nil {
		return config.DefaultDecay()
	}
	return cfg.SchedDecay()
}
