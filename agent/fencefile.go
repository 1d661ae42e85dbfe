package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"
)

// The fence file carries the agent's fence (docs/reliability.md,
// "Fencing") to the task shims, so that the fence outlives the agent: an
// agent that dies (kill -9, OOM) while the master is out of its reach, or
// that never comes back, leaves shims that would otherwise run their
// tasks on after the master has requeued them elsewhere, two attempts
// writing one checkpoint directory. The agent rewrites the file as it
// hears the master; a shim whose agent is gone (the process that last
// wrote the file no longer runs) reads it and stops its own task at the
// time the agent would have: the checkpoint request (the preempt file
// and the preemption's signal), then the kill at the end of the grace.
// A shim whose writer runs leaves the fence to it.

// FenceFileName is the fence file, in the agent's work directory.
const FenceFileName = "fence.json"

// FenceFile is what the agent last knew of its fence.
type FenceFile struct {
	// AgentPID and AgentTicks name the process that wrote the file (its
	// start time in clock ticks after boot, so that a later process
	// given the same pid is not taken for it).
	AgentPID   int    `json:"agent_pid"`
	AgentTicks uint64 `json:"agent_ticks"`
	// Fences is false when the master does not fence (an older master,
	// or fence: false): then no shim stops its task either.
	Fences bool `json:"fences"`
	// Contact is the last time the agent heard the master (a reply or a
	// held poll's heartbeat), from which the fence counts.
	Contact time.Time `json:"contact,omitzero"`
	// After is how long after Contact the fence asks an attempt the
	// master would requeue to checkpoint, Grace how long it gives it
	// before the kill; HeldAfter and HeldGrace the same for an attempt
	// the master holds through the node's loss (Held).
	AfterMS     int64    `json:"after_ms"`
	GraceMS     int64    `json:"grace_ms"`
	HeldAfterMS int64    `json:"held_after_ms"`
	HeldGraceMS int64    `json:"held_grace_ms"`
	Held        []string `json:"held,omitempty"` // TaskID.String()
}

// Times is when the fence asks the attempt id to checkpoint and how long
// it then has; ok is false when the file says nothing fences it.
func (f FenceFile) Times(id string) (askAt time.Time, grace time.Duration, ok bool) {
	if !f.Fences || f.Contact.IsZero() {
		return time.Time{}, 0, false
	}
	after, g := f.AfterMS, f.GraceMS
	if slices.Contains(f.Held, id) {
		after, g = f.HeldAfterMS, f.HeldGraceMS
	}
	return f.Contact.Add(time.Duration(after) * time.Millisecond), time.Duration(g) * time.Millisecond, true
}

// WriteFenceFile replaces the fence file at path whole: a reader sees
// the old file or the new one. It is not synced: after a crash of the
// machine no shim is left to read it.
func WriteFenceFile(path string, f FenceFile) error {
	data, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("write the fence file: %w", err)
	}
	if err := writeFileAtomic(path, data); err != nil {
		return fmt.Errorf("write the fence file: %w", err)
	}
	return nil
}

// ReadFenceFile reads the fence file at path; ok is false when there is
// none (an agent that never heard the master, or an older one).
func ReadFenceFile(path string) (f FenceFile, ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return f, false, nil
	}
	if err != nil {
		return f, false, fmt.Errorf("read the fence file: %w", err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, false, fmt.Errorf("fence file %s: %w (expected the JSON an agent writes)", path, err)
	}
	if f.AgentPID <= 0 || f.AfterMS < 0 || f.GraceMS < 0 || f.HeldAfterMS < 0 || f.HeldGraceMS < 0 {
		return f, false, fmt.Errorf("fence file %s: expected a positive agent_pid and times of 0 or more, got pid %d, times %d %d %d %d",
			path, f.AgentPID, f.AfterMS, f.GraceMS, f.HeldAfterMS, f.HeldGraceMS)
	}
	return f, true, nil
}

// WriterAlive reports whether the process that wrote f still runs: by
// its start time where the writer recorded one, else (no /proc) by its
// pid alone.
func (f FenceFile) WriterAlive() bool {
	if f.AgentTicks == 0 {
		err := syscall.Kill(f.AgentPID, 0)
		return err == nil || errors.Is(err, syscall.EPERM)
	}
	return leaderAlive(f.AgentPID, f.AgentTicks)
}
