package master

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/searcher"
	"github.com/allot-sched/allot/store"
)

// mjob is the mirror of a live job: one not yet terminal, or a terminal
// one whose tasks still hold attempts (a killed job whose tasks are being
// killed). It leaves the mirror when neither holds.
type mjob struct {
	rec   store.Job
	spec  specHints // scheduling hints from rec.Spec
	tasks []*mtask
	// count counts the job's tasks by the code that counts the
	// simulator's (lifecycle.Cluster's) tasks, moved by setTask at every
	// change of a task's stored state: those holding attempts, those
	// being killed, ended, failed, killed, and those waiting (Queued: the
	// mirror holds no task preempted, setTask entering a landing with
	// what follows it, and a restart requeues one it reads back at once).
	// Counters rather than a scan: every pass reads them for every job.
	count lifecycle.JobTasks
	// pending is the last pass's explanation, nil when the job was not
	// pending in it; it points to pendBuf unless the master left the job
	// out of the snapshot.
	pending *pendingInfo
	pendBuf pendingInfo
	// startMF is the multi-factor priority of the last pass that found
	// it pending in a multifactor pool (0 for none): a running job's
	// priority, as it started with it (api.Job.MultifactorPriority).
	// Each start stores it with the attempt it opens
	// (store.TaskTransition.StartPriority), from which a restart
	// restores it (restoreJob).
	startMF float64
	// entryGen is the configuration generation the job's snapshot entry
	// was made at, its entry on the planner's roster (roster.go) while
	// rostered, with ri its record; entryOK says the job belongs in the
	// snapshot. A PATCH resets entryGen; a reload and a change of the
	// account tree move the master's generation on.
	entryGen int
	entryOK  bool
	ri       int32
	rostered bool
	gone     bool // left the mirror; dropped from Master.order lazily
	// refused is why the core refused the job's entry, at configuration
	// generation refusedGen (setaside.go); "" for none.
	refused    string
	refusedGen int
	// dirty marks a change since the read view was last published, and
	// read is what it published of the job (readview.go).
	dirty bool
	read  *jobRead
	// search is the adaptive searcher of an asha or adaptive_asha
	// experiment (experiments.go); nil otherwise.
	search *searcher.Search
	// JobRecord is the job's scheduling record, the one the simulator's
	// lifecycle.Cluster keeps of each job too (its Job embeds it):
	// its State, changed by the same transition (Enter, in setJob only,
	// which sets rec with it: both always say the same), settled by the
	// same rule (Settles: settleJob); Experiment, rec's kind; OnHold,
	// rec's Held, whose change the same rule decides (HoldChange:
	// holdLocked).
	lifecycle.JobRecord
}

// mtask is the mirror of a task.
type mtask struct {
	job *mjob
	rec store.Task
	att *mattempt // the open attempt; nil when the task is idle or terminal
	// closed is the attempt that closed last, kept for its parts' ranks:
	// its log lines may arrive after its end (gangSeq). nil when none
	// closed since the master started (the store has the placement).
	closed *mattempt
	// TaskRecord is the task's scheduling record, the one the
	// simulator's lifecycle.Cluster keeps of each task too (its Task
	// embeds it), changed by the same transition (Enter, in setTask
	// only, which sets rec's state with it: both always say the same)
	// and its parts decided on by the same methods:
	//
	// Its Retries count the task's requeues, after a preemption or a
	// lost attempt (not a move's restart), which its job's exit actions
	// cap (lifecycle.Ending.Decide, in finish and endAttempt); Enter
	// counts each as the task enters queued, and a restarted master
	// counts them in the event log (restoreLaunches).
	//
	// Its Stop is the kill under way (lifecycle.Stop: Kill or LimitKill
	// in killTask, a job's kill and restoreTask; left by Enter once the
	// task leaves killing), read by the same rules (Ends:
	// Master.ending). What the kill ends the task in: killed for a kill
	// or a time limit, failed when a part of a gang failed, completed for
	// a searcher's stop; its cause, which its end keeps too; a task found
	// killing by a restart ends killed, for a cause not known (restore).
	// Its end's reason is the agent's where one applied the limit itself,
	// before the master's late kill (stoppedAtLimit: AgentApplied), and
	// once it ended TimedOut marks a task its time limit killed, for its
	// job's reason (killedReason); false for one that ended before a
	// restart.
	//
	// Its Replacement is the move or resize in flight
	// (lifecycle.Replacement: Reserve in apply and restoreTask; let go
	// of by Enter once the task leaves preempting), read by the same
	// rules (Replacing: settling.Replacing and the views; Split:
	// snapTask; Landing: Master.ending). Its For and Why are the job it
	// makes room for (0: none) and a shrink's rule in words (resizeWhy),
	// for the views; a restart reads them back from the transition's
	// event (restorer.nextFor).
	lifecycle.TaskRecord
	// next is where a preempting task that a plan moved or resized
	// restarts as soon as its attempt ends (store.Task.Reserved); its
	// GPUs are held for it from the plan on, nil while nothing is in
	// flight. It is what the Cluster has no counterpart for: GPU indices,
	// by node name, which the agents start on and the store keeps. Its
	// slots per snapshot node, which the Cluster keeps in its record's
	// Nodes, are made from it at each build (snapTask) and not kept: a
	// snapshot numbers the nodes up at its build, so a node's index
	// changes as others come and go. The Replacement says the rest
	// (kind, since, for whom), and lifecycle.KeptOn which of the old
	// GPUs a resize keeps. When it was reserved, at the wall clock's
	// precision, is rec's UpdatedAt (replacedAt), whose seconds the
	// Replacement's Since are.
	next []*mpart
	// launch is the task's place in the order attempts were launched
	// (launchorder.go).
	launch int64
	// preempted orders the task's last preemption, move or resize among
	// the others, or its last return to waiting otherwise (a lost
	// attempt or start; launchorder.go); 0 for none since the master
	// started. While a move or resize is in flight it is also the place
	// of the placement that drains (launchOf), which the simulator lists
	// as launched when the move was applied.
	preempted int64
	// exited is when the processes of the attempt that ended the task
	// exited, by its agents' word (store.Attempt.ExitedAt: finish, or a
	// late exit's amendment); zero for a task the master ended on no
	// agent's word, one not ended, or one ended before a restart. Its
	// job ends at its last task's (endedAt).
	exited time.Time
}

// mattempt is an open attempt: one part per node of its placement.
type mattempt struct {
	number int
	// Attempt is its scheduling facts in seconds, the record the
	// simulator's lifecycle.Cluster keeps of an attempt too, made by the
	// same transitions (Launch at a start; Continue for the restart on
	// the placement a move or resize reserved: continueFrom) and made
	// into the snapshot's allocation by the same function
	// (Attempt.Hold, snapTask). Its Asked and Grace are the stop it
	// was last asked (sendAll, Ask): its request rounded up to a whole
	// second and its grace's seconds rounded up, so that the forecast
	// never frees the GPUs before the agent's kill.
	lifecycle.Attempt
	// started and continues are the same starts at the wall clock's
	// precision, which the master's time limits, usage and store
	// records keep: continues is the start of the attempt this one
	// continues, for a restart on the placement a move or resize
	// reserved; zero otherwise. The simulator counts a re-placed task as
	// one attempt (lifecycle's Replace), so its time limit and its start
	// in the snapshot are the first's (first).
	started   time.Time
	continues time.Time
	parts     []*mpart
	// runningAt is when its task first went running in it, as the store
	// keeps it (store.Attempt.RunningAt); zero until then.
	runningAt time.Time
	// usedTo is the end of the attempt's last usage record, or its start.
	usedTo time.Time
	// heardTo is the last time an agent of the attempt said a part of it
	// runs (its sync's or registration's running list): the periodic
	// usage records end there at the latest (flushUsage). Zero until then.
	heardTo time.Time
	// stop is the last preempt or kill sent for the attempt (sendAll),
	// which an agent still running a part of it gets again (stop.go).
	// stopGrace is the grace it gave, at the wall clock's precision: the
	// agent kills what has not stopped by then, whatever a reload of the
	// configuration says since, so the views and the forecast count
	// from it (stopDeadline). Zero while nothing was asked.
	stop      api.Command
	stopGrace time.Duration
	// stopBy is when its agent kills what is left: the request plus stopGrace,
	// or a preemption's earlier deadline, which a kill keeps (sendAll).
	stopBy time.Time
	// stoppedBy is the node whose agent stopped its part of a gang's
	// running attempt and reported it preempted (agentStopped): the
	// others checkpoint, and that node's leave loses nothing. "" else.
	stoppedBy string
}

// partState is where one node's part of an attempt is.
type partState uint8

const (
	partStarting partState = iota // the start command is queued or on its way
	partRunning
	partExited
)

type mpart struct {
	node     string
	gpus     []store.GPURef
	state    partState
	outcome  agent.Outcome
	exitCode *int
	err      string
	// noStart: the part exited failed before it ever ran; its agent
	// could not start it (agentd's failed start).
	noStart bool
	// exitedAt is when the part's process exited, by its agent's report
	// (partExit), which may come long after: the attempt's usage ends at
	// its parts' last exit (exitOf), its GPUs are freed when the master
	// heard of it.
	exitedAt time.Time
	// delivered: the start command has been handed to the agent (or, after
	// a master restart, may have been).
	delivered bool
	// deliveredSync is the node's sync count when the command went out,
	// deliveredAt the time.
	deliveredSync int64
	deliveredAt   time.Time
	// stopAt is when the attempt's stop last went to this part's node.
	stopAt time.Time
	// exitSaid: its agent registered listing it exited, the report to
	// come (api.Register.Exited). The master waits for that report: it
	// does not end the part as not run (settleMissing), and no word that
	// it runs (a request the agent built before) moves its usage past
	// the exit (heardRunning).
	exitSaid bool
	// checkpoint: its exit report's api.Report.Checkpoint (ckptwords.go).
	checkpoint store.Checkpoint
}

// mnode is the mirror of a node.
type mnode struct {
	rec  store.Node
	pool string // effective pool: the config's pin, else the registration's
	// registered: the agent registered with this master process. A sync
	// from an agent that did not gets 404, so that every agent registers
	// (and is reconciled) after a master restart.
	registered bool
	// regs counts the node's registrations with this master process: a
	// plan built before the last one is not placed on it (stale.go).
	regs int
	// lastSeen is when the node's agent timeout counts from: its last
	// contact, or a grace given after a restart or a store outage. seen
	// is its real last contact, which the API shows and the store keeps
	// (savedBeat: as of when), so that it outlives a master restart.
	lastSeen  time.Time
	seen      time.Time
	savedBeat time.Time
	used      map[int]*mtask // GPU index → task holding it
	zeroUsed  int
	commands  []api.Command
	wake      chan struct{}
	acked     int64
	syncs     int64
	// reconcile holds attempts the master believed ran on the node but the
	// agent did not list when it registered; the first sync settles them.
	reconcile map[agent.TaskID]bool
	// joinedBy is the join token whose registration took the node's name
	// over (nodejoin.go), joinedAt when, until the first sync after it has
	// settled what the old host ran (settleMissing); 0 otherwise.
	joinedBy int64
	joinedAt time.Time
	// joinedFence is when the old host's task shims stop a held attempt
	// by their own fence (the end of lost_node_grace), for the reason
	// of the attempts the takeover ends; zero when the node was not lost.
	joinedFence time.Time
	// exitsHeld are the attempts its last sync said had exited, their
	// exit reports held back (api.Sync.Exited): none is to be killed.
	exitsHeld map[agent.TaskID]bool
	polling   int // syncs being held
	// lostAt is when the node was found lost or left (after a restart,
	// from the node history: restoreLosses; zero where it has none): its
	// held tasks' lost_node_grace counts from then.
	lostAt time.Time
	// leaving: the agent said it is shutting down (api.Sync.Leaving, or
	// api.Register.Leaving); until it registers again without saying so,
	// nothing new is placed on the node, as on a drained one (draining),
	// and its Final sync marks it left (leave.go). A restarted master
	// reads it from the node history (restoreLeaves).
	leaving bool
	// goodbye is set while the reports of a sync that says the agent
	// leaves (Leaving or Final) are applied, before leave marks the node
	// leaving: a task that ended before the agent built its goodbye
	// reports there, and its end is the agent's stop too (leftWith).
	goodbye bool
	// version is the agent's build, from its registration; it is not
	// stored, as every agent registers again with a new master process.
	version string
	// told is the placement the node's agent last heard of, by its
	// registration reply or a sync reply since (placementNews), as of
	// configuration generation toldGen (Master.cfgGen), and first told
	// at generation toldSince: an agent that acknowledges a generation
	// from toldSince on has heard it (api.Sync.PlacementGen).
	told      api.NodePlacement
	toldGen   int
	toldSince int
	// dirty marks a change since the read view was last published.
	dirty bool
}

func (j *mjob) idString() string { return strconv.FormatInt(j.rec.ID, 10) }

// active is how many of the job's tasks hold attempts.
func (j *mjob) active() int { return j.count.Active }

// terminal is how many of the job's tasks have ended.
func (j *mjob) terminal() int { return j.count.Ended }

// live reports whether the job belongs in the mirror: by the rule that
// keeps the simulator's jobs on its roster (lifecycle.JobRecord.Live).
func (j *mjob) live() bool { return j.Live(j.count) }

func (t *mtask) id() agent.TaskID {
	return agent.TaskID{JobID: t.job.idString(), TaskIndex: t.rec.Index, Attempt: t.rec.Attempt}
}

func (t *mtask) part(node string) *mpart {
	if t.att == nil {
		return nil
	}
	for _, p := range t.att.parts {
		if p.node == node {
			return p
		}
	}
	return nil
}

// mayHaveRun reports whether t's attempt may have run, as a node's loss
// decides it: a part reported running, or its start command reached the
// agent (delivered), which may have started the process and frozen (a
// SIGSTOPped agent, a cut network) before its report came. A task that
// must not run twice is then held through the loss, or fails, rather
// than started again elsewhere while it may still run there. An agent
// that is heard from and does not run the attempt (settleMissing) is
// taken at its word instead: reportedRun.
func (t *mtask) mayHaveRun() bool {
	for _, p := range t.att.parts {
		if p.state != partStarting || p.delivered {
			return true
		}
	}
	return false
}

// reportedRun reports whether a part of t's attempt reported running.
func (t *mtask) reportedRun() bool {
	for _, p := range t.att.parts {
		if p.state != partStarting {
			return true
		}
	}
	return false
}

func newNode(rec store.Node) *mnode {
	return &mnode{rec: rec, used: map[int]*mtask{}, wake: make(chan struct{})}
}

func (n *mnode) up() bool { return n.rec.State == store.NodeUp }

// send queues a command for the node and wakes a held sync.
func (n *mnode) send(c api.Command) {
	n.commands = append(n.commands, c)
	close(n.wake)
	n.wake = make(chan struct{})
}

// release frees the GPUs that t's attempt holds.
func (m *Master) release(t *mtask) {
	delete(m.open, t)
	m.releaseParts(t, t.att.parts)
}

// hold marks the GPUs of t's attempt as used.
func (m *Master) hold(t *mtask) {
	m.open[t] = struct{}{}
	m.holdParts(t, t.att.parts)
}

// releaseParts frees the GPUs that parts hold for t.
func (m *Master) releaseParts(t *mtask, parts []*mpart) {
	for _, p := range parts {
		n := m.nodes[p.node]
		if n == nil {
			continue
		}
		m.pub.markNode(n)
		if len(p.gpus) == 0 {
			n.zeroUsed--
		}
		for _, g := range p.gpus {
			if n.used[g.Index] == t {
				delete(n.used, g.Index)
			}
		}
	}
}

// holdParts marks the GPUs of parts as used by t.
func (m *Master) holdParts(t *mtask, parts []*mpart) {
	for _, p := range parts {
		n := m.nodes[p.node]
		if n == nil {
			continue
		}
		m.pub.markNode(n)
		if len(p.gpus) == 0 {
			n.zeroUsed++
		}
		for _, g := range p.gpus {
			n.used[g.Index] = t
		}
	}
}

// settleJob persists the job state that its tasks imply, by the rule
// the simulator's lifecycle.Cluster follows, its record's
// (lifecycle.JobRecord.Settles): running while a task holds an attempt,
// queued when none does (lifecycle.LiveJob), and once every task is
// terminal, failed if any failed, else killed if any was killed, else
// completed, an experiment completed once a trial did
// (lifecycle.EndedJob; its reason, endedReason), its end its last
// task's (its processes' exit by its agents' word, jobEndedAt) while
// the event says when the master heard. A job that was killed stays
// killed, and ends with its last task (endWithLastTask). It drops the
// job from the mirror once it is no longer live. now stamps its
// transition: a handler's clock reading, a pass's instant (apply).
func (m *Master) settleJob(ctx context.Context, j *mjob, now time.Time) error {
	killed := j.State.Terminal()
	to := j.Settles(j.tasksSay())
	m.batches.touch(j)
	if to != j.State {
		reason, ended := settleReason(j, to, now)
		rec, err := m.batches.w().TransitionJob(ctx, store.JobTransition{ID: j.rec.ID, From: j.rec.State, To: to,
			At: now, EndedAt: ended, Reason: reason})
		if err != nil {
			return fmt.Errorf("settle job %d: %w", j.rec.ID, err)
		}
		e := setJob(m, j, rec)
		m.batches.later(func() { m.metric.jobEnded(e.From, rec.State) })
		if e.Ended {
			m.log.Info("job ended", "job", rec.ID, "state", rec.State, "reason", reason)
		}
	}
	if !j.live() {
		if err := m.endWithLastTask(ctx, j, killed); err != nil {
			return err
		}
		delete(m.jobs, j.rec.ID)
		j.gone = true
		m.goneJobs++
		m.wakeLogs(j.rec.ID)
	}
	return nil
}

// addJob puts a new job into the mirror, keeping m.order in id order:
// concurrent submissions arrive a few places out of order, so an insert
// near the end is cheaper than sorting the whole queue on the next pass.
// Callers hold mu.
func (m *Master) addJob(j *mjob) {
	for _, t := range j.tasks {
		// Its handler made its tasks queued (jobsAPI.submit): their
		// records are born in their rows' state, as newTask's.
		t.State = t.rec.State
	}
	m.jobs[j.rec.ID] = j
	if m.planner != nil {
		m.planner.roster.touch(j)
		m.planner.etaRun.want()
	}
	n := len(m.order)
	if n == 0 || m.order[n-1].rec.ID < j.rec.ID {
		m.order = append(m.order, j)
		return
	}
	i, _ := slices.BinarySearchFunc(m.order, j.rec.ID, func(x *mjob, id int64) int { return cmp.Compare(x.rec.ID, id) })
	m.order = slices.Insert(m.order, i, j)
}

// agentTimeout is how long a silent agent stays up.
func agentTimeout(cfg *config.Config) time.Duration {
	if cfg.AgentTimeout > 0 {
		return cfg.AgentTimeout
	}
	return DefaultAgentTimeout
}

// wakeLogs wakes log followers of a job.
func (m *Master) wakeLogs(id int64) {
	if c, ok := m.logc[id]; ok {
		close(c)
		delete(m.logc, id)
	}
}

// tasksOn lists the tasks with an open attempt that has a part on node,
// in (job, index) order. (A task may hold GPUs of node for a move without
// running there yet.)
func (m *Master) tasksOn(node string) []*mtask {
	n := m.nodes[node]
	seen := map[*mtask]bool{}
	var out []*mtask
	for _, t := range n.used {
		if !seen[t] && t.part(node) != nil {
			seen[t] = true
			out = append(out, t)
		}
	}
	// Zero-slot parts hold no GPU, so n.used does not find them.
	if n.zeroUsed > 0 {
		for _, j := range m.jobs {
			for _, t := range j.tasks {
				if p := t.part(node); p != nil && len(p.gpus) == 0 && !seen[t] {
					seen[t] = true
					out = append(out, t)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b *mtask) int {
		if a.job.rec.ID != b.job.rec.ID {
			return int(a.job.rec.ID - b.job.rec.ID)
		}
		return a.rec.Index - b.rec.Index
	})
	return out
}
