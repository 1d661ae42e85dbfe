package master

import (
	"fmt"
	"testing"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// TestPreemptConcerns: only a job waiting for slots (not behind another,
// nor for a quota, a license or checkpoints), in a multifactor or
// priority pool whose rule may preempt for it, gets a preemption note
// computed: the rest of a long queue costs a check.
func TestPreemptConcerns(t *testing.T) {
	pools := []sched.Pool{
		{Name: "mf", Policy: sched.PolicyMultifactor, Preemption: true},
		{Name: "mfoff", Policy: sched.PolicyMultifactor},
		{Name: "prio", Policy: sched.PolicyPriority, Preemption: true},
		{Name: "fifo", Policy: sched.PolicyFIFO, Preemption: true},
		{Name: "share", Policy: sched.PolicyFairShare, Preemption: true},
	}
	qos := []sched.QOS{{Name: "normal"}, {Name: "emergency", Preempt: true}}
	tests := []struct {
		name   string
		pool   int
		qos    int
		reason sched.Reason
		want   bool
	}{
		{"preempting multifactor pool, reserved", 0, 0, sched.ReasonReserved, true},
		{"preempting multifactor pool, no_capacity", 0, 0, sched.ReasonNoCapacity, true},
		{"preempting multifactor pool, fragmented", 0, 0, sched.ReasonFragmented, true},
		{"behind another waiting job", 0, 1, sched.ReasonBehind, false},
		{"checkpoints under way", 0, 1, sched.ReasonCheckpointing, false},
		{"over quota", 0, 1, sched.ReasonOverQuota, false},
		{"license", 0, 1, sched.ReasonLicense, false},
		{"pool without preemption, QOS that preempts", 1, 1, sched.ReasonReserved, true},
		{"pool without preemption, QOS that does not", 1, 0, sched.ReasonReserved, false},
		{"preempting priority pool", 2, 0, sched.ReasonNoCapacity, true},
		{"fifo pool", 3, 1, sched.ReasonNoCapacity, false},
		{"fair-share pool (shareNote's)", 4, 1, sched.ReasonNoCapacity, false},
		{"no QOS", 1, -1, sched.ReasonReserved, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &sched.Snapshot{Pools: pools, QOS: qos, Jobs: []sched.Job{{ID: "1", Pool: tt.pool, QOS: tt.qos}}}
			if got := preemptConcerns(s, sched.Pending{Job: 0, Reason: tt.reason}); got != tt.want {
				t.Errorf("preemptConcerns = %t, want %t", got, tt.want)
			}
		})
	}
}

// BenchmarkPreemptNote measures what the preemption note adds to a pass
// over busyMirror's 10,000 waiting jobs (one pool, priority with
// preemption: its head waits for slots, the rest behind it): the gate
// for each waiting job, and the note of the one it concerns, with the
// facts made once, as a pass makes them.
func BenchmarkPreemptNote(b *testing.B) {
	h := busyMirror(b)
	h.m.lock()
	defer h.m.unlock()
	pl := h.m.planner
	pending := waitingOf(h)
	notes := 0
	for b.Loop() {
		grows := growNotes{s: &pl.snap}
		n := preemptNotes{pl: pl, grows: &grows}
		notes = 0
		for _, pe := range pending {
			if n.note(pe) != "" {
				notes++
			}
		}
	}
	if notes != 1 {
		b.Fatalf("%d notes, want the head's", notes)
	}
}

// TestPreemptNotesBounded: a pass works out at most maxPreemptNotes
// notes, so that a thousand reserved jobs in a preempting pool do not
// each search the running jobs under the master's lock; the head's note
// is there while the pass has not spent them.
func TestPreemptNotesBounded(t *testing.T) {
	// busyMirror's shape, smaller: the race run of the package is long.
	h := benchMirror(t, 200, func(i int) store.Job {
		return store.Job{Name: fmt.Sprintf("j%d", i), Kind: store.KindCommand, Project: "default", User: "u",
			Pool: "default", Priority: 10 + (i*37)%80, Weight: 1, Slots: 1 + i%4, Entrypoint: "e"}
	})
	h.agent("n00", 8)
	h.agent("n01", 8)
	h.step()
	h.m.lock()
	defer h.m.unlock()
	pl := h.m.planner
	pending := waitingOf(h)
	for _, tc := range []struct {
		name  string
		made  int
		notes int
	}{{"notes left", 0, 1}, {"spent", maxPreemptNotes, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			grows := growNotes{s: &pl.snap}
			n := preemptNotes{pl: pl, grows: &grows, made: tc.made}
			notes := 0
			for _, pe := range pending {
				if n.note(pe) != "" {
					notes++
				}
			}
			if (tc.notes == 0) != (notes == 0) {
				t.Errorf("%d notes, want %s", notes, map[bool]string{true: "none", false: "the head's"}[tc.notes == 0])
			}
		})
	}
}

// waitingOf is the pending entries of h's waiting jobs. Callers hold mu.
func waitingOf(h *harness) []sched.Pending {
	var pending []sched.Pending
	for _, j := range h.m.jobs {
		if j.pending != nil {
			pending = append(pending, j.pending.p)
		}
	}
	return pending
}
