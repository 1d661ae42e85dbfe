package master

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/allot-sched/allot/api"
)

// A held sync of an agent that asks for heartbeats (api.SyncHeartbeatHeader)
// sends its headers when the hold begins and a byte of JSON whitespace
// every heartbeat interval while it holds, so that the agent's fence
// counts from the last byte rather than from the last reply: a master
// that dies late in a long poll must not cost the node the poll's hold
// out of its fence's wait. The master does not count a node silent while
// it holds the node's sync (checkAgents skips it; lastSeen is set at the
// hold's end), so each heartbeat is written at a moment from which the
// node's agent timeout has not begun to count.

// syncWriteGrace is how far past the hold's end the deadline of its
// writes lies. Go's HTTP/2 server resets a stream (RST_STREAM
// INTERNAL_ERROR) the moment its write deadline passes, with no write
// under way and whatever deadline is set after, so a deadline at the
// hold's very end raced the hold's own timer, and the agent lost the
// reply of most full holds over HTTPS (trial 29c C8). Past the end by the
// grace, only a write stalled that long (a peer that reads nothing) is
// cut off; it keeps its node from being counted silent for the grace at
// most, the safe side of the agent's fence, which counts from the last
// byte the agent read.
const syncWriteGrace = 5 * time.Second

// maxSyncHeartbeat is the longest interval between heartbeats: what the
// fence loses, at most, to a master that dies between two of them.
var maxSyncHeartbeat = time.Second // a variable for tests

// syncHeartbeat is the interval between heartbeats under agent timeout
// timeout: at most maxSyncHeartbeat and a tenth of the timeout (the
// fence's margin), at least 10 ms.
func syncHeartbeat(timeout time.Duration) time.Duration {
	return max(min(maxSyncHeartbeat, timeout/10), 10*time.Millisecond)
}

// syncStream is the reply of one sync while it is held. asked says that
// the agent asked for heartbeats; every is their interval, set by sync
// (0: none); began that the headers (200) went out, after which the
// status cannot change and an error goes in the body (api.SyncReply
// Status).
type syncStream struct {
	w     http.ResponseWriter
	asked bool
	every time.Duration
	began bool
}

func newSyncStream(w http.ResponseWriter, r *http.Request) *syncStream {
	return &syncStream{w: w, asked: r.Header.Get(api.SyncHeartbeatHeader) != ""}
}

// hold waits until wait has passed, wake is closed or ctx is done,
// sending heartbeats meanwhile when they were asked for. A heartbeat
// that cannot be written (the agent is gone) ends the hold. Each write
// must be done by the hold's end and syncWriteGrace, so that a stalled
// connection does not keep the sync held, and its node from being counted
// silent, much past it; before that deadline can pass, the hold returns
// and the reply gets the server's own write timeout.
func (st *syncStream) hold(ctx context.Context, wait time.Duration, wake <-chan struct{}) {
	end := time.Now().Add(wait)
	t := time.NewTimer(wait)
	defer t.Stop()
	rc := http.NewResponseController(st.w)
	var beat <-chan time.Time
	if st.every > 0 {
		// After the hold, the reply has the server's own write timeout.
		defer func() { _ = rc.SetWriteDeadline(time.Now().Add(writeTimeout)) }()
		if st.begin(rc, end) != nil {
			return
		}
		tk := time.NewTicker(st.every)
		defer tk.Stop()
		beat = tk.C
	}
	for {
		select {
		case <-wake:
			return
		case <-t.C:
			return
		case <-ctx.Done():
			return
		case <-beat:
			if st.write(rc, end, []byte{' '}) != nil {
				return
			}
		}
	}
}

// begin sends the reply's headers, saying the heartbeat interval.
func (st *syncStream) begin(rc *http.ResponseController, end time.Time) error {
	h := st.w.Header()
	h.Set(api.SyncHeartbeatHeader, strconv.FormatInt(st.every.Milliseconds(), 10))
	h.Set("Content-Type", "application/json")
	st.w.WriteHeader(http.StatusOK)
	st.began = true
	return st.write(rc, end, nil)
}

// write sends p at once, by end and syncWriteGrace. A writer that cannot flush or take a
// deadline (a test's recorder) is written to all the same.
func (st *syncStream) write(rc *http.ResponseController, end time.Time, p []byte) error {
	if err := rc.SetWriteDeadline(end.Add(syncWriteGrace)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	if _, err := st.w.Write(p); err != nil {
		return err
	}
	if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
