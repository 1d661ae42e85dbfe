package master

import (
	"fmt"
	"testing"
	"time"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// BenchmarkPassHoldsMu measures a scheduling pass (Step) over a mirror of
// 10,000 live jobs of mixed sizes and priorities on 20 nodes of 8 GPUs,
// all busy, and how much of it holds mu: the pass's time less the core's
// Schedule, which runs with mu released (stale.go); idle, and with every
// job's entry new. Before Schedule ran outside mu, held-ms/op was the
// whole pass.
func BenchmarkPassHoldsMu(b *testing.B) {
	h := busyMirror(b)
	var released time.Time
	var unlocked time.Duration
	passReleased = func() { released = time.Now() }
	passUnlocked = func(*sched.Plan) { unlocked += time.Since(released) }
	b.Cleanup(func() { passReleased, passUnlocked = nil, nil })
	for range 3 { // warm the Scheduler's memos
		h.step()
	}
	// idle: nothing changed since the last pass; every-entry: every job's
	// entry is new (as after a reload), so the core works each job out
	// again.
	for _, every := range []bool{false, true} {
		name := map[bool]string{false: "idle", true: "every-entry"}[every]
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			unlocked = 0
			for range b.N {
				h.clock.Advance(time.Second)
				if every {
					h.m.lock()
					h.m.cfgGen++
					h.m.unlock()
				}
				began := time.Now()
				h.step()
				total += time.Since(began)
			}
			b.ReportMetric(float64(total.Microseconds())/1e3/float64(b.N), "pass-ms/op")
			b.ReportMetric(float64((total-unlocked).Microseconds())/1e3/float64(b.N), "held-ms/op")
			b.ReportMetric(float64(unlocked.Microseconds())/1e3/float64(b.N), "schedule-ms/op")
		})
	}
}

// busyMirror is a master with 10,000 live jobs of one task each, of mixed
// sizes and priorities, on 20 nodes of 8 GPUs that a first pass filled.
func busyMirror(b testing.TB) *harness {
	h := benchMirror(b, 10000, func(i int) store.Job {
		return store.Job{Name: fmt.Sprintf("j%d", i), Kind: store.KindCommand, Project: "default", User: "u",
			Pool: "default", Priority: 10 + (i*37)%80, Weight: 1, Slots: 1 + i%4, Entrypoint: "e"}
	})
	for i := range 20 {
		h.agent(fmt.Sprintf("n%02d", i), 8)
	}
	h.step() // fills the nodes
	return h
}
