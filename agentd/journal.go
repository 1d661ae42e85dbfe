package agentd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/allot-sched/allot/api"
)

// JournalFileName keeps the exit reports the master has not acknowledged,
// so that an agent killed before it could deliver them (kill -9, a power
// cut) delivers them after its restart: a task that exited 0 is then
// recorded as completed, not lost.
const JournalFileName = "agent-reports.json"

// journalVersion is the journal's format.
const journalVersion = 1

type journalFile struct {
	Version int          `json:"version"`
	Reports []api.Report `json:"reports"`
}

func (a *Agent) journalPath() string { return filepath.Join(a.cfg.WorkDir, JournalFileName) }

// saveJournalLocked writes the unacknowledged exit reports durably (write,
// fsync, rename) before they are sent. Callers hold mu. A failure is
// logged: the report still goes out from memory.
func (a *Agent) saveJournalLocked() {
	var exits []api.Report
	for _, r := range a.reports {
		if r.Event == api.EventExited {
			exits = append(exits, r)
		}
	}
	if len(exits) == 0 && !a.journaled {
		return
	}
	if err := writeJournal(a.journalPath(), exits); err != nil {
		a.log.Error("could not journal exit reports; they are lost if the agent dies before the master has them", "err", err)
		return
	}
	a.journaled = len(exits) > 0
}

func writeJournal(path string, exits []api.Report) error {
	if exits == nil {
		exits = []api.Report{}
	}
	data, err := json.Marshal(journalFile{Version: journalVersion, Reports: exits})
	if err != nil {
		return fmt.Errorf("encode the journal: %w", err)
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("write the journal: %w", err)
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write the journal: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write the journal: %w", err)
	}
	return nil
}

// replayJournal queues the exit reports an earlier agent process left
// undelivered, ahead of anything this process reports. Sequence numbers
// are this process's: the master numbers reports per registration.
func (a *Agent) replayJournal() error {
	data, err := os.ReadFile(a.journalPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the report journal: %w", err)
	}
	var j journalFile
	if err := json.Unmarshal(data, &j); err != nil || j.Version != journalVersion {
		// A torn or foreign file: its reports cannot be trusted, and the
		// master ends those attempts as lost, as without a journal.
		a.log.Error("the report journal is unreadable; its attempts will be ended as lost", "file", a.journalPath(), "err", err)
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range j.Reports {
		if r.Event != api.EventExited || checkReplayed(r) != nil {
			continue
		}
		a.rememberLocked(r.Task)
		a.enqueueLocked(r)
	}
	if len(j.Reports) > 0 {
		a.log.Info("exit reports from before a restart will be delivered", "reports", len(j.Reports))
	}
	return nil
}

func checkReplayed(r api.Report) error {
	if r.Task.JobID == "" || r.Task.Attempt < 0 || r.Task.TaskIndex < 0 {
		return errors.New("bad task id")
	}
	return nil
}
