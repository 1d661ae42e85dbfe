package agentd

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/allot-sched/allot/agent"
)

// The fence file hands the fence to the task shims (agent/fencefile.go):
// an agent that dies, or stops with --on-exit keep, leaves tasks that
// its fence no longer stops, and the master requeues them elsewhere once
// it loses the node. The shims stop them at the fence's time instead,
// counted from the last contact that any agent of the work directory had
// with the master, which also covers an agent restarted while the master
// is out of its reach (its own fence counts only from its first reply).

// fenceFileEvery is the least time between two writes of the fence file
// that only move its contact on: the shims poll it, and a contact a
// second older only makes a dead agent's shims stop their tasks a second
// sooner.
const fenceFileEvery = time.Second

// fenceFileLoop keeps the fence file current until ctx is done: at once
// when the fence's terms change, else at most every fenceFileEvery. It
// writes nothing before the agent first hears the master, so that the
// last agent's file, and its contact, stand until then.
func (a *Agent) fenceFileLoop(ctx context.Context) {
	path := filepath.Join(a.cfg.WorkDir, agent.FenceFileName)
	ticks, _ := startTicks(os.Getpid())
	tick := time.NewTicker(fenceFileEvery)
	defer tick.Stop()
	var last agent.FenceFile
	var wrote time.Time
	failed := false
	for {
		a.mu.Lock()
		f, ok := a.fence.file(a.waitS, a.cfg.MinPollInterval)
		ch := a.changed
		a.mu.Unlock()
		if ok {
			f.AgentPID, f.AgentTicks = os.Getpid(), ticks
			moved := !f.Contact.Equal(last.Contact)
			if (moved && time.Since(wrote) >= fenceFileEvery) || !sameFenceTerms(f, last) || wrote.IsZero() {
				err := agent.WriteFenceFile(path, f)
				switch {
				case err != nil && !failed:
					a.log.Warn("fence: the task shims cannot be told the fence; should the agent die, its tasks run on", "err", err)
				case err == nil && failed:
					a.log.Info("fence: the fence file is written again")
				}
				failed = err != nil
				if err == nil {
					last, wrote = f, time.Now()
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-ch:
		case <-tick.C:
		}
	}
}

// sameFenceTerms reports whether a and b differ in nothing but Contact.
func sameFenceTerms(a, b agent.FenceFile) bool {
	return a.AgentPID == b.AgentPID && a.AgentTicks == b.AgentTicks && a.Fences == b.Fences &&
		a.AfterMS == b.AfterMS && a.GraceMS == b.GraceMS && a.HeldAfterMS == b.HeldAfterMS &&
		a.HeldGraceMS == b.HeldGraceMS && slices.Equal(a.Held, b.Held)
}

// file is the fence file's content under the fence as the master last
// told it, for an agent whose sync wait is waitS and poll interval pace;
// ok is false before the first contact. The caller holds the agent's mu.
func (fs *fenceState) file(waitS int, pace time.Duration) (f agent.FenceFile, ok bool) {
	if fs.contact.IsZero() {
		return f, false
	}
	if fs.f == nil {
		return agent.FenceFile{}, true
	}
	hold := fs.hold(waitS)
	after, grace, _ := fenceTimes(fs.f, hold, pace, false)
	heldAfter, heldGrace, _ := fenceTimes(fs.f, hold, pace, true)
	f = agent.FenceFile{Fences: true, Contact: fs.last().UTC(),
		AfterMS: after.Milliseconds(), GraceMS: grace.Milliseconds(),
		HeldAfterMS: heldAfter.Milliseconds(), HeldGraceMS: heldGrace.Milliseconds()}
	for id := range fs.held {
		f.Held = append(f.Held, id.String())
	}
	slices.Sort(f.Held)
	return f, true
}
