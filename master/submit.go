package master

import (
	"sync"
	"sync/atomic"
)

// Submissions enter the mirror in batches. A submission stores its job
// (the store group-commits concurrent ones), queues it here and answers,
// without waiting for mu, which a batch holds across its commit. Every
// holder of mu takes it through lock, which first moves the queued jobs
// into the mirror: whoever looks at the mirror after a submission was
// answered (its client's next request, the scheduling pass it wakes)
// finds the job there.

// submissions are the jobs stored but not yet in the mirror. Its lock may
// be taken with Master.mu held or without it, but mu is never taken while
// it is held, so that a submission never waits for a batch's commit.
type submissions struct {
	mu sync.Mutex
	q  []*mjob
}

// add queues j.
func (s *submissions) add(j *mjob) {
	s.mu.Lock()
	s.q = append(s.q, j)
	s.mu.Unlock()
}

// admit empties the queue into fn, which runs with the lock held, so that
// a reader (captured) finds each job queued or in what fn published.
func (s *submissions) admit(fn func(q []*mjob)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.q
	s.q = nil
	fn(q)
}

// captured loads the view published in read and captures the queued
// jobs, both under the lock, so that a job that admit moves into the
// mirror is in one or the other.
func (s *submissions) captured(read *atomic.Pointer[readView]) (*readView, []*jobRead) {
	s.mu.Lock()
	v := read.Load()
	if len(s.q) == 0 {
		s.mu.Unlock()
		return v, nil
	}
	// Queued jobs do not change until admit takes them, under the lock.
	extra := make([]*jobRead, len(s.q))
	for i, j := range s.q {
		extra[i] = captureJob(j)
	}
	s.mu.Unlock()
	return v, extra
}

// queueJob queues a stored job for the mirror and wakes the loop, whose
// pass takes mu and so admits it. Callers do not hold mu.
func (m *Master) queueJob(j *mjob) {
	m.subs.add(j)
	select {
	case m.kickc <- struct{}{}:
	default:
	}
}

// lock takes mu and admits the queued submissions into the mirror. It
// publishes the read view before the queue's lock is released, so that a
// reader, which takes that lock to read the view and the queue
// (readview.go), finds every submission in one or the other. Release mu
// with unlock.
func (m *Master) lock() {
	m.mu.Lock()
	m.subs.admit(func(q []*mjob) {
		for _, j := range q {
			m.fair.addLeaf(j.rec.Project, j.rec.User)
			m.addJob(j)
			m.pub.markJob(j)
		}
		if len(q) > 0 {
			m.event = true // the pass that the kick asked for schedules them
			m.pub.publish()
		}
	})
}
