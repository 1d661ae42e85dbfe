package sched

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/allot-sched/allot/plural"
)

// Reason says why a job still has waiting tasks after a pass. Pending keeps
// the numbers behind the reason so that messages are only formatted when
// somebody reads them.
type Reason uint8

// The reasons a job can wait.
const (
	// ReasonNoCapacity: the pool has fewer free slots than a task needs.
	ReasonNoCapacity Reason = iota + 1
	// ReasonFragmented: enough slots are free in total, but not on one node
	// (or not as whole nodes for a gang).
	ReasonFragmented
	// ReasonBehind: an earlier or higher-priority job is blocked and this
	// job may not pass it.
	ReasonBehind
	// ReasonSerial: a serial FIFO pool runs one job at a time.
	ReasonSerial
	// ReasonCheckpointing: slots were freed for this job by preemption and
	// the victims are still checkpointing.
	ReasonCheckpointing
	// ReasonReserved: the job is the backfill queue head, or holds a
	// conservative reservation, and will start at the reserved time.
	ReasonReserved
	// ReasonWouldDelay: the job fits now but starting it would delay an
	// earlier job's reservation; or (Pending.At Never) the earlier job has
	// no reservation (a task it waits for has no time limit) and this job
	// has no time limit either, so it could hold that job's slots for
	// ever: only a job with a time limit may start before it.
	ReasonWouldDelay
	// ReasonMaxConcurrent: the job already runs as many tasks as it may.
	ReasonMaxConcurrent
	// ReasonAboveShare: under fair share the job holds slots, at least its
	// share, and no slots are idle. A job holding nothing gets the room's
	// reason instead.
	ReasonAboveShare
	// ReasonZeroSlotFull: every node up that could take the job's
	// zero-slot task runs its limit of them (a job no node up could take
	// waits with ReasonNoNodes or ReasonGPUType instead).
	ReasonZeroSlotFull
	// ReasonNoNodes: no node of the pool can ever hold a task of the job
	// (for example no node of the requested GPU type, or too few slots).
	ReasonNoNodes
	// ReasonOverQuota: interactive or non-preemptible work may only run
	// within its project's quota, and this task would exceed it.
	ReasonOverQuota
	// ReasonLimit: the task would take its project (or a parent) past its
	// hard limit.
	ReasonLimit
	// ReasonNoSpare: the task would take its project past its quota or
	// its fair share, which only idle slots may serve, and too few are
	// idle. (Within quota and share, a task that cannot reclaim waits with
	// no_capacity or fragmented instead.)
	ReasonNoSpare
	// ReasonTopology: the task spans nodes, must stay under one switch,
	// and no switch has enough whole nodes free.
	ReasonTopology
	// ReasonLicense: a license the task needs is not free (Pending.License
	// says which), or the task needs more of it than exist.
	ReasonLicense
	// ReasonGPUType: no node of the pool has the GPU type the job asks for.
	ReasonGPUType
)

var reasonNames = [...]string{
	ReasonNoCapacity:    "no_capacity",
	ReasonFragmented:    "fragmented",
	ReasonBehind:        "behind",
	ReasonSerial:        "serial",
	ReasonCheckpointing: "checkpointing",
	ReasonReserved:      "reserved",
	ReasonWouldDelay:    "would_delay",
	ReasonMaxConcurrent: "max_concurrent",
	ReasonAboveShare:    "above_share",
	ReasonZeroSlotFull:  "zero_slot_full",
	ReasonNoNodes:       "no_nodes",
	ReasonOverQuota:     "over_quota",
	ReasonLimit:         "project_limit",
	ReasonNoSpare:       "no_spare",
	ReasonTopology:      "topology",
	ReasonLicense:       "license",
	ReasonGPUType:       "gpu_type",
}

// String is the reason's stable machine name, used in JSON and the API.
func (r Reason) String() string {
	if int(r) < len(reasonNames) && reasonNames[r] != "" {
		return reasonNames[r]
	}
	return "reason(" + strconv.Itoa(int(r)) + ")"
}

// CodeNoReservation is the code of a backfill queue's head for which no
// start time can be reserved (ReasonReserved with no At): "reserved"
// would contradict its message.
const CodeNoReservation = "no_reservation"

// Code is the pending job's stable machine name as the API shows it: its
// Reason's, but CodeNoReservation for a head of the queue that got no
// reservation. Only the name differs; every rule reads Reason.
func (p Pending) Code() string {
	if p.Reason == ReasonReserved && (p.At < 0 || p.At == Never) {
		return CodeNoReservation
	}
	return p.Reason.String()
}

// Pending explains why a job keeps waiting tasks after the pass.
type Pending struct {
	Job    int
	Reason Reason
	// Blocker is the job that blocks this one (ReasonBehind, ReasonSerial,
	// ReasonWouldDelay), or -1.
	Blocker int
	// Need is the slots one waiting task needs; for an elastic job, reasons
	// about room (no_capacity, fragmented, no_nodes, topology, reserved,
	// checkpointing and the quota reasons) give the size last tried, which
	// is MinSlots once every size failed. Free is how many slots of the
	// pool were free (or, for a gang, how many the best option had); for
	// no_nodes it is the largest task the pool's nodes could hold
	// together, when known (Feasible gives the same at submit).
	Need, Free int
	// At is the reserved or estimated start time, or -1 when unknown.
	// For ReasonWouldDelay it is -1, or Never when the job it may not
	// pass (Blocker) has no reserved start.
	At int64
	// License is, for ReasonLicense, the index of the license the task is
	// short of; LicenseNeed is how many one task needs and LicenseFree how
	// many were free.
	License, LicenseNeed, LicenseFree int
	// Priority is the job's computed priority in a multifactor pool
	// (higher runs first), and 0 elsewhere.
	Priority float64
	// Queued marks a conservative reservation: the job holds its place in
	// the schedule, it is not (necessarily) the head of the queue.
	Queued bool
	// Turn is the job's place, from 1, among its pool's pending jobs in
	// the order the pool's policy offered them in this pass: the Turns of
	// a pool are 1..n over its n entries. Static orders (FIFO, backfill,
	// priority, multifactor) offer their sorted queue, which the walk and
	// the gates follow, so a job keeps its place in it when it is skipped
	// as no_nodes, dealt with by a gate (backfilled, reserved, behind) or
	// left when the walk stops early; dynamic orders (fair share, quota
	// rounds) count each job's first turn, and a quota pool's borrowing
	// work in the order it is tried on the idle slots after the rounds.
	// Zero-slot jobs come after, in their order; then the jobs the order
	// never offered (held back before their turn: over_quota, a limit,
	// max_concurrent, no_nodes under fair share; or left when the rounds
	// ended), in the order of their entries. It reports the order only:
	// no decision reads it. (An int32, in the padding after Queued, so
	// that Pending keeps its size.)
	Turn int32
	// Nodes is, for a conservative reservation on a pool that reserves per
	// node, where the task will run; callers carry it into the next pass
	// as Job.ReservedNodes. Owned by the Scheduler like the rest of the
	// plan.
	Nodes []NodeSlots
}

// Message renders the pending reason for people. In a multifactor pool it
// ends with the job's computed priority. It reads s as it stands: the
// over_quota advice counts the slots idle in s (Snapshot.BorrowIdle),
// which is right for a snapshot no pass has placed in; after a pass,
// Plan.Message counts those its plan leaves idle.
func (p Pending) Message(s *Snapshot) string { return p.render(s, nil) }

// Message renders plan's pending entry i for people, as Pending.Message
// does, but with the state plan leaves: the over_quota advice counts
// the slots still idle once plan's starts, moves and resizes hold theirs
// (Plan.BorrowIdle), not those the same pass gave away.
func (pl *Plan) Message(s *Snapshot, i int) string { return pl.Pending[i].render(s, pl) }

// render is Message with the state after plan, or s as it stands when
// plan is nil.
func (p Pending) render(s *Snapshot, plan *Plan) string {
	m := p.message(s, plan)
	if p.Job >= 0 && p.Job < len(s.Jobs) {
		if pool := s.Jobs[p.Job].Pool; pool >= 0 && pool < len(s.Pools) && s.Pools[pool].Policy == PolicyMultifactor {
			m += "; priority " + fmtPriority(p.Priority)
		}
	}
	return m
}

// drainedMessage says that a no_nodes job waits for drained nodes of its
// pool to be resumed, naming them (up to three), or "" when the pool has
// no drained node of the job's GPU type: then it can never run as is.
func (p Pending) drainedMessage(s *Snapshot) string {
	names := p.drainedNames(s)
	if len(names) == 0 {
		return ""
	}
	need := "needs " + slotCount(p.Need)
	if p.Need == 0 {
		need = "needs no slot, only a node for its zero-slot task"
	}
	return fmt.Sprintf("%s, but the pool's %s drained; it waits for a resume", need, DrainedPhrase(names))
}

// drainedNames is s.DrainedNodes for p's job, nil for none.
func (p Pending) drainedNames(s *Snapshot) []string {
	if p.Job < 0 || p.Job >= len(s.Jobs) {
		return nil
	}
	return s.DrainedNodes(&s.Jobs[p.Job])
}

// DrainedNodes names the drained nodes (Node.Drained) of job's pool that
// could otherwise hold its tasks (of its GPU type, if it asks for one);
// none when the job could not run even with them resumed
// (FeasibleResumed), since then it does not wait for a resume.
func (s *Snapshot) DrainedNodes(job *Job) []string {
	var names []string
	for i := range s.Nodes {
		if n := &s.Nodes[i]; n.Drained && n.Pool == job.Pool && (job.GPU == "" || n.GPU == job.GPU) {
			names = append(names, n.Name)
		}
	}
	if len(names) > 0 && FeasibleResumed(s, job) != nil {
		return nil
	}
	return names
}

// DrainedPhrase says which nodes are drained, as the subject of "are":
// "node dev-2 is", "nodes a, b and c are", "5 nodes are".
func DrainedPhrase(names []string) string {
	switch n := len(names); {
	case n == 1:
		return "node " + names[0] + " is"
	case n <= 3:
		return "nodes " + strings.Join(names[:n-1], ", ") + " and " + names[n-1] + " are"
	default:
		return strconv.Itoa(n) + " nodes are"
	}
}

func (p Pending) message(s *Snapshot, plan *Plan) string {
	blocker := func() string {
		if p.Blocker < 0 || p.Blocker >= len(s.Jobs) {
			return "another job"
		}
		return "job " + s.Jobs[p.Blocker].ID
	}
	switch p.Reason {
	case ReasonNoCapacity:
		if gpu := p.gpu(s); gpu != "" {
			return fmt.Sprintf("needs %s per task, %s %s free in the pool",
				plural.Count(p.Need, gpu+" slot"), plural.Count(p.Free, gpu+" slot"), plural.Be(p.Free))
		}
		return fmt.Sprintf("needs %s per task, %d %s free in the pool", slotCount(p.Need), p.Free, plural.Be(p.Free))
	case ReasonFragmented:
		return fmt.Sprintf("needs %s per task; enough are free in total but not on one node or on whole nodes", slotCount(p.Need))
	case ReasonBehind:
		return "queued behind " + blocker() + ", which is blocked and may not be passed"
	case ReasonSerial:
		return "the pool runs one job at a time; waiting for " + blocker() + " to finish"
	case ReasonCheckpointing:
		return CheckpointingMessage(s, plan, p.Job, p.Need, nil)
	case ReasonReserved:
		return p.reservedMessage(s)
	case ReasonWouldDelay:
		if p.At == Never {
			return fmt.Sprintf("fits now but has no time limit, and %s ahead of it has no reserved start: only a job with a time limit may start before it", blocker())
		}
		return fmt.Sprintf("fits now but would delay the reservation of %s", blocker())
	case ReasonMaxConcurrent:
		return "already running as many tasks as max_concurrent allows"
	case ReasonAboveShare:
		return fmt.Sprintf("holds its fair share; needs %s and %d %s free", slotCount(p.Need), p.Free, plural.Be(p.Free))
	case ReasonZeroSlotFull:
		return p.zeroFullMessage(s, plan)
	case ReasonNoNodes:
		if m := p.drainedMessage(s); m != "" {
			return m
		}
		if p.Need == 0 {
			return "no node of the pool up can take a zero-slot task with its constraints"
		}
		if p.Free > 0 && p.Free < p.Need {
			// Free holds the largest task the pool could ever hold.
			return fmt.Sprintf("no node in the pool can hold a task of %s with its constraints; the most its nodes hold together is %d", slotCount(p.Need), p.Free)
		}
		return fmt.Sprintf("no node in the pool can hold a task of %s with its constraints", slotCount(p.Need))
	case ReasonOverQuota:
		return fmt.Sprintf("needs %s; its project has %d left of its quota, and this work may only run within quota", slotCount(p.Need), max(p.Free, 0)) +
			BorrowHint(s.borrowIdle(plan, p.Job, p.Need))
	case ReasonLimit:
		if m := s.LimitNeverMessage(p.Job); m != "" {
			return m
		}
		return fmt.Sprintf("needs %s; that would take its project past its limit", slotCount(p.Need))
	case ReasonNoSpare:
		return fmt.Sprintf("this task would take its project past its quota or fair share; waiting for idle slots (needs %d, %d free)", p.Need, p.Free)
	case ReasonTopology:
		return fmt.Sprintf("needs %s under one switch (topology: required); %d %s free, but not under one switch", slotCount(p.Need), p.Free, plural.Be(p.Free))
	case ReasonLicense:
		return p.licenseMessage(s)
	case ReasonGPUType:
		return p.gpuTypeMessage(s)
	}
	return p.Reason.String()
}

// reservedMessage tells a job with a reservation (or, conservatively, one
// of the queued jobs that all hold one) when it may start.
func (p Pending) reservedMessage(s *Snapshot) string {
	head := "head of the queue, needs "
	if p.Queued {
		// Conservative: every queued job holds a reservation.
		head = "needs "
	}
	if p.At == Never || p.At < 0 {
		if names := p.drainedNames(s); len(names) > 0 {
			// The drained nodes' slots are promised to no one.
			return fmt.Sprintf("%s%s; no start time can be reserved: the pool's %s drained, and it waits for a resume or for tasks without a time limit to end",
				head, slotCount(p.Need), DrainedPhrase(names))
		}
		return fmt.Sprintf("%s%s; tasks without a time limit hold slots it needs, so no start time can be reserved", head, slotCount(p.Need))
	}
	if p.Queued {
		return fmt.Sprintf("needs %s; holds a reservation to start %s", slotCount(p.Need), startIn(p.At, s.Now))
	}
	return fmt.Sprintf("head of the queue, needs %s; reserved to start %s", slotCount(p.Need), startIn(p.At, s.Now))
}

// gpuTypeMessage tells a job that no node of its GPU type is in its pool.
func (p Pending) gpuTypeMessage(s *Snapshot) string {
	pool := "its pool"
	if p.Job >= 0 && p.Job < len(s.Jobs) && s.Jobs[p.Job].Pool >= 0 && s.Jobs[p.Job].Pool < len(s.Pools) {
		pool = "pool " + s.Pools[s.Jobs[p.Job].Pool].Name
	}
	if gpu := p.gpu(s); gpu != "" {
		return fmt.Sprintf("no node of type %s in %s", gpu, pool)
	}
	// A reason read against a snapshot without the job (an
	// explanation's summary) does not know the type asked for.
	return "no node of the requested GPU type in " + pool
}

// gpu returns the GPU type the pending job asks for, or "".
func (p Pending) gpu(s *Snapshot) string {
	if p.Job < 0 || p.Job >= len(s.Jobs) {
		return ""
	}
	return s.Jobs[p.Job].GPU
}

func (p Pending) licenseMessage(s *Snapshot) string {
	name, total := "", -1
	if p.License >= 0 && p.License < len(s.Licenses) {
		name, total = s.Licenses[p.License].Name, s.Licenses[p.License].Total
	}
	what := "a license"
	if name != "" {
		what = "license " + name
	}
	var m string
	if total >= 0 && p.LicenseNeed > total {
		exist := "exist"
		if total == 1 {
			exist = "exists"
		}
		m = fmt.Sprintf("needs %d of %s per task, but only %d %s", p.LicenseNeed, what, total, exist)
	} else {
		m = fmt.Sprintf("waiting for %s: needs %d, %d of %d free", what, p.LicenseNeed, p.LicenseFree, max(total, 0))
	}
	if p.At > 0 && p.At != Never {
		m += "; reserved to start " + startIn(p.At, s.Now)
	}
	return m
}

// startIn says when a reservation starts, relative to the snapshot's
// time, so that the message reads the same live (where times are Unix
// seconds) and in a simulation: "in 2h 10m", or "now".
func startIn(at, now int64) string {
	if at <= now {
		return "now"
	}
	return "in " + HumanDuration(at-now)
}

// HumanDuration renders whole seconds as people read a wait: "45s",
// "12m", "2h 10m", "3d 4h"; the two largest units, rounded down.
func HumanDuration(secs int64) string {
	if secs < 0 {
		secs = 0
	}
	units := []struct {
		n    int64
		name string
	}{{86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}}
	for i, u := range units {
		if secs < u.n && i < len(units)-1 {
			continue
		}
		out := fmt.Sprintf("%d%s", secs/u.n, u.name)
		if i < len(units)-1 {
			if rest := secs % u.n / units[i+1].n; rest > 0 {
				out += fmt.Sprintf(" %d%s", rest, units[i+1].name)
			}
		}
		return out
	}
	return "0s"
}

// slotCount renders a number of slots: "1 slot", "4 slots".
func slotCount(n int) string { return plural.Count(n, "slot") }

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
