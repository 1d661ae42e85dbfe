package master

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/allot-sched/allot/store"
)

// The audit log and refused credentials. A request refused for a
// credential the master knows (revoked, expired, or its user disabled)
// is audited as whose the credential is, user:NAME, node:NAME or
// join-token:ID (auditActor), not as anonymous, which stays for a token
// the master does not know: an auditor looking for what a disabled user
// or a replaced node kept trying finds it under that actor.
//
// Such refusals come in floods: an agent whose node credential was
// revoked (its node taken over by a join token) retries every few
// seconds, and an old script with a revoked token may loop. So the log
// keeps at most one entry per dead credential per deadCredWindow: the
// first refusal is written, the next ones in the window are counted, and
// the first written after it says how many were left out and since when.
// Refusals of valid credentials (403s) and of unknown tokens are written
// one by one, as before.

// deadCredWindow is how often a dead credential's refusals are audited
// at most.
const deadCredWindow = time.Minute

// deadCredMax bounds the credentials tracked; past it every window is
// forgotten at once (each credential's next refusal is written), which
// costs a few more entries, not a scan for the oldest.
const deadCredMax = 10000

// auditActor names who made the request: its principal, or for a request
// refused before it had one, the owner of the credential it presented.
// A join token's registration is its token's, though the request then
// acts as the node it registered (nodejoin.go).
func auditActor(ri *reqInfo) string {
	if ri.cred.Kind == store.CredJoin {
		return "join-token:" + strconv.FormatInt(ri.cred.ID, 10)
	}
	if a := ri.principal.Actor(); a != "anonymous" || ri.cred.ID == 0 {
		return a
	}
	switch ri.cred.Kind {
	case store.CredUser:
		return "user:" + ri.cred.Subject
	case store.CredNode:
		return "node:" + ri.cred.Subject
	}
	return "join-token:" + strconv.FormatInt(ri.cred.ID, 10)
}

// deadCredAudit counts, per dead credential, the refusals not written.
type deadCredAudit struct {
	mu sync.Mutex
	by map[int64]*deadCredWindowState
}

type deadCredWindowState struct {
	start   time.Time // when the written entry that opened the window was
	skipped int       // refusals since, not written
}

// admit decides whether a refusal goes to the audit log: ok is false for
// one of a dead credential within its window; more is what the entry's
// detail adds for the refusals left out before it.
func (d *deadCredAudit) admit(ri *reqInfo, status int, now time.Time) (more string, ok bool) {
	if status != http.StatusUnauthorized || ri.cred.ID == 0 || ri.principal.Actor() != "anonymous" {
		return "", true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	w := d.by[ri.cred.ID]
	if w != nil && now.Sub(w.start) < deadCredWindow {
		w.skipped++
		return "", false
	}
	if w != nil && w.skipped > 0 {
		more = fmt.Sprintf(" (and %d more refused requests with this credential since %s, not written one by one)",
			w.skipped, w.start.UTC().Format(time.RFC3339))
	}
	if d.by == nil || len(d.by) >= deadCredMax {
		d.by = map[int64]*deadCredWindowState{}
	}
	d.by[ri.cred.ID] = &deadCredWindowState{start: now}
	return more, true
}
