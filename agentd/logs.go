package agentd

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// Log batches stay far below api.MaxBodyBytes: a line is at most
// agent.MaxLineBytes of text.
const (
	batchLines = 1000
	batchBytes = 1 << 20
)

// shipper buffers the tasks' output lines and posts them to the master in
// order, re-sending a batch until the master takes it. Lines have
// positions 0, 1, 2, ... in the order they were pushed; a line is handled
// once the master took it or the agent dropped it, and handled only
// grows as a prefix, so "every line pushed before position p is handled"
// is what an exit report waits for.
type shipper struct {
	post    func(ctx context.Context, batch api.LogBatch) error
	log     *slog.Logger
	limit   int // lines buffered and in flight, at most
	backoff *backoff
	// maxDelay, when set, bounds each retry's delay (Agent.retryLimit):
	// a finished attempt's exit report waits for its output, so a batch
	// must not sleep through the master's return.
	maxDelay func() time.Duration

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced when lines are pushed or handled
	queue    []api.AgentLogLine
	qHead    int   // queue[qHead:] wait to be sent
	qStart   int64 // position of queue[qHead]
	inflight int   // lines of the batch being sent, positions [qStart-inflight, qStart)
	next     int64 // position of the next line pushed
	dropped  map[agent.TaskID]uint64
	total    uint64 // dropped in all
	noWait   bool   // pushWait pushes at once: the agent stops
}

func newShipper(limit int, bo *backoff, log *slog.Logger, post func(context.Context, api.LogBatch) error) *shipper {
	return &shipper{
		post:    post,
		log:     log,
		limit:   limit,
		backoff: bo,
		changed: make(chan struct{}),
		dropped: map[agent.TaskID]uint64{},
	}
}

// broadcast wakes the waiters; the caller holds mu.
func (s *shipper) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// push adds one line; it never blocks. When the buffer is full, the
// oldest line not in flight is dropped and counted against its task.
func (s *shipper) push(id agent.TaskID, l agent.LogLine) {
	line := api.AgentLogLine{Task: id, Seq: int64(l.Seq), Time: l.Time, Stream: string(l.Stream), Text: l.Text}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.Dropped > 0 {
		// The Runner's own buffer overflowed while this consumer lagged.
		s.dropped[id] += l.Dropped
		s.total += l.Dropped
	}
	s.queue = append(s.queue, line)
	s.next++
	if len(s.queue)-s.qHead+s.inflight > s.limit && len(s.queue) > s.qHead {
		old := s.queue[s.qHead]
		s.queue[s.qHead] = api.AgentLogLine{}
		s.qHead++
		s.qStart++
		s.dropped[old.Task]++
		s.total++
		if s.total&(s.total-1) == 0 { // at 1, 2, 4, 8, ... drops
			s.log.Warn("log buffer full, dropping the oldest lines", "dropped_total", s.total, "buffer_lines", s.limit)
		}
	}
	s.broadcast()
}

// pushWait adds one line once the buffer has room for it, so that
// nothing is dropped, or at once (as push) once the agent stops
// (dropWhenFull). It is for lines that can wait where they are: an
// adopted attempt's, read from its shim's output file.
func (s *shipper) pushWait(id agent.TaskID, l agent.LogLine) {
	s.mu.Lock()
	for len(s.queue)-s.qHead+s.inflight >= s.limit && !s.noWait {
		ch := s.changed
		s.mu.Unlock()
		<-ch
		s.mu.Lock()
	}
	s.mu.Unlock()
	s.push(id, l)
}

// dropWhenFull makes pushWait push at once from now on.
func (s *shipper) dropWhenFull() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noWait = true
	s.broadcast()
}

// mark returns the position after the last line pushed.
func (s *shipper) mark() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// handled returns the position of the first line not yet handled.
func (s *shipper) handled() int64 {
	return s.qStart - int64(s.inflight)
}

// waitHandled waits until every line before position mark is handled, or
// ctx is done; it reports whether they are.
func (s *shipper) waitHandled(ctx context.Context, mark int64) bool {
	for {
		s.mu.Lock()
		ok, ch := s.handled() >= mark, s.changed
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-ch:
		}
	}
}

// takeDropped returns and forgets the count of a task's dropped lines.
func (s *shipper) takeDropped(id agent.TaskID) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.dropped[id]
	delete(s.dropped, id)
	return n
}

// take moves the next batch in flight, waiting for lines until ctx is done.
func (s *shipper) take(ctx context.Context) ([]api.AgentLogLine, bool) {
	for {
		s.mu.Lock()
		if n := len(s.queue) - s.qHead; n > 0 {
			size, k := 0, 0
			for k < n && k < batchLines && (k == 0 || size+len(s.queue[s.qHead+k].Text) <= batchBytes) {
				size += len(s.queue[s.qHead+k].Text)
				k++
			}
			batch := make([]api.AgentLogLine, k)
			copy(batch, s.queue[s.qHead:s.qHead+k])
			clear(s.queue[s.qHead : s.qHead+k])
			s.qHead += k
			s.qStart += int64(k)
			s.inflight = k
			if s.qHead > len(s.queue)/2 {
				s.queue = append(s.queue[:0], s.queue[s.qHead:]...)
				s.qHead = 0
			}
			s.mu.Unlock()
			return batch, true
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, false
		case <-ch:
		}
	}
}

// settle ends the batch in flight: delivered, or dropped when ok is false.
func (s *shipper) settle(batch []api.AgentLogLine, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok {
		for _, l := range batch {
			s.dropped[l.Task]++
		}
		s.total += uint64(len(batch))
	}
	s.inflight = 0
	s.broadcast()
}

// run sends batches until ctx is done. A batch is re-sent after network
// errors, 5xx, 404 (the node is about to register again) and throttling;
// one the master rejects as bad (another 4xx) is dropped and counted, as
// re-sending it could never succeed.
func (s *shipper) run(ctx context.Context) {
	defer s.dropWhenFull()
	for {
		batch, ok := s.take(ctx)
		if !ok {
			return
		}
		failures := 0
		for {
			err := s.post(ctx, api.LogBatch{Lines: batch})
			if err == nil {
				s.backoff.reset()
				if failures > 0 {
					s.log.Info("log delivery resumed", "lines", len(batch))
				}
				s.settle(batch, true)
				break
			}
			if ctx.Err() != nil {
				return
			}
			if errors.Is(err, errDisowned) {
				s.log.Debug("log batch dropped: this agent no longer holds the node", "lines", len(batch))
				s.settle(batch, false)
				break
			}
			if permanent(err) {
				s.log.Error("the master rejected a log batch; dropping it", "lines", len(batch), "err", err)
				s.settle(batch, false)
				break
			}
			failures++
			lvl := slog.LevelDebug
			if failures == 1 {
				lvl = slog.LevelWarn
			}
			s.log.Log(ctx, lvl, "log delivery failed; will retry", "lines", len(batch), "failures", failures, "err", err)
			if !sleep(ctx, retryDelay(s.backoff, err, s.retryLimit())) {
				return
			}
		}
	}
}

// retryLimit is the longest delay before the next try: maxDelay's, else
// the backoff's own.
func (s *shipper) retryLimit() time.Duration {
	if s.maxDelay == nil {
		return s.backoff.max
	}
	return s.maxDelay()
}

// postLogs sends one batch to the master, unless the node is not the
// agent's any more (disown.go): the master would refuse it.
func (a *Agent) postLogs(ctx context.Context, batch api.LogBatch) error {
	if (disowner{a}).disowned() {
		return errDisowned
	}
	err := a.conn.post(ctx, "/agents/"+url.PathEscape(a.cfg.Name)+"/logs", a.cfg.RequestTimeout, batch, nil)
	(disowner{a}).refusedRequest(err)
	return err
}
