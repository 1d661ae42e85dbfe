package agentd

// The output of the attempts that ended while no agent ran (doc.go,
// "Restarts"). Their exit reports go out at once (recoverExit), not held
// back until the output is delivered: registration does not list such an
// attempt as running, so the master ends it as lost unless the first sync
// reports its end, and the master stores an attempt's lines after its end
// as before it. The lines are numbered as an adopter numbers them, so
// that any agent that delivers the file again (this one died before it
// removed the file) sends lines the master stores once.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/allot-sched/allot/agent"
)

// endedOutputFile is where the shim of a recorded attempt keeps its
// output once orphaned, beside its exit file.
func endedOutputFile(r stateRecord) string {
	return filepath.Join(filepath.Dir(r.ExitFile), agent.OutputFileName(r.Task.Attempt, r.NodeRank))
}

// markEnded makes the record of an attempt whose end recoverExit found
// the record of its output file left to deliver; false when there is no
// output file (the agent died after the task ended, or the shim, which
// an older agent started, keeps none). The agent's line on it is counted
// as an adoption's, once.
func markEnded(r stateRecord) (stateRecord, bool) {
	if r.ExitFile == "" {
		return r, false
	}
	if _, err := os.Stat(endedOutputFile(r)); err != nil {
		return r, false
	}
	r.Ended = true
	r.Adoptions++
	return r, true
}

// deliverEnded delivers, one after the other, the output files of the
// attempts recoverOrphans found ended; Run calls it once the shipper
// runs, or is about to.
func (o orphans) deliverEnded() {
	a := o.a
	a.mu.Lock()
	recs := slices.Clone(a.ended)
	if len(recs) > 0 {
		a.watchers.Add(1)
	}
	a.mu.Unlock()
	if len(recs) == 0 {
		return
	}
	go func() {
		defer a.watchers.Done()
		for _, r := range recs {
			a.orph.deliverEndedOutput(r)
		}
	}()
}

// deliverEndedOutput ships an ended attempt's output file as an adopter
// would have: the file's lines, which wait in the file for room in the
// log buffer, then the agent's line on them. The line comes last, by its
// Seq (endedNoteSeqBase) as by its time, since every line of the file is
// older: placed first, as an adopter places its own, it stood stamped
// after the lines below it, as if the task had printed them once the
// agent was back (trial 2026-11-29e E10). Once they are handled the file
// is removed and the record dropped from the state file; if the agent
// stops first, both stay for the next agent.
func (o orphans) deliverEndedOutput(r stateRecord) {
	a := o.a
	log := a.log.With("task", r.Task.String())
	path := endedOutputFile(r)
	rd := agent.NewOutputReader(path, adoptOutputSeqBase)
	err := rd.Read(func(l agent.LogLine) { a.ship.pushWait(r.Task, l) })
	now := time.Now().UTC()
	a.ship.pushWait(r.Task, agent.LogLine{Seq: endedNoteSeqBase + uint64(r.Adoptions), Time: now, Stream: agent.Stderr,
		Text: fmt.Sprintf("[allot agent] the node's agent restarted (at %s) and found that this attempt had ended while no agent ran: "+
			"its output since the previous agent process died, the lines above, was read from the task shim's output file. Lost are %s",
			now.Format(time.RFC3339), orphanLost())})
	records, unsound, torn := rd.Close()
	if err != nil {
		log.Error("cannot read the output file of an attempt that ended while no agent ran; it stays for a person to read, and the next agent tries again",
			"file", path, "err", err)
		return
	}
	if unsound > 0 || torn {
		log.Warn("the output file of an attempt that ended while no agent ran is damaged; what is sound was delivered",
			"file", path, "unsound_lines", unsound, "torn_end", torn)
	}
	if !a.ship.waitHandled(a.stopCtx, a.ship.mark()) {
		return // stopped: the record and the file stay for the next agent
	}
	if n := a.ship.takeDropped(r.Task); n > 0 {
		// Its exit report went out already; only the agent's log can say.
		log.Warn("lines of an attempt that ended while no agent ran were dropped", "dropped", n)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		log.Warn("cannot remove the delivered output file of an ended attempt", "file", path, "err", err)
	}
	a.mu.Lock()
	a.ended = slices.DeleteFunc(a.ended, func(e stateRecord) bool { return e.Task == r.Task })
	a.mu.Unlock()
	a.persist()
	log.Info("delivered the output of an attempt that ended while no agent ran", "lines", records, "file", path)
}
