package master

import "time"

// The agents' reports after a store outage (trial 2026-11-29b, B6).
// While the store refused writes, the agents' syncs failed and their
// reports waited on the nodes: an attempt that ended meanwhile (its
// agent's fence stopped it, or its work was done) is listed exited in
// each sync (api.Sync.Exited) while its exit report waits for its output
// lines, which the log loop delivers once the store is back. The reports
// then reach the master together, but one request each, milliseconds
// apart: live, the first end's pass placed its task before the master
// took the second end, on the GPUs that were still held, while the
// replay (allot history check), which takes a second's ends before its
// starts, placed it with both ends taken, elsewhere, and the difference
// cascaded. So, for a short while after the store is back, the master
// holds its passes while an agent's last sync listed an attempt exited
// whose report it has not yet taken: the reports that are on their way
// are taken before the pass, as the replay takes them. The hold ends
// when the last of them is taken (its end kicks the pass), or at
// reportSettle after the recovery whatever is missing (a node whose log
// delivery fails, an agent gone): the tick runs the pass then.

// reportSettle bounds the hold after a store outage. The agents try
// again within outageRetryMax (1 s) of the store's return (their syncs
// and log batches: agentd's retryLimit), so their held reports come
// well within it; a longer hold would only delay the cluster's work.
const reportSettle = 2 * time.Second

// reportWait is the hold of the passes after a store outage: until
// until (the master's clock), while a node's held exits (mnode.exitsHeld)
// name an attempt the master still runs there. The zero value holds
// nothing. Guarded by Master.mu.
type reportWait struct {
	until time.Time
}

// begin opens the hold at the store's recovery, now.
func (w *reportWait) begin(now time.Time) { w.until = now.Add(reportSettle) }

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
	for _, n := range ag.m.nodes {
		if !n.registered {
			continue
		}
		for id := range n.exitsHeld {
			if ag.runsOn(id, n.rec.Name) {
				return true
			}
		}
	}
	return false
}
