package master

import (
	"slices"
	"testing"

	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// TestGangStartingAcrossRestart: a gang whose parts started just before
// a master restart, one part's running report acknowledged by the old
// master (so never sent again), is restored starting; the re-registering
// agents list their parts running, and the attempt becomes running once
// every part is listed, with the event "every part runs" (trial
// 2026-11-29c C11: it stayed starting for good). While one agent only
// has listed its part, the attempt stays starting.
func TestGangStartingAcrossRestart(t *testing.T) {
	for _, c := range []struct {
		name string
		both bool // both agents register before the check
	}{
		{"both listed", true},
		{"one listed", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			a1, a2 := h.agent("n1", 4), h.agent("n2", 4)
			id := h.submit(jobSpec("gang", 8, ""))
			h.step()
			h.sync(a1, a1) // n1's running report acknowledged, its part running
			h.sync(a2)     // n2 runs its part, its report not yet sent
			if got := h.taskState(id, 0); got != store.TaskStarting {
				t.Fatalf("before the restart: %s, want starting", got)
			}
			h.start()
			a1.Master, a2.Master = h.srv.URL, h.srv.URL
			if _, err := a1.Register(h.ctx); err != nil {
				t.Fatal(err)
			}
			if c.both {
				if _, err := a2.Register(h.ctx); err != nil {
					t.Fatal(err)
				}
			}
			want := store.TaskStarting
			if c.both {
				want = store.TaskRunning
			}
			if got := h.taskState(id, 0); got != want {
				t.Fatalf("after the registrations: %s, want %s", got, want)
			}
			if !c.both {
				// n1's part counts as running: the attempt ran.
				h.m.mu.Lock()
				ran := h.m.jobs[id].tasks[0].reportedRun()
				h.m.mu.Unlock()
				if !ran {
					t.Fatal("n1 listed its part running, but the attempt is not taken to have run")
				}
				if _, err := a2.Register(h.ctx); err != nil {
					t.Fatal(err)
				}
				h.sync(a1, a2)
				if got := h.taskState(id, 0); got != store.TaskRunning {
					t.Fatalf("after n2 registered too: %s, want running", got)
				}
			}
			evs, err := h.st.Events(h.ctx, store.EventFilter{JobID: id, To: string(store.TaskRunning)})
			if err != nil {
				t.Fatal(err)
			}
			evs = slices.DeleteFunc(evs, func(e store.Event) bool { return e.Index < 0 }) // the job's
			if len(evs) != 1 || evs[0].Reason != "every part runs" || evs[0].From != string(store.TaskStarting) {
				t.Fatalf("events to running: %+v, want one starting→running \"every part runs\"", evs)
			}
		})
	}
}

// TestGangPartRanAcrossRestart: a gang whose start reached only n1
// before a master restart (n1 runs its part, n2 never got its start) is
// ended when n2's agent, heard from, does not run it; n1's registration
// listed its part running, so the attempt ran: a non-preemptible job
// fails rather than run twice, as it does without the restart, and a
// preemptible one is started again (trial 2026-11-29c C11/C12: the
// restarted master took it for never started and ran a non-preemptible
// gang again).
func TestGangPartRanAcrossRestart(t *testing.T) {
	for _, c := range []struct {
		name  string
		extra string
		want  store.TaskState
	}{
		{"not preemptible", `, "preemptible": false`, store.TaskFailed},
		{"preemptible", `, "preemptible": true`, store.TaskStarting},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			a1, a2 := h.agent("n1", 4), h.agent("n2", 4)
			id := h.submit(jobSpec("gang", 8, c.extra))
			h.step()
			h.sync(a1, a1) // n2 never syncs before the restart
			h.start()
			for _, a := range []*mastertest.Agent{a1, a2} {
				a.Master = h.srv.URL
				if _, err := a.Register(h.ctx); err != nil {
					t.Fatal(err)
				}
			}
			h.sync(a1, a2) // n2's first sync settles the attempt it does not run
			h.step()
			if got := h.taskState(id, 0); got != c.want {
				t.Fatalf("task %s, want %s", got, c.want)
			}
		})
	}
}
