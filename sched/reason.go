package sched

import (
	"fmt"
	"strconv"
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
	// earlier job's reservation.
	ReasonWouldDelay
	// ReasonMaxConcurrent: the job already runs as many tasks as it may.
	ReasonMaxConcurrent
	// ReasonAboveShare: under fair share the job has its share and no slots
	// are idle.
	ReasonAboveShare
	// ReasonZeroSlotFull: every node runs its limit of zero-slot tasks.
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
	// ReasonNoSpare: the project holds its fair share or more and no slot
	// is idle for over-quota work.
	ReasonNoSpare
	// ReasonTopology: the task spans nodes, must stay under one switch,
	// and no switch has enough whole nodes free.
	ReasonTopology
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
}

// String is the reason's stable machine name, used in JSON and the API.
func (r Reason) String() string {
	if int(r) < len(reasonNames) && reasonNames[r] != "" {
		return reasonNames[r]
	}
	return "reason(" + strconv.Itoa(int(r)) + ")"
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
	// pool were free (or, for a gang, how many the best option had).
	Need, Free int
	// At is the reserved or estimated start time, or -1 when unknown.
	At int64
}

// Message renders the pending reason for people.
func (p Pending) Message(s *Snapshot) string {
	blocker := func() string {
		if p.Blocker < 0 || p.Blocker >= len(s.Jobs) {
			return "another job"
		}
		return "job " + s.Jobs[p.Blocker].ID
	}
	switch p.Reason {
	case ReasonNoCapacity:
		return fmt.Sprintf("needs %d slots per task, %d are free in the pool", p.Need, p.Free)
	case ReasonFragmented:
		return fmt.Sprintf("needs %d slots per task; enough are free in total but not on one node or on whole nodes", p.Need)
	case ReasonBehind:
		return "queued behind " + blocker() + ", which is blocked and may not be passed"
	case ReasonSerial:
		return "the pool runs one job at a time; waiting for " + blocker() + " to finish"
	case ReasonCheckpointing:
		return fmt.Sprintf("slots were freed by preemption; waiting for the preempted tasks to checkpoint (needs %d slots)", p.Need)
	case ReasonReserved:
		if p.At == Never || p.At < 0 {
			return fmt.Sprintf("head of the queue, needs %d slots; no running task has a time limit, so no start time can be reserved", p.Need)
		}
		return fmt.Sprintf("head of the queue, needs %d slots; reserved to start at t=%ds", p.Need, p.At)
	case ReasonWouldDelay:
		return fmt.Sprintf("fits now but would delay the reservation of %s", blocker())
	case ReasonMaxConcurrent:
		return "already running as many tasks as max_concurrent allows"
	case ReasonAboveShare:
		return fmt.Sprintf("holds its fair share; needs %d slots and %d are free", p.Need, p.Free)
	case ReasonZeroSlotFull:
		return "every node already runs its limit of zero-slot tasks"
	case ReasonNoNodes:
		return fmt.Sprintf("no node in the pool can hold a task of %d slots with its constraints", p.Need)
	case ReasonOverQuota:
		return fmt.Sprintf("needs %d slots; its project has %d left of its quota, and this work may only run within quota", p.Need, max(p.Free, 0))
	case ReasonLimit:
		return fmt.Sprintf("needs %d slots; that would take its project past its limit", p.Need)
	case ReasonNoSpare:
		return fmt.Sprintf("its project holds its fair share; waiting for spare slots (needs %d, %d free)", p.Need, p.Free)
	case ReasonTopology:
		return fmt.Sprintf("needs %d slots under one switch (topology: required); %d are free, but not under one switch", p.Need, p.Free)
	}
	return p.Reason.String()
}
