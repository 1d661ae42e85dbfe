package master

// Submissions enter the mirror in batches. A submission stores its job
// (the store group-commits concurrent ones), queues it here and answers,
// without waiting for mu, which a batch holds across its commit. Every
// holder of mu takes it through lock, which first moves the queued jobs
// into the mirror: whoever looks at the mirror after a submission was
// answered (its client's next request, the scheduling pass it wakes)
// finds the job there.

// queueJob queues a stored job for the mirror and wakes the loop, whose
// pass takes mu and so admits it. Callers do not hold mu.
func (m *Master) queueJob(j *mjob) {
	m.subMu.Lock()
	m.subQ = append(m.subQ, j)
	m.subMu.Unlock()
	select {
	case m.kickc <- struct{}{}:
	default:
	}
}

// lock takes mu and admits the queued submissions into the mirror. It
// publishes the read view before it releases subMu, so that a reader,
// which takes subMu to read the view and the queue (readview.go), finds
// every submission in one or the other. Release mu with unlock.
func (m *Master) lock() {
	m.mu.Lock()
	m.subMu.Lock()
	defer m.subMu.Unlock()
	q := m.subQ
	m.subQ = nil
	for _, j := range q {
		m.fair.addLeaf(j.rec.Project, j.rec.User)
		m.addJob(j)
		m.pub.markJob(j)
	}
	if len(q) > 0 {
		m.event = true // the pass that the kick asked for schedules them
		m.pub.publish()
	}
}
