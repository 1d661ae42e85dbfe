package master

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/version"
)

// noteStart marks the master's start in the audit log: while no master
// ran (a crash, an upgrade, a freeze long enough to be restarted) no
// request was served or audited, and the agents' fence may have stopped
// the preemptible work, so an auditor reading the log sees the gap for
// what it is, as a store outage's entry marks its own (trial 2026-11-29a
// P2). The gap is dated from the last agent contact the store kept (a
// sync stores it every third of agent_timeout), the best the master
// knows of when its predecessor last worked. A store that refuses the
// entry costs only the entry: the start goes on, and the log says so.
func (m *Master) noteStart(ctx context.Context) {
	now := m.now()
	var last time.Time
	for _, n := range m.nodes {
		if n.seen.After(last) {
			last = n.seen
		}
	}
	detail := fmt.Sprintf("the master started (version %s)", version.String())
	if !last.IsZero() && now.After(last) {
		detail += fmt.Sprintf("; the last agent contact stored before is from %s, %s before: requests of that time "+
			"were not served, and the agents' fence may have stopped preemptible work", last.UTC().Format(time.RFC3339),
			now.Sub(last).Round(time.Second))
	}
	e := store.AuditEntry{At: now, Actor: "master", Action: "master start", Status: http.StatusOK, Detail: detail}
	if err := m.st.AppendAudit(ctx, e); err != nil {
		m.log.Warn("master start not recorded in the audit log", "err", err)
	}
}
