package sched

import "math"

// Never is the time value for "no known end": a task with no time limit.
const Never int64 = math.MaxInt64

// Policy names a pool's scheduling policy.
type Policy string

// The policies a pool can use.
const (
	PolicyFIFO      Policy = "fifo"
	PolicyBackfill  Policy = "backfill"
	PolicyFairShare Policy = "fair_share"
	PolicyPriority  Policy = "priority"
	PolicyQuota     Policy = "quota"
	// PolicyMultifactor orders jobs by a weighted sum of factors (Slurm's
	// multi-factor priority); see Multifactor.
	PolicyMultifactor Policy = "multifactor"
)

// Reservations selects the backfill flavour of a backfill pool.
type Reservations string

// EASY reserves for the queue head only; conservative reserves for every
// queued job.
const (
	ReserveEASY         Reservations = "easy"
	ReserveConservative Reservations = "conservative"
)

// Placement selects how tasks are put on nodes.
type Placement string

// Binpack fills the fullest node that fits (best fit); spread uses the
// emptiest.
const (
	PlaceBinpack Placement = "binpack"
	PlaceSpread  Placement = "spread"
)

// Topology is how strictly a gang keeps to one switch.
type Topology string

// TopologyPrefer (or "") places a gang under one switch when one has room
// and across switches otherwise; TopologyRequired waits for one switch.
const (
	TopologyPrefer   Topology = "prefer"
	TopologyRequired Topology = "required"
)

// Kind is the kind of a job.
type Kind string

// Job kinds. An experiment is a job of many trial tasks; the others are
// single tasks.
const (
	KindExperiment  Kind = "experiment"
	KindCommand     Kind = "command"
	KindNotebook    Kind = "notebook"
	KindShell       Kind = "shell"
	KindTensorBoard Kind = "tensorboard"
)

// Snapshot is everything the core may look at. Indices (Node.Pool,
// Job.Pool, Alloc.Job, NodeSlots.Node) refer to positions in its slices.
// The core never modifies a snapshot.
type Snapshot struct {
	Now    int64
	Pools  []Pool
	Nodes  []Node
	Jobs   []Job
	Allocs []Alloc
	// Projects are the quota entities of quota pools, in a tree.
	Projects []Project
	// Accounts are the fair-share entities of multifactor pools, in a
	// tree (users are leaf accounts).
	Accounts []Account
	// QOS lists the qualities of service jobs may name (Job.QOS).
	QOS []QOS
	// Licenses are cluster-wide consumable resources (Job.Licenses).
	Licenses []License
	// NodesVersion, when not 0, names the node list: a caller that passes
	// the same non-zero version as in the Scheduler's previous pass
	// promises that Nodes (and the pool count) did not change, and the
	// core skips comparing them node by node. 0 always compares.
	NodesVersion uint64
}

// Project is a quota entity (a team, a queue). Projects nest: a department
// holds projects, and a parent's quota is divided among its children.
type Project struct {
	Name string
	// Parent is the index of the parent project, or -1 at the top.
	Parent int
	// Quota is the deserved number of slots, guaranteed when demanded.
	Quota int
	// OverQuotaWeight divides spare slots among projects that want more
	// than their quota.
	OverQuotaWeight float64
	// Limit caps the slots the project may hold; 0 means no limit.
	Limit int
	// PreemptBudget caps how many of the project's tasks may be preempted
	// per hour, a thrash guard; 0 means no cap. Preempted is how many were
	// preempted in the last hour, which the caller counts: the core keeps
	// nothing between passes. The cap holds in every pool, for jobs whose
	// Project is a valid index.
	PreemptBudget int
	Preempted     int
}

// Pool is a set of nodes scheduled under one policy.
type Pool struct {
	Name         string
	Policy       Policy
	Preemption   bool
	Backfill     bool
	Serial       bool
	Reservations Reservations
	Placement    Placement
	// MinRunTime is how long, in seconds, a task must have run before it
	// may be preempted: a thrash guard. 0 means no minimum.
	MinRunTime int64
	// Multifactor holds the weights of a multifactor pool; other policies
	// ignore it.
	Multifactor Multifactor
}

// Node is one machine (an agent) with GPU slots.
type Node struct {
	Name   string
	Pool   int
	Slots  int
	GPU    string
	Labels map[string]string
	// Switch names the network switch (or any topology domain) the node
	// hangs off; "" for none. Gangs spanning nodes prefer nodes under one
	// switch.
	Switch string
	// ZeroSlotLimit caps how many zero-slot tasks may run on the node.
	ZeroSlotLimit int
	// Drained marks a node that takes no new work (a drain): its Slots
	// are what its running tasks hold, and a slot they free is gone, not
	// free, so that no reservation, shadow time or forecast counts on it.
	Drained bool
	// OwnSlots is a drained node's own slots, which its Slots were shrunk
	// from (lifecycle.CapDrained): a job too big for the pool even with
	// the node resumed is told it can never run, not to wait for a
	// resume (FeasibleResumed). Planning never reads it.
	OwnSlots int
}

// Job is a unit of submitted work whose tasks all need the same slots.
type Job struct {
	ID     string
	Pool   int
	Kind   Kind
	Submit int64
	// Seq orders jobs submitted at the same time; callers give each job a
	// distinct, increasing number.
	Seq         int64
	Priority    int
	Weight      float64
	Preemptible bool
	// Slots is the number of slots each task needs; zero marks zero-slot
	// tasks, which are scheduled apart from slot tasks. For an elastic job
	// it is the largest size a task may have.
	Slots int
	// MinSlots makes the job elastic when it is not 0: a task that cannot
	// be placed at Slots starts at a halved size, down to MinSlots, and a
	// running task smaller than Slots doubles when slots are spare (see
	// elastic.go). 0 means not elastic; else 1 <= MinSlots <= Slots.
	MinSlots int
	// Waiting counts tasks that are ready to start: never started, or
	// preempted and waiting to resume.
	Waiting int
	// MaxRunning caps how many of the job's tasks may run at once.
	MaxRunning int
	// TimeLimit bounds each task's run, in seconds; 0 means none.
	TimeLimit int64
	// GPU, when set, restricts the job to nodes of that GPU type.
	GPU string
	// Project is the job's index in Snapshot.Projects. Only quota pools
	// read it.
	Project int
	// Interactive marks notebooks, shells and the like: under quota they
	// run only within their project's quota, may preempt unattended work of
	// their own project, and are never preempted.
	Interactive bool
	// Borrow marks work that does not count toward any quota (OSMO's LOW
	// class): it only uses idle slots and any quota work may reclaim them.
	Borrow bool
	// Topology says whether a task spanning nodes must (TopologyRequired)
	// or should (TopologyPrefer, the default) use nodes under one switch.
	Topology Topology
	// Reserved is the start time the previous pass reserved for the job
	// under conservative backfilling (its Pending.At), or 0 for none.
	// Carrying it lets the next pass compress the schedule as the textbook
	// does: a reservation may move earlier but never later.
	Reserved int64
	// ReservedNodes is where that reservation was (its Pending.Nodes), on
	// pools that reserve per node; empty otherwise. With it the next pass
	// puts the promise back exactly; without it, anywhere it fits then.
	ReservedNodes []NodeSlots
	// Account is the job's index in Snapshot.Accounts. Only multifactor
	// pools whose fair-share weight is positive read it.
	Account int
	// QOS is the job's index in Snapshot.QOS, or 0 when the snapshot lists
	// none. Multifactor pools read it for the QOS factor, multifactor and
	// priority pools for preemption by QOS.
	QOS int
	// Nice is subtracted from the job's multifactor priority, in priority
	// units: a positive nice lowers it, a negative one raises it.
	Nice int
	// Licenses are what each task of the job holds while it runs.
	Licenses []LicenseUse
	// Rev, when not 0, is the job's revision: the caller gives a job a
	// Rev that no job of its earlier snapshots had when it adds the job
	// and whenever it changes any of the job's fields (Waiting included),
	// and keeps it while the job is unchanged, whatever its index; no two
	// jobs of a snapshot share a non-zero Rev. A counter will do, and an
	// increasing one is cheapest to match. A Scheduler reuses what its
	// previous pass worked out for a job with the same Rev (its place in
	// the queue order, its validation, whether any node could ever hold
	// it) instead of working it out again, so that a pass after a few
	// submissions and exits redoes that work for those jobs only. 0 always
	// works it out; a caller gives Revs to all its jobs or to none (a
	// snapshot whose first and last jobs have none is taken to have none).
	Rev uint64
}

// NodeSlots is the part of an allocation on one node.
type NodeSlots struct {
	Node  int32
	Slots int32
}

// Alloc is one running task and the slots it holds.
type Alloc struct {
	Job int
	// Nodes lists each node the task holds once, with its slots there; a
	// node listed twice is an inconsistent snapshot (Schedule's error).
	Nodes []NodeSlots
	Start int64
	// Preempting marks a task that was asked to checkpoint and stop: it
	// still holds its slots, which will be free soon.
	Preempting bool
	// Backfilled marks a task started on slots that a blocked,
	// higher-priority task could not use; it may be evicted for that task
	// even when the pool does not preempt.
	Backfilled bool
	// Checkpoint is when the task last saved a checkpoint, or 0 for never:
	// preempting it loses the work done since max(Start, Checkpoint), and
	// victims are chosen to lose the least.
	Checkpoint int64
	// Moving marks the old placement of a task that a plan moved or
	// resized (Plan.Moves, Plan.Resizes): it is Preempting too and drains
	// like a preempted task, but the task runs on in its new allocation
	// and does not go back to its job's waiting tasks.
	Moving bool
	// FreeBy, for a Preempting allocation, is when its slots are free
	// at the latest: the stop request's time plus the grace after which
	// what has not stopped is killed (a pool's checkpoint grace, or a
	// kill's kill_grace; in the simulator, when the checkpoint lands or
	// a slow kill ends: lifecycle.Hold.FreeBy). 0 when not known.
	// Schedule does not read it; Forecast frees the slots then rather
	// than at once.
	FreeBy int64
}

// Lost is the work, in seconds, that preempting the task at now would
// throw away: the time since its last checkpoint, or since its start.
func (a *Alloc) Lost(now int64) int64 {
	return max(0, now-max(a.Start, a.Checkpoint))
}

// End is when the allocation's time limit runs out, or Never.
func (a *Alloc) End(jobs []Job) int64 {
	lim := jobs[a.Job].TimeLimit
	if lim <= 0 {
		return Never
	}
	return a.Start + lim
}

// Plan is the result of one scheduling pass. Slices are owned by the
// Scheduler that produced the plan and are valid until its next pass.
type Plan struct {
	Starts      []Start
	Preemptions []Preemption
	Pending     []Pending
	// Moves re-place running tasks to make room for a pending one
	// (consolidate.go); Resizes grow elastic tasks (elastic.go).
	Moves   []Move
	Resizes []Resize
}

// Start launches one task of a job on the given nodes.
type Start struct {
	Job   int
	Nodes []NodeSlots
	// Backfill marks a start that only happened because a blocked
	// higher-priority or earlier job left idle slots.
	Backfill bool
	// Priority is the job's multi-factor priority in this pass, by
	// which its multifactor pool ordered it (0 in other pools): the
	// priority a job starts with, which both drivers keep for a running
	// job as Slurm does.
	Priority float64
}

// Preemption asks a running task to checkpoint and release its slots.
type Preemption struct {
	Alloc int
	// For is the job whose waiting task needs the slots.
	For int
}

// Slots returns the total slots of a placement.
func Slots(ns []NodeSlots) int {
	n := 0
	for _, x := range ns {
		n += int(x.Slots)
	}
	return n
}
