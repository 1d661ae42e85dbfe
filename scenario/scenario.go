package scenario

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/yamlfield"
)

// Scheduling policies of a pool.
const (
	PolicyFIFO      = "fifo"
	PolicyBackfill  = "backfill"
	PolicyFairShare = "fair_share"
	PolicyPriority  = "priority"
	PolicyQuota     = "quota"
	// PolicyMultifactor orders jobs by a weighted sum of factors (Slurm's
	// multi-factor priority); see Multifactor.
	PolicyMultifactor = "multifactor"
)

// Fair-share modes of a multifactor pool.
const (
	FairShareClassic = "classic"
	FairShareTree    = "fair_tree"
)

// Topology modes of a job whose tasks span nodes.
const (
	TopologyPrefer   = "prefer"
	TopologyRequired = "required"
)

// SwitchLabel is the node label that names a node's network switch, as on
// the live master (the cluster spec's): gangs prefer (or, with topology:
// required, need) nodes under one switch.
const SwitchLabel = spec.SwitchLabel

// Reservation modes of a backfill pool.
const (
	ReservationsEasy         = "easy"
	ReservationsConservative = "conservative"
)

// Task placement strategies of a pool.
const (
	PlacementBinpack = "binpack"
	PlacementSpread  = "spread"
)

// Job kinds.
const (
	KindExperiment  = "experiment"
	KindCommand     = "command"
	KindNotebook    = "notebook"
	KindShell       = "shell"
	KindTensorboard = "tensorboard"
)

// Trace file formats.
const (
	TraceSWF = "swf"
	TraceCSV = "csv"
)

// Priority classes: named bands of priorities, as in job files. A class
// alone sets its canonical number (HIGH 10, NORMAL 42, LOW 80); a
// priority alone has the class of its band (1-29, 30-59, 60-99).
const (
	ClassHigh   = "HIGH"
	ClassNormal = "NORMAL"
	ClassLow    = "LOW"
)

// What happens to a task after it is preempted (its exit action).
const (
	OnPreemptReschedule = spec.OnPreemptReschedule
	OnPreemptFail       = spec.OnPreemptFail
)

// Job defaults and limits.
const (
	DefaultPriority = 42
	MinPriority     = 1
	MaxPriority     = 99
	DefaultWeight   = 1.0
	// MaxNice bounds a job's nice either way.
	MaxNice = 1_000_000_000
)

// MaxNodes bounds the number of nodes in one file after count expansion, so
// that a typo such as "count: 1000000000" fails cleanly instead of
// exhausting memory.
const MaxNodes = 100_000

// The value lists below are in the order error messages present them.
var (
	policies     = spec.Policies
	topologies   = []string{TopologyPrefer, TopologyRequired}
	classes      = []string{ClassHigh, ClassNormal, ClassLow}
	reservations = spec.Reservations
	placements   = spec.Placements
	kinds        = []string{KindExperiment, KindCommand, KindNotebook, KindShell, KindTensorboard}
	traceFormats = []string{TraceSWF, TraceCSV}
)

// Scenario is one parsed and validated scenario file.
type Scenario struct {
	Name string // the name given to Parse, or the path given to Load
	// Cluster holds the cluster spec's sections (package spec, shared
	// with the master's configuration): the pools; the projects, the quota
	// entities of quota pools; the cluster-wide licenses and the
	// qualities of service jobs may name, all in file order; and the
	// decay, which says how fast the accounts' past usage stops counting:
	// the file's, else DefaultDecay when some pool reads accounts.
	spec.Cluster[Pool]
	// Accounts are the fair-share entities of multifactor pools: the
	// file's accounts in file order, then one leaf per (account, user)
	// pair that jobs name, in order of first use (see UserAccount).
	Accounts []Account
	// Epoch is the Unix time (seconds) of time 0, so that the decay's
	// periods fall where the live master's do, aligned to the Unix epoch
	// (a history export sets it to the window's start); 0 aligns them to
	// time 0.
	Epoch  int64
	Jobs   []Job     // in file order; empty when Trace is set
	Trace  *TraceRef // set when jobs come from a trace file
	Events []Event   // in file order
}

// TraceRef points at a job trace used instead of inline jobs.
type TraceRef struct {
	Path   string // relative to the scenario's directory when loaded with Load
	Format string // TraceSWF, TraceCSV, or "" to let the caller decide
	Line   int
}

// Pool is a set of nodes scheduled by one policy: the cluster spec's pool
// (name, policy and options, in package spec, shared with the master's
// configuration) and what only a scenario gives. Multifactor is zero
// for pools of other policies; MinRunTime is whole seconds.
type Pool struct {
	spec.Pool
	Serial         bool
	CheckpointCost int64 // seconds
	Nodes          []Node
	// Quota is the pool's own GPU quota (OSMO pools), or -1 for none. A
	// pool with a quota is a quota pool whose jobs form one project named
	// after the pool.
	Quota int
	// SharesNodesWith names the pool whose nodes this one shares; it is
	// "" for a pool with nodes of its own. A sharing pool has no Nodes and
	// takes Policy, Placement and CheckpointCost from that pool.
	SharesNodesWith string
	// OnPreempt and MaxRetries are the defaults of the pool's jobs:
	// OnPreemptReschedule or OnPreemptFail, and -1 for no retry cap.
	OnPreempt  string
	MaxRetries int
}

// Multifactor configures a multifactor pool: a job's priority is
// Age·age + FairShare·fair_share + JobSize·job_size + QOS·qos + Pool·pool
// − nice, each factor in 0..1 (see docs/policies.md). It is the core's
// type, read by the cluster spec (package spec). In a scenario, MaxAge is
// set exactly when Age is positive, FairShareMode exactly when FairShare
// is, and FavorSmall only with a JobSize weight.
type Multifactor = sched.Multifactor

// Account is a fair-share entity of multifactor pools: a department, a
// group, or a user. Accounts nest; jobs charge their usage to one.
type Account struct {
	Name   string
	Parent string // "" at the top
	// Shares is the entitlement relative to the account's siblings.
	Shares float64
	// Usage is the decayed usage the account starts with, as a share of
	// the multifactor pools' capacity over one decay period.
	Usage float64
	// User marks a leaf made for a user that jobs name under Parent; its
	// Name is UserAccount(Parent, user) and its Shares 1. A user's leaf
	// the file declares (to give it shares or usage) has the same Name
	// and Parent, and User false.
	User bool
	Line int
}

// UserAccount is the name of the leaf account a user's jobs charge under
// account: "account/user". Declared account names contain "/" only to
// declare such a leaf.
func UserAccount(account, user string) string { return account + "/" + user }

// Decay says how fast past usage stops counting: the cluster spec's type
// (package spec), shared with the master's configuration.
type Decay = spec.Decay

// DefaultDecay is Slurm's default: usage counted per day with a half-life
// of seven days.
var DefaultDecay = spec.DefaultDecay

// Project is a quota entity (a team, a department) of quota pools: the
// cluster spec's type (package spec), shared with the master's
// configuration. OverQuotaWeight defaults to Quota (1 without one);
// Limit and PreemptBudget are 0 for none; Shares is 0, as scenario
// projects take none (accounts carry fair-share shares).
type Project = spec.Project

// Node is one machine; a "count: N" entry in the file becomes N Nodes.
// Its name and labels are the cluster spec's node, shared with the
// master's node rules; slots and the GPU type are what a live node
// reports when it registers.
type Node struct {
	spec.Node
	Slots int
	GPU   string
	Line  int
}

// Job is a group of identical tasks submitted together.
type Job struct {
	Name          string
	Kind          string
	Submit        int64 // seconds from time 0
	Pool          string
	Tasks         int
	MaxConcurrent int
	Slots         int
	Duration      int64 // seconds; -1 when absent: the task runs until killed
	TimeLimit     int64 // seconds; 0 when absent
	Priority      int
	// PriorityClass is always the class of Priority's band.
	PriorityClass string
	Weight        float64
	Preemptible   bool
	// Project is the job's quota entity: the project it names, or for a
	// job in a pool with a quota, that pool's name. "" for none.
	Project string
	User    string
	// Interactive work runs only within its project's quota and is never
	// preempted; it is false outside quota pools unless the kind sets it.
	Interactive bool
	// GPU restricts the job to nodes of that GPU type; "" for any.
	GPU string
	// CheckpointEvery is how often a task checkpoints, in seconds; 0 when
	// absent (a preempted task keeps all its progress).
	CheckpointEvery int64
	// OnPreempt and MaxRetries are resolved: the job's own, else its
	// pool's, else reschedule with no cap (-1).
	OnPreempt  string
	MaxRetries int
	// QOS names one of the file's QOS levels, or "" for none (the first
	// one listed, if any). Licenses maps license names of the file to how
	// many each task holds while it runs; nil for none.
	QOS      string
	Licenses map[string]int
	// Account is the fair-share account the job names (multifactor pools
	// with a fair-share weight), or "". With a User the job charges the
	// user's leaf under it, UserAccount(Account, User); else the account
	// itself.
	Account string
	// Nice lowers (positive) or raises (negative) the job's multifactor
	// priority, in priority units.
	Nice int
	// Topology is TopologyPrefer or TopologyRequired for a task that
	// spans nodes, or "" (prefer).
	Topology string
	// MinSlots makes the job elastic when it is not 0: each task asks
	// for Slots (= MaxSlots) and may shrink by halving down to MinSlots,
	// then grow back by doubling. MaxSlots is Slots for an elastic job and
	// 0 otherwise.
	MinSlots int
	MaxSlots int
	// AllowInfeasible keeps a job whose tasks can never run within its
	// quota or under a limit (a quota pool): it waits, as the live master
	// keeps such a job waiting, instead of the file being rejected.
	AllowInfeasible bool
	// KeepQOS keeps a job whose QOS (named, or the first level it takes)
	// its project's qos list does not allow (priority and multifactor
	// pools): the live master checks the list at submission only, so a
	// job accepted before a reload took its level off the list keeps it,
	// and a history export marks such a job so, instead of the file
	// being rejected.
	KeepQOS bool
	// Held submits the job held (allot submit --hold): no pass
	// considers it until a release event.
	Held bool
	// AfterPass settles the instant before the job is submitted: the
	// jobs submitted before it in the same second, and the ends due then,
	// get their passes first, as a live master that ran a pass between
	// them decided. The what-if export sets it; false (the default)
	// submits every job of a second before one settling. On a job alone
	// in its second it still settles the ends due then first, so it is
	// no error there (sim's TestAfterPassAlone).
	AfterPass bool
	// FirstPass, when later than Submit, is when the scheduler first
	// considers the job: the simulator submits it then, after the ends
	// due and before the other submissions of that instant, while its
	// Submit still orders it in the queue and counts its age. The
	// what-if export sets it where the live master's first pass after
	// the submission read its clock in the next second (the job reached
	// no scheduler before then); 0 (the default) is at Submit.
	FirstPass int64
	// Fails scripts tasks that fail (TaskFail), in the file's order; nil
	// for none.
	Fails []TaskFail
	// StartFails scripts starts that fail (StartFail), in the file's
	// order; nil for none. A task is in Fails or StartFails, not both.
	StartFails []StartFail
	// StartLost scripts starts that no agent answers (StartLost), in the
	// file's order; nil for none.
	StartLost []StartLost
	// Lost scripts attempts lost while their nodes stay up (an agent
	// restarted without them, or reporting it does not run them), in
	// the file's order; nil for none: task Task's attempt Attempt
	// (numbered as in StartFail) ends lost After seconds after its
	// start, by a lost node's rule (lifecycle.EventAttemptLost): it keeps
	// what its last periodic checkpoint saved and waits again when the
	// job is preemptible, by its exit actions, or fails. An attempt is in
	// StartLost or Lost, not both; one that has ended by then is not
	// lost.
	Lost []StartLost
	// Runs give tasks their own run times (TaskRun), in the file's
	// order; nil for none: the others run for Duration. A task with one
	// may fail (Fails) or be stopped (Stops) within it, not fail to
	// start (StartFails). An experiment with a Searcher has none.
	Runs []TaskRun
	// Stops scripts tasks stopped from outside (TaskStop), as a searcher
	// stops a trial live, in the file's order; nil for none. A task is
	// in at most one of Fails, StartFails and Stops.
	Stops []TaskStop
	// AgentPreempted scripts attempts that their agent preempted as it
	// shut down (allot agent --on-exit kill) or as its fence stopped them
	// in a master outage (docs/reliability.md), in the file's order; nil
	// for none: task Task's attempt Attempt ends preempted After seconds
	// after its start, its checkpoint landing at once, as after a
	// preemption no pass decided (lifecycle.EventAgentPreempted). An
	// attempt is in one of StartLost, Lost and AgentPreempted at most.
	AgentPreempted []StartLost
	// Checkpoints give attempts their own checkpoint times, in the file's
	// order; nil for none: once a pass asks task Task's attempt Attempt
	// (numbered as in StartFail) to checkpoint (a preemption, a move or a
	// resize), its checkpoint lands After seconds later, where the others
	// take their pool's CheckpointCost; an item with an Nth is for that
	// checkpoint of the attempt only (Checkpoint). The what-if export
	// writes them for the attempts whose checkpoints took another time
	// live.
	Checkpoints []Checkpoint
	// LateExits script the attempts whose exit the live master heard of
	// late (LateExit), in the file's order; nil for none: each is charged
	// to its account until its exit, while its slots stay held until it
	// ends.
	LateExits []LateExit
	// SlowKills script the attempts whose kill the live master waited
	// for a second or more (SlowKill), in the file's order; nil for none:
	// each holds its slots, killing, until its kill's end.
	SlowKills []SlowKill
	// EndsAfterPass are the attempts whose end comes after the settling
	// of its instant (EndAfterPass), in the file's order; nil for none.
	EndsAfterPass []EndAfterPass
	// Searcher, for an experiment that has one, decides from the trials'
	// metric reports which trials go on and which stop early; nil
	// otherwise. Tasks is then its MaxTrials and Duration
	// MaxLength × StepTime.
	Searcher *Searcher
	// StepTime is the run time of one step of a trial of a job with a
	// Searcher (at max_slots, for an elastic job); 0 otherwise.
	StepTime int64
	// Curves holds, with a Searcher, the metric reports of each trial
	// (MaxTrials curves, by trial index), steps rising within
	// 0..MaxLength; nil otherwise.
	Curves [][]Point
	Line   int
}

// Arrival is when the simulator submits the job: its first_pass, when
// later than its submit.
func (j *Job) Arrival() int64 { return max(j.Submit, j.FirstPass) }

// Charged is the account the job's usage is charged to (see Account), or
// "" for none.
func (j *Job) Charged() string {
	switch {
	case j.Account == "":
		return ""
	case j.User != "":
		return UserAccount(j.Account, j.User)
	}
	return j.Account
}

// minSize is the smallest task the job can run: MinSlots for an elastic
// job, else Slots.
func (j *Job) minSize() int {
	if j.MinSlots > 0 {
		return j.MinSlots
	}
	return j.Slots
}

// EventKind names what an Event does.
type EventKind string

// Event kinds.
const (
	EventKill        EventKind = "kill"
	EventSetPriority EventKind = "set_priority"
	EventSetWeight   EventKind = "set_weight"
	// EventSetTimeLimit changes a job's time limit (Event.TimeLimit, 0
	// for none) from then on, as allot job update --time-limit does: its
	// running tasks end at the new limit, counted from their attempts'
	// starts, at once where they are past it already.
	EventSetTimeLimit EventKind = "set_time_limit"
	// EventSetQOS changes a job's QOS level (Event.QOS), EventSetNice its
	// nice (Event.Nice), as allot job update --qos and --nice do.
	EventSetQOS  EventKind = "set_qos"
	EventSetNice EventKind = "set_nice"
	// EventHold holds a job (allot job hold): no pass considers it until
	// EventRelease; it keeps its submission time. A job with a task
	// holding slots at the event cannot be held, as the live master
	// refuses it: the event changes nothing then.
	EventHold    EventKind = "hold"
	EventRelease EventKind = "release"
	// EventRequeue requeues a job (allot job requeue): each of its
	// running tasks checkpoints as a preemption asks and, once its
	// checkpoint lands, waits again to resume from it; with Hold
	// (hold: true) the job is held too, until EventRelease. A job with a
	// task being moved or resized, or whose exit actions would fail a
	// task rather than requeue it, is not requeued, as the live master
	// refuses it.
	EventRequeue EventKind = "requeue"
	// EventNodeDown: a node is lost. The attempts on it end as lost (a
	// preemptible job's task is requeued by its job's exit actions,
	// another's fails) and it offers no slots until EventNodeUp.
	EventNodeDown EventKind = "node_down"
	EventNodeUp   EventKind = "node_up"
	// EventDrain: an admin drains a node (allot node drain). The tasks on
	// it run on; none starts there, and none there is preempted, until
	// EventResume.
	EventDrain  EventKind = "drain"
	EventResume EventKind = "resume"
	// EventNodeDelete: an admin deletes a node (allot node delete). It
	// goes down as at EventNodeDown, no longer drained, and, gone for
	// good, leaves the capacity that fair-share usage is a share of,
	// until EventNodeUp (a node of its name registering again).
	EventNodeDelete EventKind = "node_delete"
	// EventNodeReshape: a node's agent registers again with another
	// inventory (Event.Shape: its slots, GPU type and labels from then
	// on). The tasks on it run on, and every slot they hold counts
	// against the new ones until they end, as on the live master: a node
	// with fewer slots than its tasks hold is full until they end. Its
	// pool stays, unless Event.Pool names another: the node moves there
	// with its tasks, which run on.
	EventNodeReshape EventKind = "node_reshape"
)

var eventKinds = []EventKind{EventKill, EventSetPriority, EventSetWeight, EventSetTimeLimit, EventSetQOS, EventSetNice, EventNodeDown, EventNodeUp, EventDrain, EventResume,
	EventNodeDelete, EventNodeReshape, EventHold, EventRelease, EventRequeue}

// OfNode reports an event that names a node rather than a job.
func (k EventKind) OfNode() bool {
	return k == EventNodeDown || k == EventNodeUp || k == EventDrain || k == EventResume || k == EventNodeDelete ||
		k == EventNodeReshape
}

// Event changes a job or a node at a point in simulated time.
type Event struct {
	At       int64 // seconds from time 0
	Kind     EventKind
	Job      string
	Priority int     // for EventSetPriority
	Weight   float64 // for EventSetWeight
	// TimeLimit (seconds, 0 for none), QOS and Nice are for
	// EventSetTimeLimit, EventSetQOS and EventSetNice.
	TimeLimit int64
	QOS       string
	Nice      int
	// Hold is for EventRequeue: the job is held too.
	Hold bool
	Node string // for EventNodeDown, EventNodeUp, EventDrain, EventResume, EventNodeDelete, EventNodeReshape
	// Shape is, for EventNodeReshape, the node's slots, GPU type and
	// labels from the event on (its Name is Node); nil otherwise.
	Shape *Node
	// Pool is, for EventNodeReshape, the pool the node moves to, a pool
	// of the file with nodes of its own; "" keeps it where it is.
	Pool string
	// AfterPass settles the instant before the event (its submissions,
	// the events before this one and the ends due then get their passes
	// first), as a live master that ran a pass that decided something
	// between this event and what came before it in the same second. The
	// what-if export sets it; false (the default) takes every scripted
	// event of a second before one settling.
	AfterPass bool
	// Before, when set, names a job the file submits at the event's
	// time: the event comes just before that job's submission, after
	// the submissions before it in the second, as a live master took a
	// node event and then a submission in the same second. The what-if
	// export sets it; "" (the default) comes after every submission of
	// the second.
	Before string
	Line   int
}

// Load reads the scenario file at path and parses it. A relative trace path
// in the file is resolved against the file's directory.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load scenario: %w", err)
	}
	s, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	if s.Trace != nil && !filepath.IsAbs(s.Trace.Path) {
		s.Trace.Path = filepath.Join(filepath.Dir(path), s.Trace.Path)
	}
	return s, nil
}

// Parse parses and validates a scenario. name only labels error messages;
// Parse reads no files, so a trace path is returned exactly as written.
func Parse(name string, data []byte) (*Scenario, error) {
	p := &parser{Parser: spec.NewParser(yamlfield.New(name, format), dialect)}
	root, ok := p.Decode(data)
	if !ok {
		return nil, p.Err()
	}
	s := p.scenario(root)
	if err := p.Err(); err != nil {
		return nil, err
	}
	s.Name = name
	return s, nil
}

// parser holds the state of one Parse call. Validation keeps going after
// an error so that one run reports several independent mistakes; the
// name tables let later sections check references to earlier ones. The
// sections that keep no state of their own read with parts that share
// its spec.Parser (and the name tables): searchParser (a job's searcher
// and curves), scriptParser (a job's scripted failures and losses) and
// eventParser (the events).
type parser struct {
	*spec.Parser
	names

	accounts      map[string]*accountInfo
	accountOrder  []string
	accountsKnown bool // every account entry has a valid name
	// userLeaves are the leaf accounts made for users, in order of first
	// use; direct lists jobs of fair-tree pools that charge an account
	// itself, which must stay a leaf.
	userLeaves []Account
	direct     []directCharge
}

// names are the tables of the pools, nodes and jobs the file names, kept
// as the sections are read, against which later sections (jobs, events)
// check their references.
type names struct {
	pools         map[string]*poolInfo
	nodeLines     map[string]int
	nodeOrder     []string             // the nodes' names, in file order
	nodeGroups    map[string]nodeGroup // by name, the entries with a count > 1
	nodeTotal     int
	jobLines      map[string]int
	jobOrder      []string
	jobNamesKnown bool // every job entry has a valid name
	// jobPools maps job names to their pools, for the event checks.
	jobPools map[string]string
	// jobSubmits maps job names to the times the simulator submits them
	// (Job.Arrival), for the check of an event's before.
	jobSubmits map[string]int64
}
