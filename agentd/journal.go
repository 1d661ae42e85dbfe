package agentd

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"

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

// journal is the file of the exit reports not yet acknowledged. Agent.mu
// guards it.
type journal struct {
	path  string // in the work directory
	log   *slog.Logger
	holds bool // the file holds reports
}

// save writes the exit reports among reports durably (write, fsync,
// rename) before they are sent. A failure is logged: the report still
// goes out from memory.
func (j *journal) save(reports []api.Report) {
	var exits []api.Report
	for _, r := range reports {
		if r.Event == api.EventExited {
			exits = append(exits, r)
		}
	}
	if len(exits) == 0 && !j.holds {
		return
	}
	if err := writeJournal(j.path, exits); err != nil {
		j.log.Error("could not journal exit reports; they are lost if the agent dies before the master has them", "err", err)
		return
	}
	j.holds = len(exits) > 0
}

// load reads the reports an earlier agent process left in the file: none
// when there is no file, or when it is torn or foreign, whose reports
// cannot be trusted (the master ends those attempts as lost, as without
// a journal).
func (j *journal) load() ([]api.Report, error) {
	data, err := os.ReadFile(j.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the report journal: %w", err)
	}
	var f journalFile
	if err := json.Unmarshal(data, &f); err != nil || f.Version != journalVersion {
		j.log.Error("the report journal is unreadable; its attempts will be ended as lost", "file", j.path, "err", err)
		return nil, nil
	}
	return f.Reports, nil
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
	reports, err := a.journal.load()
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range reports {
		if r.Event != api.EventExited || checkReplayed(r) != nil {
			continue
		}
		a.rememberLocked(r.Task)
		a.enqueueLocked(r)
	}
	if len(reports) > 0 {
		a.log.Info("exit reports from before a restart will be delivered", "reports", len(reports))
	}
	return nil
}

func checkReplayed(r api.Report) error {
	if r.Task.JobID == "" || r.Task.Attempt < 0 || r.Task.TaskIndex < 0 {
		return errors.New("bad task id")
	}
	return nil
}
