package master

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/store"
)

// agentLogs takes the lines of tasks' output that agents send (POST
// /agents/{name}/logs): it checks that the node runs the attempts they
// are of, numbers a gang's lines apart (gangSeq) and stores them. It is a
// part of the agent protocol of its own, beside agents, so that neither
// grows past its job.
type agentLogs struct{ server }

func (ag *agentLogs) handleAgentLogs(w http.ResponseWriter, r *http.Request) {
	var b api.LogBatch
	if err := decodeBody(w, r, &b); err != nil {
		ag.fail(w, err)
		return
	}
	lines := make([]store.LogLine, 0, len(b.Lines))
	for i, l := range b.Lines {
		line, err := ag.logLine(l)
		if err != nil {
			ag.fail(w, badRequest("lines", "lines[%d]: %v", i, err))
			return
		}
		lines = append(lines, line)
	}
	if err := ag.appendLogs(r.Context(), r.PathValue("name"), lines); err != nil {
		ag.m.access.deny(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (ag *agentLogs) logLine(l api.AgentLogLine) (store.LogLine, error) {
	if err := checkTaskID(l.Task); err != nil {
		return store.LogLine{}, err
	}
	jid, err := parseJobID(l.Task.JobID)
	if err != nil {
		return store.LogLine{}, err
	}
	if l.Seq < 1 {
		return store.LogLine{}, fmt.Errorf("seq %d: expected >= 1", l.Seq)
	}
	if l.Stream != string(store.Stdout) && l.Stream != string(store.Stderr) {
		return store.LogLine{}, fmt.Errorf("stream %q: expected stdout or stderr", l.Stream)
	}
	at := l.Time
	if at.IsZero() {
		at = ag.m.now()
	}
	return store.LogLine{JobID: jid, Index: l.Task.TaskIndex, Attempt: l.Task.Attempt, Seq: l.Seq,
		Time: at, Stream: store.Stream(l.Stream), Text: l.Text}, nil
}

// appendLogs stores the lines of attempts that exist and drops the others
// (an agent may send lines of an attempt the master never started), then
// wakes the followers of the jobs concerned. A gang's lines get their
// gangSeq numbers here, from the parts of the open attempt or of the one
// that closed last, or else from the attempt's stored placement.
func (ag *agentLogs) appendLogs(ctx context.Context, node string, lines []store.LogLine) error {
	if len(lines) == 0 {
		return nil
	}
	keep, unknown, fromStore, err := ag.sortLogs(node, lines)
	if err != nil {
		return err
	}
	if keep, err = ag.dropUnknown(ctx, keep, unknown); err != nil {
		return err
	}
	if err := ag.spreadStored(ctx, node, keep, fromStore); err != nil {
		return err
	}
	if err := ag.m.st.AppendLogs(ctx, keep); err != nil {
		return fmt.Errorf("store logs: %w", err)
	}
	ag.m.lock()
	defer ag.m.unlock()
	for _, l := range keep {
		ag.m.wakeLogs(l.JobID)
	}
	return nil
}

// logAttempt names one attempt of one task, for the lines whose gang
// numbers come from the store.
type logAttempt struct {
	job     int64
	index   int
	attempt int
}

// sortLogs keeps the lines of the mirror's jobs' attempts that exist,
// giving those of an attempt whose parts it knows their gang numbers, and
// those of jobs the mirror does not have (unknown, for dropUnknown). It
// names the attempts whose parts only the store has (fromStore). A node
// that sends lines of an open attempt it has no part of is refused.
func (ag *agentLogs) sortLogs(node string, lines []store.LogLine) (keep []store.LogLine, unknown []int64,
	fromStore map[logAttempt]bool, err error) {
	ag.m.lock()
	defer ag.m.unlock()
	n := ag.m.nodes[node]
	if n != nil && n.registered {
		n.lastSeen = ag.m.now()
		n.seen = n.lastSeen
		ag.m.pub.markNode(n)
	}
	keep = lines[:0]
	for _, l := range lines {
		j, ok := ag.m.jobs[l.JobID]
		if !ok {
			unknown = append(unknown, l.JobID)
			fromStore = markFromStore(fromStore, l)
			keep = append(keep, l)
			continue
		}
		if l.Index >= len(j.tasks) || l.Attempt > j.tasks[l.Index].rec.Attempt {
			continue
		}
		t := j.tasks[l.Index]
		if foreignAttempt(t, l.Attempt, node) {
			return nil, nil, nil, &auth.Error{Status: http.StatusForbidden, Msg: fmt.Sprintf(
				"node %s sent logs of task %d/%d attempt %d, which does not run on it", node, l.JobID, l.Index, l.Attempt)}
		}
		switch {
		case t.att != nil && t.att.number == l.Attempt:
			l.Seq = gangSeq(l.Seq, len(t.att.parts), partRank(t.att.parts, node))
		case t.closed != nil && t.closed.number == l.Attempt:
			l.Seq = gangSeq(l.Seq, len(t.closed.parts), partRank(t.closed.parts, node))
		default:
			fromStore = markFromStore(fromStore, l)
		}
		keep = append(keep, l)
	}
	return keep, unknown, fromStore, nil
}

func markFromStore(fromStore map[logAttempt]bool, l store.LogLine) map[logAttempt]bool {
	if fromStore == nil {
		fromStore = map[logAttempt]bool{}
	}
	fromStore[logAttempt{l.JobID, l.Index, l.Attempt}] = true
	return fromStore
}

// spreadStored gives the lines of the fromStore attempts their gang
// numbers from the attempts' stored placements, which list the parts in
// rank order as the open attempt did: a line sent again after the end, or
// after a restart of the master, gets the number it got while it ran.
func (ag *agentLogs) spreadStored(ctx context.Context, node string, lines []store.LogLine, fromStore map[logAttempt]bool) error {
	if len(fromStore) == 0 {
		return nil
	}
	jobs := make([]int64, 0, len(fromStore))
	for a := range fromStore {
		if !slices.Contains(jobs, a.job) {
			jobs = append(jobs, a.job)
		}
	}
	atts, err := ag.m.st.Attempts(ctx, store.AttemptFilter{JobIDs: jobs})
	if err != nil {
		return fmt.Errorf("attempts for logs: %w", err)
	}
	placed := map[logAttempt][]store.Placement{}
	for _, a := range atts {
		if k := (logAttempt{a.JobID, a.Index, a.Number}); fromStore[k] {
			placed[k] = a.Placement
		}
	}
	for i, l := range lines {
		k := logAttempt{l.JobID, l.Index, l.Attempt}
		if !fromStore[k] {
			continue
		}
		ps := placed[k]
		rank := slices.IndexFunc(ps, func(p store.Placement) bool { return p.Node == node })
		lines[i].Seq = gangSeq(l.Seq, len(ps), rank)
	}
	return nil
}

// gangSeq makes the sequence numbers of a gang's nodes distinct: each
// node numbers its lines from 1, and the store keeps one line per (task,
// attempt, seq), so the part of rank k of n sends its line s as s*n+k.
// Lines of the parts interleave by line number. It depends on the
// attempt's placement only, never on whether the attempt is still open,
// so a re-sent line maps to the same number whenever it comes. A
// single-node attempt's lines (n < 2), and those of a node that has no
// part (rank < 0), keep their numbers.
func gangSeq(seq int64, n, rank int) int64 {
	if n < 2 || rank < 0 {
		return seq
	}
	return seq*int64(n) + int64(rank)
}

// partRank is node's rank among parts, -1 when it has none.
func partRank(parts []*mpart, node string) int {
	return slices.IndexFunc(parts, func(p *mpart) bool { return p.node == node })
}

// dropUnknown removes lines of jobs that are not in the mirror (ended) and
// whose attempt the store does not have.
func (ag *agentLogs) dropUnknown(ctx context.Context, lines []store.LogLine, jobs []int64) ([]store.LogLine, error) {
	if len(jobs) == 0 {
		return lines, nil
	}
	attempts := map[int64]map[int]int{}
	for _, id := range jobs {
		if _, ok := attempts[id]; ok {
			continue
		}
		tasks, err := ag.m.st.Tasks(ctx, store.TaskFilter{JobID: id})
		if err != nil {
			return nil, err
		}
		attempts[id] = map[int]int{}
		for _, t := range tasks {
			attempts[id][t.Index] = t.Attempt
		}
	}
	out := lines[:0]
	for _, l := range lines {
		if a, ok := attempts[l.JobID]; ok {
			if last, ok := a[l.Index]; ok && l.Attempt <= last {
				out = append(out, l)
			}
		} else {
			out = append(out, l)
		}
	}
	return out, nil
}

// foreignAttempt reports whether attempt of t is the current one and runs
// on other nodes than node. Callers hold mu.
func foreignAttempt(t *mtask, attempt int, node string) bool {
	return t.att != nil && t.att.number == attempt && t.part(node) == nil
}
