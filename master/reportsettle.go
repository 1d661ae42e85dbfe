package master

import (
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// The agents' reports after a store outage (trial 2026-11-29b, B6).
// While the store refuses writes, the agents' syncs fail and their
// reports wait on the nodes: an attempt that ends meanwhile (its work
// done, its time limit applied by its agent, its agent's fence) is
// reported in each sync the store refuses, or listed exited
// (api.Sync.Exited) while its exit report waits for its output lines,
// which the log loop delivers once the store is back. The reports then
// reach the master together, but one request each, milliseconds apart
// (each node's, and on one node each attempt's as its output goes):
// live, the first end's pass placed its task before the master took the
// second end, beside the GPUs that were still held, while the replay
// (allot history check), which takes a second's ends before its starts,
// placed it with both ends taken, elsewhere, and the difference
// cascaded. So, for a short while after the store is back, the master
// holds its passes while an agent's last sync, taken or refused, named
// an attempt as ended that the master still runs: the reports on their
// way are taken before the pass, as the replay takes them. The hold ends
// when the last of them is taken (its end kicks the pass), or at
// reportSettle after the recovery whatever is missing (a node whose log
// delivery fails, an agent gone): the tick runs the pass then. It waits
// for nothing the agents did not say: a node not heard in the outage
// may report ends of it in the next second, and a pass held that long
// would place in that second what the replay places in this one.

// reportSettle bounds the hold after a store outage. The agents try
// again within outageRetryMax (1 s) of the store's return (their syncs
// and log batches: agentd's retryLimit), so their held reports come
// well within it; a longer hold would only delay the cluster's work.
const reportSettle = 2 * time.Second

// reportWait is the hold of the passes after a store outage: until
// until (the master's clock), while an agent's last sync, stored or not,
// named an attempt the master still runs there as ended: one it listed
// exited, its report held (api.Sync.Exited), or whose exit it reported
// in a sync the failing store did not take. The syncs of the outage
// count: the reports they carried come again once the store is back,
// each node's in its own request, so the first pass after the outage
// waits for every node's, not only for those of the nodes heard since.
// The zero value holds nothing. Guarded by Master.mu.
type reportWait struct {
	until time.Time
	// due maps a node to the attempts its agent's last sync said had
	// ended (note); a node whose last sync said none has no entry.
	due map[string][]agent.TaskID
}

// begin opens the hold at the store's recovery, now.
func (w *reportWait) begin(now time.Time) { w.until = now.Add(reportSettle) }

// note keeps what node's sync s says has ended, before the sync is
// stored: its held exits and the exits it reports. Once stored, the
// reported attempts are ended in the mirror, and holds skips them.
// Callers hold mu.
func (w *reportWait) note(node string, s api.Sync) {
	ids := w.due[node][:0]
	ids = append(ids, s.Exited...)
	for _, r := range s.Reports {
		if r.Event == api.EventExited {
			ids = append(ids, r.Task)
		}
	}
	switch {
	case len(ids) > 0 && w.due == nil:
		w.due = map[string][]agent.TaskID{node: ids}
	case len(ids) > 0:
		w.due[node] = ids
	default:
		delete(w.due, node)
	}
}

// holds reports whether a pass due at now waits for reports the agents
// said are coming, and closes the hold once its time is over. Callers
// hold mu.
func (w *reportWait) holds(ag *agents, now time.Time) bool {
	if w.until.IsZero() {
		return false
	}
	if !now.Before(w.until) {
		w.until = time.Time{}
		return false
	}
	for node, ids := range w.due {
		if n := ag.m.nodes[node]; n == nil || !n.registered {
			continue
		}
		for _, id := range ids {
			if ag.lookup(id).runsOn(node) {
				return true
			}
		}
	}
	return false
}
