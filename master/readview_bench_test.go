package master

import (
	"fmt"
	"testing"

	"github.com/allot-sched/allot/store"
)

// BenchmarkBatchPublish measures a batch that changes one job of a mirror
// of 10,000 live jobs, with its commit on SQLite, released with and
// without publishing the read view; a scheduling pass over them, with
// and without; and the publish alone, for one job and for a hundred
// changed.
func BenchmarkBatchPublish(b *testing.B) {
	const jobs = 10000
	h := benchMirror(b, jobs, func(i int) store.Job {
		return store.Job{Name: fmt.Sprintf("j%d", i), Kind: store.KindCommand, Project: "default", User: "u",
			Pool: "default", Priority: 50, Weight: 1, Slots: 1, Entrypoint: "e"}
	})
	m := h.m
	if len(m.jobs) != jobs {
		b.Fatalf("%d jobs in the mirror, want %d", len(m.jobs), jobs)
	}
	ids := make([]int64, 0, jobs)
	for id := range m.jobs {
		ids = append(ids, id)
	}
	batch := func(i int) {
		j := m.jobs[ids[i%len(ids)]]
		w := float64(1 + i%2)
		err := m.batches.inBatch(h.ctx, func() error {
			rec, err := m.batches.w().UpdateJob(h.ctx, store.JobUpdate{ID: j.rec.ID, Weight: &w, At: h.clock.Now(), Reason: "bench"})
			if err != nil {
				return err
			}
			m.batches.touch(j)
			j.rec = rec
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for i := range 1000 { // warm the store's caches and settle the heap first
		m.lock()
		batch(i)
		m.unlock()
	}
	// Twice each, alternating: the first runs of a process measure slower.
	for _, publish := range []bool{false, true, false, true} {
		b.Run(fmt.Sprintf("batch/publish=%t", publish), func(b *testing.B) {
			for i := range b.N {
				m.lock()
				batch(i)
				if publish {
					m.unlock()
				} else {
					m.mu.Unlock()
				}
			}
		})
	}
	// A pass over the 10,000 waiting jobs (no node is up): their
	// explanations stay as they were, so a publish captures none again.
	for _, publish := range []bool{true, false} {
		b.Run(fmt.Sprintf("pass/publish=%t", publish), func(b *testing.B) {
			for range b.N {
				m.lock()
				if err := m.planner.schedule(h.ctx); err != nil {
					b.Fatal(err)
				}
				if publish {
					m.unlock()
				} else {
					m.mu.Unlock()
				}
			}
		})
	}
	for _, changed := range []int{1, 100} {
		b.Run(fmt.Sprintf("publish/%d-changed", changed), func(b *testing.B) {
			m.lock()
			defer m.mu.Unlock()
			for i := range b.N {
				for k := range changed {
					m.pub.markJob(m.jobs[ids[(i*changed+k)%len(ids)]])
				}
				m.pub.publish()
			}
		})
	}
}

// benchMirror starts a harness whose mirror holds n live jobs of one task
// each, job(i) giving the i-th (submitted now), stored in one transaction
// and loaded as a restart loads them, without the per-release check of
// the read view (it costs the size of the mirror).
func benchMirror(b testing.TB, n int, job func(i int) store.Job) *harness {
	v := verifyReads
	verifyReads = nil
	b.Cleanup(func() { verifyReads = v })
	h := newHarness(b)
	err := h.st.Update(h.ctx, func(tx store.Tx) error {
		for i := range n {
			rec := job(i)
			rec.SubmittedAt = h.clock.Now()
			if _, err := tx.CreateJob(h.ctx, rec, []store.Task{{}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	h.start()
	return h
}
