package agentd

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// Files of the agent in its work directory.
const (
	// StateFileName holds the attempts whose process groups may be alive.
	StateFileName = "agent-state.json"
	// LockFileName is locked while an agent uses the work directory.
	LockFileName = "agent.lock"
	// JobsDirName holds the default working directories of tasks,
	// jobs/JOB/TASK.
	JobsDirName = "jobs"
)

// stateVersion is the state file's format.
const stateVersion = 1

// stateFile is what the agent persists so that its successor can find the
// process groups it leaves behind.
type stateFile struct {
	Version  int    `json:"version"`
	AgentPID int    `json:"agent_pid"`
	BootID   string `json:"boot_id,omitempty"`
	// Node and Master name the node the agent registers as and its
	// master's URL, so that an agent that later holds the node on
	// another work directory of the host knows the shims still running
	// from this one for its own (strays.go); "" in older files.
	Node     string        `json:"node,omitempty"`
	Master   string        `json:"master,omitempty"`
	Attempts []stateRecord `json:"attempts"`
}

// stateRecord is one attempt whose process group may be alive.
type stateRecord struct {
	Task agent.TaskID `json:"task"`
	// Pgid is the group leader's pid, which is also the group's id.
	Pgid int `json:"pgid"`
	// StartTicks is the leader's start time in clock ticks after boot
	// (/proc/PID/stat field 22), which tells it apart from a later
	// process that got the same pid; 0 when it could not be read.
	StartTicks uint64    `json:"start_ticks,omitempty"`
	WorkDir    string    `json:"work_dir"`
	StartedAt  time.Time `json:"started_at"`
	// ExitFile is where the attempt's task shim records its exit status
	// (agent.Runner.Shim); "" when it runs without a shim.
	ExitFile string `json:"exit_file,omitempty"`
	// NodeRank and GPUs are the spec's, which an adopting agent needs
	// (the metrics file's name, the GPUs it holds).
	NodeRank int   `json:"node_rank,omitempty"`
	GPUs     []int `json:"gpus,omitempty"`
	// Adoptions counts the agent processes that adopted the attempt
	// after the one that started it (adopt.go), and the one that found
	// it ended (ended.go).
	Adoptions int `json:"adoptions,omitempty"`
	// Ended: the attempt ended while no agent ran, its end is reported
	// or journaled, and only its shim's output file is left to deliver
	// (ended.go). Nothing of its group is looked for.
	Ended bool `json:"ended,omitempty"`
	// CheckpointDir is the attempt's checkpoint directory, absolute, for
	// its exit report's api.Report.Checkpoint; "" in a record of an
	// agent older than the field (the exit report then says nothing of
	// it).
	CheckpointDir string `json:"checkpoint_dir,omitempty"`
}

// readState reads the state file; a missing file is an empty state.
func readState(path string) (stateFile, error) {
	var st stateFile
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read state file: %w", err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, fmt.Errorf("state file %s: %w (expected the JSON the agent writes; if no task of an earlier agent is still running, remove the file)", path, err)
	}
	if st.Version != stateVersion {
		return st, fmt.Errorf("state file %s: version %d, expected %d", path, st.Version, stateVersion)
	}
	for i, r := range st.Attempts {
		if r.Pgid <= 1 {
			return st, fmt.Errorf("state file %s: attempts[%d].pgid: expected a process group id > 1, got %d", path, i, r.Pgid)
		}
	}
	return st, nil
}

// writeState replaces the state file atomically and durably: a crash
// leaves the old file or the new one, never a torn one.
func writeState(path string, st stateFile) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write state file: %w", err)
	}
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write state file %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // makes the rename durable where the filesystem allows
		d.Close()
	}
	return nil
}

// lockWorkDir takes an exclusive lock on the work directory, so that two
// agents never share one (the second would kill the first one's tasks as
// orphans). The kernel drops the lock when the process dies, however it
// dies; tasks do not inherit it (Go opens files close-on-exec).
func lockWorkDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, LockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock work dir: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("work dir %s is in use by another agent (%s is locked); give each agent its own --work-dir", dir, path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// recoverOrphans deals with the process groups that an earlier agent
// process recorded and left alive, and rewrites the state file with the
// attempts it adopts. An attempt run under a task shim whose leader is
// alive with the recorded start time is adopted (adopt.go): listed at
// registration, followed to its end and reported. Any other group is
// killed when it is provably the recorded attempt's: its leader is alive
// with the recorded start time, or a live member still carries the
// attempt's ALLOT_JOB_ID, ALLOT_TASK_INDEX and ALLOT_ATTEMPT. A group id
// that now belongs to something else is left alone. The adopted attempts
// are returned for Run to watch. An attempt that ended while no agent ran
// is reported from its exit file (recoverExit), and kept in the state
// file, as ended, until its output file is delivered (ended.go).
func (o orphans) recoverOrphans() ([]*attempt, error) {
	a := o.a
	path := filepath.Join(a.cfg.WorkDir, StateFileName)
	st, err := readState(path)
	if err != nil {
		return nil, err
	}
	boot := bootID()
	var adopted []*attempt
	var ended []stateRecord
	recs := []stateRecord{}
	for _, r := range st.Attempts {
		log := a.log.With("task", r.Task.String(), "pgid", r.Pgid)
		if r.Ended {
			// An earlier agent reported its end; its group id may be
			// another's by now, so only the output file is looked at.
			if r.ExitFile != "" {
				ended = append(ended, r)
				recs = append(recs, r)
			}
			continue
		}
		if st.BootID != "" && boot != "" && st.BootID != boot {
			log.Debug("recorded attempt predates a reboot; nothing of it can be alive")
			continue
		}
		members, err := groupMembers(r.Pgid)
		if err != nil {
			return nil, fmt.Errorf("look for the orphaned process group %d of task %s: %w", r.Pgid, r.Task, err)
		}
		if orphanFateOf(r, a.orph.probeOrphan(r, members)) == fateAdopt {
			att, err := a.orph.adopt(r)
			if err == nil {
				adopted = append(adopted, att)
				recs = append(recs, att.rec)
				continue
			}
			log.Warn("cannot adopt the attempt of an earlier agent process; killing it", "err", err)
		}
		if a.orph.recoverExit(r, log) {
			if e, ok := markEnded(r); ok {
				ended = append(ended, e)
				recs = append(recs, e)
			}
		}
		if err := killOrphan(r, members, log); err != nil {
			return nil, err
		}
	}
	a.mu.Lock()
	a.ended = ended
	a.mu.Unlock()
	sortRecords(recs)
	return adopted, writeState(path, stateFile{Version: stateVersion, AgentPID: os.Getpid(), BootID: boot,
		Node: a.cfg.Name, Master: a.conn.base, Attempts: recs})
}

// killOrphan kills a recorded group that is provably the attempt's.
func killOrphan(r stateRecord, members []int, log *slog.Logger) error {
	if len(members) == 0 {
		return nil
	}
	if !ownedBy(r, members) {
		log.Warn("recorded process group now belongs to other processes; leaving it alone", "members", len(members))
		return nil
	}
	if err := syscall.Kill(-r.Pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill the orphaned process group %d of task %s: %w", r.Pgid, r.Task, err)
	}
	if !awaitGroupGone(r.Pgid, 5*time.Second) {
		log.Error("orphaned process group still alive 5s after SIGKILL")
		return nil
	}
	log.Warn("killed the orphaned process group of an attempt started by an earlier agent process (the master ends such attempts as lost)",
		"members", len(members), "started_at", r.StartedAt)
	return nil
}

// recoverExit reports the end of an attempt that ended while no agent
// watched it, from the exit file its shim left: a run that exited 0 is
// then recorded as completed, not lost. An attempt already reported (from
// the journal) is skipped. It returns whether the exit file says that the
// attempt ended, reported now or before.
func (o orphans) recoverExit(r stateRecord, log *slog.Logger) bool {
	a := o.a
	if r.ExitFile == "" {
		return false
	}
	st, ok, err := agent.ReadExitFile(r.ExitFile)
	if err != nil {
		log.Error("the exit file of an attempt that ended while the agent was down is unreadable; the master will end it as lost", "err", err)
		return false
	}
	if !ok {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.finished[r.Task] {
		return true
	}
	rep := api.Report{Task: r.Task, Event: api.EventExited, At: st.ExitedAt}
	switch {
	case preemptRequested(r):
		rep.Outcome = string(agent.OutcomePreempted)
	case st.ExitCode == 0:
		rep.Outcome = string(agent.OutcomeCompleted)
	default:
		rep.Outcome = string(agent.OutcomeFailed)
	}
	if st.Signal != "" {
		rep.Error = "ended by " + st.Signal
	} else {
		code := st.ExitCode
		rep.ExitCode = &code
	}
	if st.Fenced != "" {
		rep.Outcome = string(agent.OutcomePreempted)
		rep.Error += "; " + st.Fenced
	}
	rep.Error = strings.TrimPrefix(rep.Error+"; the agent was down when it ended (status from the task shim)", "; ")
	if st.OutputDropped > 0 || st.OutputError != "" {
		rep.Error += fmt.Sprintf("; the task shim dropped %d output lines written while no agent ran (%s)",
			st.OutputDropped, cmp.Or(st.OutputError, "no reason given"))
	}
	rep.Checkpoint = checkpointState(r.CheckpointDir)
	a.rememberLocked(r.Task)
	a.enqueueLocked(rep)
	log.Info("attempt ended while the agent was down; reporting its status", "outcome", rep.Outcome,
		"exit_code", st.ExitCode, "signal", st.Signal)
	return true
}

// preemptRequested reports whether the earlier agent had asked the
// attempt to checkpoint: Preempt leaves the preempt file behind, and the
// next attempt's start removes it.
func preemptRequested(r stateRecord) bool {
	_, err := os.Stat(filepath.Join(r.WorkDir, agent.StateDir, agent.PreemptFileName))
	return err == nil
}

// ownedBy reports whether the live members of a group are the recorded
// attempt's processes.
func ownedBy(r stateRecord, members []int) bool {
	for _, pid := range members {
		if pid == r.Pgid && r.StartTicks != 0 {
			if t, ok := startTicks(pid); ok && t == r.StartTicks {
				return true
			}
		}
		if environMatches(pid, r.Task) {
			return true
		}
	}
	return false
}

// awaitGroupGone polls until the group has no live member, at most timeout.
func awaitGroupGone(pgid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		m, err := groupMembers(pgid)
		if err == nil && len(m) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(delay)
	}
}

// persist writes the state file from the attempts whose process groups
// may be alive, and those ended whose output file is still to deliver. Writes are serialised, and each takes its snapshot under
// the write lock, so a later write never loses to an earlier one.
func (a *Agent) persist() {
	a.stateMu.Lock()
	defer a.stateMu.Unlock()
	a.mu.Lock()
	if a.detached {
		a.mu.Unlock()
		return
	}
	recs := slices.Clone(a.ended)
	for _, att := range a.tasks {
		if !att.exited {
			recs = append(recs, att.rec)
		}
	}
	a.mu.Unlock()
	sortRecords(recs)
	st := stateFile{Version: stateVersion, AgentPID: os.Getpid(), BootID: a.bootID,
		Node: a.cfg.Name, Master: a.conn.base, Attempts: recs}
	if err := writeState(filepath.Join(a.cfg.WorkDir, StateFileName), st); err != nil {
		// The running tasks are unaffected; only a successor after a
		// crash could miss an orphan, so this is loud but not fatal.
		a.log.Error("could not record the running attempts", "err", err)
	}
}
