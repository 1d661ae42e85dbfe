package agentd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// fakeMaster speaks the master's side of the agent protocol as api/doc.go
// describes it, with switches to make it fail in the ways a real master
// and network do. It stores what the agent sends so that tests can
// assert on it.
type fakeMaster struct {
	t   *testing.T
	srv *httptest.Server

	mu        sync.Mutex
	changed   chan struct{}
	known     bool // the node is registered
	registers []api.Register
	reports   []api.Report // stored, in arrival order
	acked     int64
	receipts  map[int64]int // how often each report sequence arrived
	commands  []api.Command // sent with the next reply
	logs      []api.AgentLogLine
	logSeen   map[logKey]bool
	exitLogs  map[agent.TaskID]int // lines stored for a task when its exit report was
	refused   int                  // connections closed while down
	waits     map[int]int          // syncs by the WaitS they asked for
	syncs     []api.Sync           // every sync that got past the switches, in arrival order
	// onLeave, when set, is sent with the reply to the first sync that
	// says the node leaves, as a master that placed a task before it
	// heard of the leave.
	onLeave []api.Command
	// placement is what the registration replies say of the node's pool
	// and labels (api.RegisterReply's NodePlacement); movedTo, when set,
	// is sent with the next sync reply, as by a master whose reload moved
	// the node. placeGen, when set, is the placement generation the
	// replies say (api.RegisterReply and api.SyncReply PlacementGen):
	// movedTo is then repeated until a sync acknowledges placeGen, as by
	// a master that repeats a move until the agent heard it; 0 is a
	// master older than the generations, which sends a move once.
	placement api.NodePlacement
	movedTo   *api.NodePlacement
	placeGen  int64
	// dropReplies loses this many sync replies: the sync is handled, and
	// its connection closed before the reply.
	dropReplies int
	// fence is what every reply says of the master's fence (api.Fence);
	// nil is a master that does not fence.
	fence *api.Fence
	// limits are the deadlines of attempts' time limits that every reply
	// says (api.TimeLimit), the time left counted at the reply; nil is a
	// master older than them.
	limits map[agent.TaskID]time.Time
	// repliedAt is when the last successful reply went out: the agent's
	// last contact is no earlier.
	repliedAt time.Time

	// heartbeat, when set, is the interval of the heartbeats a held sync
	// that asks for them gets (api.SyncHeartbeatHeader), as a master
	// that sends them does; 0 is a master older than them. beatAt is
	// when the last one went out, holdAt when the last hold began.
	heartbeat time.Duration
	beatAt    time.Time
	holdAt    time.Time
	// mute stops the heartbeats of held syncs, the connections left
	// open: a master whose host or network went away without a word.
	mute bool

	syncWaitS   int
	holdCap     time.Duration // a long poll holds at most this long
	down        bool          // close every connection unanswered
	dead        bool          // and write nothing more on those open (killHold)
	storeOut    bool          // answer syncs 503 as a master whose store is down
	failSyncs   int           // answer this many syncs 500, storing nothing
	withholdAck int           // answer this many syncs acknowledging one report less
	failLogs    int           // answer this many log posts with logStatus
	// failRegisters answers this many registrations 503, storing
	// nothing, as a master whose store is not ready yet.
	failRegisters int
	// refuseExited answers a registration that lists exited attempts
	// (api.Register.Exited) 400, as a master older than the field does.
	refuseExited bool
	notFoundAt   time.Time // when a sync was first answered 404
	// lease, when sayLease, is what a 404 says of the node's lease
	// (api.NodeLeaseHeader), as a restarted master's does.
	lease        time.Duration
	sayLease     bool
	registeredAt time.Time // when the last registration succeeded
	logStatus    int
	// authorize, when set, answers a request by its bearer token as the
	// master's authentication does: status 0 lets it through; a refusal
	// is written as a 401 or other status, with api.CredentialHeader
	// when revoked. requests records every request that came, in order.
	authorize func(bearer, path string) (status int, revoked bool)
	requests  []authedRequest
	// accepts is what the registration replies say the master takes
	// (api.RegisterReply.Accepts); nil is a master older than the list.
	accepts []string
}

// authedRequest is a request as the fake's authentication saw it.
type authedRequest struct {
	path, bearer string
	status       int // the refusal's; 0 when let through
	at           time.Time
}

type logKey struct {
	task agent.TaskID
	seq  int64
}

func newFakeMaster(t *testing.T) *fakeMaster {
	t.Helper()
	fm := &fakeMaster{
		t:         t,
		changed:   make(chan struct{}),
		receipts:  map[int64]int{},
		logSeen:   map[logKey]bool{},
		exitLogs:  map[agent.TaskID]int{},
		waits:     map[int]int{},
		syncWaitS: 1,
		holdCap:   100 * time.Millisecond,
		logStatus: http.StatusInternalServerError,
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/agents/register", fm.register)
	mux.HandleFunc("POST /api/v1/agents/{name}/sync", fm.sync)
	mux.HandleFunc("POST /api/v1/agents/{name}/logs", fm.postLogs)
	fm.srv = httptest.NewServer(fm.gate(mux))
	t.Cleanup(fm.srv.Close)
	return fm
}

// gate closes connections unanswered while the master is down.
func (fm *fakeMaster) gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fm.mu.Lock()
		down := fm.down
		if down {
			fm.refused++
			fm.broadcast()
		}
		status, revoked := 0, false
		if !down {
			bearer := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			if fm.authorize != nil {
				status, revoked = fm.authorize(bearer, r.URL.Path)
			}
			fm.requests = append(fm.requests, authedRequest{path: r.URL.Path, bearer: bearer, status: status, at: time.Now()})
			fm.broadcast()
		}
		fm.mu.Unlock()
		if !down && status != 0 {
			if revoked {
				w.Header().Set(api.CredentialHeader, api.CredentialRevoked)
			}
			writeJSON(w, status, api.Error{Error: fmt.Sprintf("refused (%d)", status)})
			return
		}
		if !down {
			next.ServeHTTP(w, r)
			return
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	})
}

func (fm *fakeMaster) broadcast() {
	close(fm.changed)
	fm.changed = make(chan struct{})
}

// decode reads a body strictly, as the master does.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(io.LimitReader(r.Body, api.MaxBodyBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeJSON(w, http.StatusBadRequest, api.Error{Error: err.Error()})
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (fm *fakeMaster) register(w http.ResponseWriter, r *http.Request) {
	var req api.Register
	if !decode(w, r, &req) {
		return
	}
	fm.mu.Lock()
	defer fm.mu.Unlock()
	if fm.failRegisters > 0 {
		fm.failRegisters--
		writeJSON(w, http.StatusServiceUnavailable, api.Error{Error: "the master's store is unavailable"})
		return
	}
	if fm.refuseExited && len(req.Exited) > 0 {
		writeJSON(w, http.StatusBadRequest, api.Error{Error: `unknown field "exited"`, Field: "exited"})
		return
	}
	fm.registeredAt = time.Now()
	fm.registers = append(fm.registers, req)
	fm.known = true
	fm.acked = 0 // sequences start over with each agent process
	cmds := fm.commands
	fm.commands = nil
	fm.broadcast()
	fm.repliedAt = time.Now()
	writeJSON(w, http.StatusOK, api.RegisterReply{SyncWaitS: fm.syncWaitS, Commands: cmds, NodePlacement: fm.placement,
		PlacementGen: fm.placeGen, Fence: fm.fence, TimeLimits: fm.timeLimits(), Accepts: fm.accepts})
}

// timeLimits are the replies' time limits as of now; the caller holds mu.
func (fm *fakeMaster) timeLimits() []api.TimeLimit {
	var out []api.TimeLimit
	for id, at := range fm.limits {
		out = append(out, api.TimeLimit{Task: id, LimitS: 60, Deadline: at, LeftMS: time.Until(at).Milliseconds()})
	}
	return out
}

func (fm *fakeMaster) sync(w http.ResponseWriter, r *http.Request) {
	var req api.Sync
	if !decode(w, r, &req) {
		return
	}
	fm.mu.Lock()
	fm.waits[req.WaitS]++
	switch {
	case !fm.known:
		if fm.notFoundAt.IsZero() {
			fm.notFoundAt = time.Now()
		}
		if fm.sayLease {
			w.Header().Set(api.NodeLeaseHeader, strconv.FormatInt(fm.lease.Milliseconds(), 10))
		}
		fm.broadcast()
		fm.mu.Unlock()
		writeJSON(w, http.StatusNotFound, api.Error{Error: "unknown node " + r.PathValue("name")})
		return
	case fm.failSyncs > 0:
		fm.failSyncs--
		fm.broadcast()
		fm.mu.Unlock()
		writeJSON(w, http.StatusInternalServerError, api.Error{Error: "injected failure"})
		return
	case fm.storeOut:
		fm.mu.Unlock()
		// As the master answers while its store is unavailable.
		w.Header().Set("Retry-After", "1")
		w.Header().Set(api.StoreOutageHeader, "1")
		writeJSON(w, http.StatusServiceUnavailable, api.Error{Error: "the master's store is unavailable: nothing was changed; retry in a few seconds"})
		return
	}
	fm.syncs = append(fm.syncs, req)
	if req.Leaving && fm.onLeave != nil {
		fm.commands = append(fm.commands, fm.onLeave...)
		fm.onLeave = nil
	}
	for _, rep := range req.Reports {
		fm.receipts[rep.Seq]++
		if rep.Seq <= fm.acked {
			continue
		}
		fm.acked = rep.Seq
		fm.reports = append(fm.reports, rep)
		if rep.Event == api.EventExited {
			n := 0
			for _, l := range fm.logs {
				if l.Task == rep.Task {
					n++
				}
			}
			fm.exitLogs[rep.Task] = n
		}
	}
	fm.broadcast()
	fm.mu.Unlock()

	// Hold the long poll until there is a command, as the master does.
	hold := time.NewTimer(min(time.Duration(req.WaitS)*time.Second, fm.holdCap))
	defer hold.Stop()
	beats := fm.beginHold(w, r, req)
	for {
		fm.mu.Lock()
		if len(fm.commands) > 0 || req.WaitS == 0 {
			break
		}
		ch := fm.changed
		fm.mu.Unlock()
		select {
		case <-ch:
			continue
		case <-beats:
			fm.beat(w)
			continue
		case <-hold.C:
		case <-r.Context().Done():
		}
		fm.mu.Lock()
		break
	}
	if fm.dead {
		// Died in the hold (killHold): nothing more goes out.
		fm.mu.Unlock()
		return
	}
	if beats != nil && !fm.known {
		// The node was forgotten during the hold: the 200 is out.
		fm.mu.Unlock()
		_ = json.NewEncoder(w).Encode(api.SyncReply{Status: http.StatusNotFound, Error: "unknown node " + r.PathValue("name")})
		return
	}
	cmds := fm.commands
	fm.commands = nil
	acked := fm.acked
	if fm.withholdAck > 0 && acked > 0 {
		fm.withholdAck--
		acked--
	}
	moved, gen := fm.movedTo, fm.placeGen
	switch {
	case gen == 0:
		fm.movedTo = nil
	case req.PlacementGen >= gen:
		moved = nil
	}
	fence, limits := fm.fence, fm.timeLimits()
	drop := fm.dropReplies > 0
	if drop {
		fm.dropReplies--
		fm.broadcast()
	} else {
		fm.repliedAt = time.Now()
	}
	fm.mu.Unlock()
	if drop {
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	reply := api.SyncReply{Acked: acked, Commands: cmds, Placement: moved, PlacementGen: gen, Fence: fence, TimeLimits: limits}
	if beats != nil {
		_ = json.NewEncoder(w).Encode(reply) // the 200 is out
		return
	}
	writeJSON(w, http.StatusOK, reply)
}

// killHold stops the fake as a kill -9 would in a held sync: nothing
// more is written, and every connection is closed.
func (fm *fakeMaster) killHold() {
	fm.set(func(fm *fakeMaster) { fm.down, fm.dead = true, true })
	fm.srv.CloseClientConnections()
}

// beginHold notes when a held sync begins, sends its headers when it
// asks for heartbeats and the fake sends them, and returns their ticks
// (nil: none).
func (fm *fakeMaster) beginHold(w http.ResponseWriter, r *http.Request, req api.Sync) <-chan time.Time {
	fm.mu.Lock()
	every := fm.heartbeat
	if req.WaitS > 0 {
		fm.holdAt = time.Now()
		fm.broadcast()
	}
	fm.mu.Unlock()
	if every <= 0 || req.WaitS == 0 || r.Header.Get(api.SyncHeartbeatHeader) == "" {
		return nil
	}
	w.Header().Set(api.SyncHeartbeatHeader, strconv.FormatInt(every.Milliseconds(), 10))
	w.WriteHeader(http.StatusOK)
	fm.beat(w)
	tk := time.NewTicker(every)
	fm.t.Cleanup(tk.Stop)
	return tk.C
}

// beat writes a heartbeat, unless the fake is down (dead: it writes
// nothing more), and records when.
func (fm *fakeMaster) beat(w http.ResponseWriter) {
	fm.mu.Lock()
	defer fm.mu.Unlock()
	if fm.down || fm.mute {
		return
	}
	_, _ = w.Write([]byte{' '})
	_ = http.NewResponseController(w).Flush()
	fm.beatAt = time.Now()
	fm.broadcast()
}

func (fm *fakeMaster) postLogs(w http.ResponseWriter, r *http.Request) {
	var req api.LogBatch
	if !decode(w, r, &req) {
		return
	}
	fm.mu.Lock()
	defer fm.mu.Unlock()
	switch {
	case !fm.known:
		writeJSON(w, http.StatusNotFound, api.Error{Error: "unknown node"})
		return
	case fm.failLogs > 0:
		fm.failLogs--
		fm.broadcast()
		writeJSON(w, fm.logStatus, api.Error{Error: "injected failure"})
		return
	}
	for _, l := range req.Lines {
		k := logKey{l.Task, l.Seq}
		if !fm.logSeen[k] {
			fm.logSeen[k] = true
			fm.logs = append(fm.logs, l)
		}
	}
	fm.broadcast()
	w.WriteHeader(http.StatusNoContent)
}

// send queues commands for the next reply.
func (fm *fakeMaster) send(cmds ...api.Command) {
	fm.mu.Lock()
	defer fm.mu.Unlock()
	fm.commands = append(fm.commands, cmds...)
	fm.broadcast()
}

// set changes the fake's switches under its lock.
func (fm *fakeMaster) set(f func(fm *fakeMaster)) {
	fm.mu.Lock()
	defer fm.mu.Unlock()
	f(fm)
	fm.broadcast()
}

// waitFor polls cond, under the fake's lock, until it holds; it fails the
// test after a generous bound.
func (fm *fakeMaster) waitFor(what string, cond func(fm *fakeMaster) bool) {
	fm.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		fm.mu.Lock()
		ok, ch := cond(fm), fm.changed
		fm.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			fm.t.Fatalf("timed out waiting for %s\n%s", what, fm.dump())
		}
	}
}

// dump describes the fake's state for failure messages.
func (fm *fakeMaster) dump() string {
	fm.mu.Lock()
	defer fm.mu.Unlock()
	var b bytes.Buffer
	fmt.Fprintf(&b, "registers: %d, acked: %d, pending commands: %d\nreports:\n", len(fm.registers), fm.acked, len(fm.commands))
	for _, r := range fm.reports {
		j, _ := json.Marshal(r)
		fmt.Fprintf(&b, "  %s\n", j)
	}
	fmt.Fprintf(&b, "logs:\n")
	for _, l := range fm.logs {
		fmt.Fprintf(&b, "  %s #%d %s: %s\n", l.Task, l.Seq, l.Stream, l.Text)
	}
	return b.String()
}

// reportsFor returns the stored reports of one attempt; the caller holds
// the lock (inside waitFor) or calls it after the agent has stopped.
// checkGoodbye checks that the agent's syncs said goodbye: every sync
// from the first that says the node leaves says it too, and the last of
// those is Final, with nothing running; want false checks that none said it.
// Callers hold mu (locked).
func (fm *fakeMaster) checkGoodbye(t *testing.T, want bool) {
	t.Helper()
	first := slices.IndexFunc(fm.syncs, func(s api.Sync) bool { return s.Leaving })
	if !want {
		if first >= 0 {
			t.Errorf("sync %d of %d says the node leaves: %+v", first, len(fm.syncs), fm.syncs[first])
		}
		return
	}
	if first < 0 {
		t.Fatalf("none of the %d syncs said the node leaves", len(fm.syncs))
	}
	// A loop sync cancelled at shutdown may still reach the master after
	// the goodbye (its request was on the wire), so a sync without
	// Leaving may follow the first leaving one; the master's leaving is
	// sticky (master/leave.go). Every sync the stop itself sends says
	// Leaving, and none is Final while something runs.
	leaving := 0
	for i, s := range fm.syncs[first:] {
		if s.Leaving {
			leaving++
		}
		if s.Final && (!s.Leaving || len(s.Running) > 0) {
			t.Errorf("sync %d after the leave: %+v, want final only leaving with nothing running", first+i, s)
		}
	}
	if leaving < 2 && len(fm.syncs[first:]) > 1 {
		t.Errorf("only %d of the %d syncs from the leave on say the node leaves", leaving, len(fm.syncs[first:]))
	}
	// The stop's last sync is Final; only a cancelled loop sync, which
	// does not say Leaving, may arrive after it.
	last := first + slices.IndexFunc(fm.syncs[first:], func(s api.Sync) bool { return s.Final })
	if last < first {
		t.Fatalf("none of the syncs from the leave on is final: %+v", fm.syncs[first:])
	}
	if len(fm.syncs[last].Running) > 0 {
		t.Errorf("the final sync %+v runs something, want nothing", fm.syncs[last])
	}
	for i, s := range fm.syncs[last+1:] {
		if s.Leaving {
			t.Errorf("sync %d after the final one says the node leaves: %+v, want only a cancelled loop sync", last+1+i, s)
		}
	}
}

func (fm *fakeMaster) reportsFor(id agent.TaskID) []api.Report {
	var out []api.Report
	for _, r := range fm.reports {
		if r.Task == id {
			out = append(out, r)
		}
	}
	return out
}

// exitOf returns an attempt's stored exit report, if any.
func (fm *fakeMaster) exitOf(id agent.TaskID) (api.Report, bool) {
	for _, r := range fm.reports {
		if r.Task == id && r.Event == api.EventExited {
			return r, true
		}
	}
	return api.Report{}, false
}

// logText returns an attempt's stored lines, "stream: text" each.
func (fm *fakeMaster) logText(id agent.TaskID) []string {
	var out []string
	for _, l := range fm.logs {
		if l.Task == id {
			out = append(out, l.Stream+": "+l.Text)
		}
	}
	return out
}

// hasLine reports whether an attempt logged a line with this text.
func (fm *fakeMaster) hasLine(id agent.TaskID, text string) bool {
	return slices.ContainsFunc(fm.logs, func(l api.AgentLogLine) bool { return l.Task == id && l.Text == text })
}

// locked runs f under the fake's lock, for reads after a wait.
func (fm *fakeMaster) locked(f func(fm *fakeMaster)) {
	fm.mu.Lock()
	defer fm.mu.Unlock()
	f(fm)
}
