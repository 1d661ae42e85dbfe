package agentd

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// shortFence shortens the fence's bounds for a test: with a 6 s agent
// timeout, 1 s long polls and a 1 s grace, an attempt is asked to stop
// 4.4 s after the last reply (fenceTimes: 6 s less a 0.6 s margin and
// the grace).
func shortFence(t *testing.T) *api.Fence {
	fenceFloor, fenceMargin, fenceTryMargin = 500*time.Millisecond, 500*time.Millisecond, 500*time.Millisecond
	t.Cleanup(func() { fenceFloor, fenceMargin, fenceTryMargin = 5*time.Second, time.Second, 2*time.Second })
	return &api.Fence{AgentTimeoutMS: 6000, LostNodeGraceMS: 1000, GraceS: 1}
}

// startQuiet starts an attempt that prints nothing (so that no log
// delivery holds its exit report back) and runs until release exists,
// and waits for its running report; it returns its process group.
func startQuiet(t *testing.T, fm *fakeMaster, dir string, s *agent.TaskSpec) int {
	t.Helper()
	pidFile := filepath.Join(dir, "task.pid")
	s.Entrypoint = "echo $$ > " + pidFile + "; while [ ! -f " + filepath.Join(dir, "release") + " ]; do sleep 0.05; done"
	fm.send(startCmd(s))
	pid := readPid(t, pidFile)
	fm.waitFor("the running report", func(fm *fakeMaster) bool { return len(fm.reportsFor(s.ID())) == 1 })
	return pid
}

// TestRetriesBeforeTheFenceStops: an agent whose backoff grew long
// through an outage (here from the first failure on) still tries the
// master before its fence would stop an attempt, so a master back by
// then keeps the attempt running. Without the cap it slept through the
// master's return until the fence fired (trial 2026-11-27i, finding 1).
func TestRetriesBeforeTheFenceStops(t *testing.T) {
	f := shortFence(t)
	fm := newFakeMaster(t)
	dir := t.TempDir()
	fm.set(func(fm *fakeMaster) { fm.holdCap, fm.fence = time.Second, f })
	cfg := testConfig(t, fm, dir)
	cfg.BackoffMin, cfg.BackoffMax = 20*time.Second, 20*time.Second
	startAgent(t, cfg)
	s := spec(0, 1, "")
	pid := startQuiet(t, fm, dir, s)

	fm.set(func(fm *fakeMaster) { fm.down = true })
	fm.waitFor("a refused try", func(fm *fakeMaster) bool { return fm.refused > 0 })
	var lastReply time.Time
	fm.locked(func(fm *fakeMaster) { lastReply = fm.repliedAt })
	time.Sleep(time.Second)
	fm.set(func(fm *fakeMaster) { fm.down = false })
	back := time.Now()
	// Past the fence's stop (4.4 s after the last reply) and its grace.
	time.Sleep(time.Until(lastReply.Add(6 * time.Second)))
	if !groupLive(t, pid) {
		t.Fatal("the fence stopped the attempt although the master was back before it fired")
	}
	fm.locked(func(fm *fakeMaster) {
		if !fm.repliedAt.After(back) {
			t.Errorf("no reply since the master came back %s ago: the agent slept through its return", time.Since(back).Round(time.Millisecond))
		}
		if _, ok := fm.exitOf(s.ID()); ok {
			t.Error("the attempt reported an exit")
		}
	})
}

// TestFenceRetryCap: the delay before the sync loop's next try is cut so
// that the try comes fenceTryMargin before the fence's next stop, and
// within the margin comes soon; attempts the fence already stopped, or
// none at all, leave it as it is.
func TestFenceRetryCap(t *testing.T) {
	f := shortFence(t)
	f.Held = []agent.TaskID{{JobID: "j1", TaskIndex: 1, Attempt: 1}}
	fm := newFakeMaster(t)
	a, err := New(testConfig(t, fm, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	a.fencer().heardLocked(now, f)
	a.waitS = 1
	loose := &attempt{spec: *spec(0, 1, "")}
	held := &attempt{spec: *spec(1, 1, "")}
	fenced := &attempt{spec: *spec(2, 1, ""), fenced: "stopped"}
	const s = time.Second
	// The loose attempt is stopped 4.4 s after the contact, the held one
	// at 6 + 1 + 0.6 s (fenceTimes).
	tests := []struct {
		name  string
		tasks []*attempt
		at    time.Duration // after the contact
		d     time.Duration
		want  time.Duration
	}{
		{"nothing runs", nil, 0, 20 * s, 20 * s},
		{"a short delay stands", []*attempt{loose}, 0, s, s},
		{"cut to the margin before the stop", []*attempt{loose}, 0, 20 * s, 3900 * time.Millisecond},
		{"later in the outage", []*attempt{loose}, 3 * s, 20 * s, 900 * time.Millisecond},
		{"within the margin: soon", []*attempt{loose}, 4400 * time.Millisecond, 20 * s, fenceTryMargin / 8},
		{"past the stop: soon", []*attempt{loose}, 10 * s, 20 * s, fenceTryMargin / 8},
		{"a held attempt: before its later stop", []*attempt{held}, 0, 20 * s, 7100 * time.Millisecond},
		{"an attempt already fenced counts no more", []*attempt{fenced, held}, 0, 20 * s, 7100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.tasks = map[agent.TaskID]*attempt{}
			for _, att := range tt.tasks {
				a.tasks[att.spec.ID()] = att
			}
			if got := fenceRetryCap(a, tt.d, now.Add(tt.at)); got != tt.want {
				t.Errorf("fenceRetryCap(%s) at %s after the contact = %s, want %s", tt.d, tt.at, got, tt.want)
			}
		})
	}
}

// TestRestartedMastersLeaseIsContact: a restarted master's 404 that says
// it still holds the node (api.NodeLeaseHeader) is contact for the
// fence, as of when the master's own count began, so that a
// registration it refuses for a while (its store not ready) does not
// stop the attempt. A 404 without a lease (the master lost the node and
// may run the attempt elsewhere), or with one that has run out, is not:
// the fence stops the attempt as before.
func TestRestartedMastersLeaseIsContact(t *testing.T) {
	tests := []struct {
		name     string
		sayLease bool
		lease    time.Duration
		wantLive bool
	}{
		{"a lease of one agent timeout: contact", true, 6 * time.Second, true},
		{"no lease: the node is lost", false, 0, false},
		{"a lease run out", true, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := shortFence(t)
			fm := newFakeMaster(t)
			dir := t.TempDir()
			fm.set(func(fm *fakeMaster) { fm.holdCap, fm.fence = time.Second, f })
			startAgent(t, testConfig(t, fm, dir))
			s := spec(0, 1, "")
			pid := startQuiet(t, fm, dir, s)

			fm.set(func(fm *fakeMaster) { fm.down = true })
			down := time.Now()
			time.Sleep(3 * time.Second)
			// Back without the node, refusing registrations for now.
			fm.set(func(fm *fakeMaster) {
				fm.down, fm.known, fm.failRegisters = false, false, 1<<30
				fm.sayLease, fm.lease = tt.sayLease, tt.lease
			})
			// The fence stops the attempt 4.4 s after the last reply,
			// before down + 4.4 s; counting from the 404 (down + 3 s),
			// 4.4 s after that.
			time.Sleep(time.Until(down.Add(6 * time.Second)))
			if !tt.wantLive {
				groupGone(t, pid)
				return
			}
			if !groupLive(t, pid) {
				t.Fatal("the fence stopped the attempt although the master said it holds the node")
			}
			fm.set(func(fm *fakeMaster) { fm.failRegisters = 0 })
			fm.waitFor("the registration", func(fm *fakeMaster) bool { return len(fm.registers) == 2 })
			fm.locked(func(fm *fakeMaster) {
				if got := fm.registers[1].Running; len(got) != 1 || got[0] != s.ID() {
					t.Errorf("registered again running %v, want %s", got, s.ID())
				}
			})
			if !groupLive(t, pid) {
				t.Fatal("the attempt stopped")
			}
			if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			fm.waitFor("the exit report", func(fm *fakeMaster) bool {
				exit, ok := fm.exitOf(s.ID())
				return ok && exit.Outcome == string(agent.OutcomeCompleted)
			})
		})
	}
}

// TestRegistersAtOnceWhenAnotherLoopHearsANotFound: after an outage the
// first to reach a restarted master may be the report loop, with an
// exit report; its 404 unregisters the node, which only the sync loop
// registers again. That loop, asleep in its backoff, wakes and registers
// at once, instead of sleeping out its delay (up to BackoffMax) while the
// fence counts (trial 2026-11-27i: 13 s to register, the fence fired).
func TestRegistersAtOnceWhenAnotherLoopHearsANotFound(t *testing.T) {
	fm := newFakeMaster(t)
	dir := t.TempDir()
	cfg := testConfig(t, fm, dir)
	cfg.BackoffMin, cfg.BackoffMax = 20*time.Second, 20*time.Second
	startAgent(t, cfg)
	s := spec(0, 1, "")
	startQuiet(t, fm, dir, s)

	fm.set(func(fm *fakeMaster) { fm.down = true })
	fm.waitFor("a refused try", func(fm *fakeMaster) bool { return fm.refused > 0 })
	fm.set(func(fm *fakeMaster) { fm.down, fm.known = false, false })
	if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fm.waitFor("the registration", func(fm *fakeMaster) bool { return len(fm.registers) == 2 })
	fm.locked(func(fm *fakeMaster) {
		if took := fm.registeredAt.Sub(fm.notFoundAt); took > 2*time.Second {
			t.Errorf("registered %s after the report loop's 404, want at once (under 2s)", took.Round(time.Millisecond))
		}
	})
	fm.waitFor("the exit report", func(fm *fakeMaster) bool {
		exit, ok := fm.exitOf(s.ID())
		return ok && exit.Outcome == string(agent.OutcomeCompleted)
	})
}
