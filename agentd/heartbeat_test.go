package agentd

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestHeartbeatsAreContact: a master that dies late in a held long poll
// has the fence count from its last heartbeat (api.SyncHeartbeatHeader),
// when it still held the poll and so had not begun to count the node
// silent, not from its last reply: the task runs past the moment the
// reply's count would have stopped it, and is still stopped before the
// master, counting from the heartbeat, would lose the node. A master
// older than the heartbeats sends none, and the fence counts from the
// last reply as before (trial 2026-11-27j, finding A).
func TestHeartbeatsAreContact(t *testing.T) {
	// agent_timeout 10 s, 3 s long polls, a 1 s grace: the checkpoint
	// request after 8 s of silence (fenceTimes: 10 s less a 1 s margin
	// and the grace; two polls are 6 s), the kill at 9 s.
	const timeout, after, grace = 10 * time.Second, 8 * time.Second, time.Second
	fenceFloor, fenceMargin, fenceTryMargin = 500*time.Millisecond, 500*time.Millisecond, 500*time.Millisecond
	t.Cleanup(func() { fenceFloor, fenceMargin, fenceTryMargin = 5*time.Second, time.Second, 2*time.Second })
	for _, beats := range []bool{true, false} {
		t.Run(map[bool]string{true: "heartbeats", false: "an older master"}[beats], func(t *testing.T) {
			t.Parallel()
			fm := newFakeMaster(t)
			dir := t.TempDir()
			fm.set(func(fm *fakeMaster) {
				fm.syncWaitS, fm.holdCap = 3, 3*time.Second
				fm.fence = &api.Fence{AgentTimeoutMS: timeout.Milliseconds(), LostNodeGraceMS: 1000, GraceS: int64(grace / time.Second)}
				if beats {
					fm.heartbeat = 100 * time.Millisecond
				}
			})
			startAgent(t, testConfig(t, fm, dir))
			pid := startQuiet(t, fm, dir, spec(0, 1, ""))
			// Kill the master 2.5 s into an idle poll's 3 s hold.
			var holdAt time.Time
			fm.locked(func(fm *fakeMaster) { holdAt = fm.holdAt })
			fm.waitFor("a long poll held", func(fm *fakeMaster) bool { return fm.holdAt.After(holdAt) })
			fm.locked(func(fm *fakeMaster) { holdAt = fm.holdAt })
			time.Sleep(time.Until(holdAt.Add(2500 * time.Millisecond)))
			fm.killHold()
			var replied, beat time.Time
			fm.locked(func(fm *fakeMaster) { replied, beat = fm.repliedAt, fm.beatAt })
			contact := replied
			if beats {
				if beat.Sub(replied) < 2*time.Second {
					t.Fatalf("last heartbeat %s after the last reply, want 2 s or more (killed 2.5 s into the hold)", beat.Sub(replied))
				}
				contact = beat
			} else if !beat.IsZero() {
				t.Fatal("an older master sent heartbeats")
			}
			if beats {
				// Past the reply's count's kill: running still.
				time.Sleep(time.Until(replied.Add(after + grace + 500*time.Millisecond)))
				if !groupLive(t, pid) {
					t.Fatalf("the fence stopped the task %s after the last reply, %s after the last heartbeat: it counted from the reply",
						time.Since(replied).Round(time.Millisecond), time.Since(beat).Round(time.Millisecond))
				}
			}
			groupGone(t, pid)
			gone := time.Since(contact)
			// Before the master's loss of the node; not before the
			// checkpoint request was due.
			if gone >= timeout || gone < after-200*time.Millisecond {
				t.Errorf("the task was gone %s after the last contact; want between the fence's request (%s) and the agent timeout (%s)",
					gone.Round(time.Millisecond), after, timeout)
			}
		})
	}
}

// TestNotFoundAfterTheHeadersRegisters: a node the master forgets while
// it holds the node's poll, after the 200 and heartbeats went out, is
// told so in the reply's body (api.SyncReply.Status); the agent
// registers again at once, as after a 404, rather than taking the reply
// for an empty one and learning it only at the next sync.
func TestNotFoundAfterTheHeadersRegisters(t *testing.T) {
	fm := newFakeMaster(t)
	fm.set(func(fm *fakeMaster) {
		fm.syncWaitS, fm.holdCap, fm.heartbeat = 1, time.Second, 50*time.Millisecond
	})
	startAgent(t, testConfig(t, fm, t.TempDir()))
	fm.waitFor("a heartbeat", func(fm *fakeMaster) bool { return !fm.beatAt.IsZero() && fm.beatAt.After(fm.holdAt) })
	fm.set(func(fm *fakeMaster) { fm.known = false })
	fm.waitFor("a second registration", func(fm *fakeMaster) bool { return len(fm.registers) == 2 })
	fm.locked(func(fm *fakeMaster) {
		if !fm.notFoundAt.IsZero() {
			t.Error("the agent synced again, and got the 404 then, before it registered: it took the failed reply for an empty one")
		}
	})
}

// TestHeartbeatsNoLaterThanTheHold: a heartbeat counts as contact no
// later than the longest the master may hold the poll after it was
// sent (half the agent timeout here, below the sync wait): bytes that
// come later (held back on the way) tell of no later moment.
func TestHeartbeatsNoLaterThanTheHold(t *testing.T) {
	fm := newFakeMaster(t)
	fm.set(func(fm *fakeMaster) {
		// The fake holds 3 s, though the agent timeout caps a hold at 2 s.
		fm.syncWaitS, fm.holdCap, fm.heartbeat = 3, 3*time.Second, 50*time.Millisecond
		fm.fence = &api.Fence{AgentTimeoutMS: 4000, LostNodeGraceMS: 1000}
	})
	r := startAgent(t, testConfig(t, fm, t.TempDir()))
	var holdAt time.Time
	fm.waitFor("heartbeats 2.5 s into a poll", func(fm *fakeMaster) bool {
		holdAt = fm.holdAt
		return !holdAt.IsZero() && fm.beatAt.Sub(holdAt) > 2500*time.Millisecond
	})
	fm.killHold()
	r.a.mu.Lock()
	beat := r.a.fence.beat
	r.a.mu.Unlock()
	if d := beat.Sub(holdAt); d > 2*time.Second || d < 1500*time.Millisecond {
		t.Errorf("the last heartbeat counted %s into the poll; want up to 2 s, half the agent timeout", d)
	}
}

// TestSilentPollGivenUp: a held sync whose heartbeats stop, its
// connection open (the master's host or the network gone without a
// word), is given up after a few missed heartbeats (heartbeatSilence)
// and the agent syncs again, rather than waiting out the poll's timeout,
// which runs past the fence's stop: a master back soon is heard soon.
func TestSilentPollGivenUp(t *testing.T) {
	fm := newFakeMaster(t)
	fm.set(func(fm *fakeMaster) {
		fm.syncWaitS, fm.holdCap, fm.heartbeat = 30, 30*time.Second, 100*time.Millisecond
	})
	startAgent(t, testConfig(t, fm, t.TempDir()))
	var holdAt time.Time
	fm.waitFor("a long poll held", func(fm *fakeMaster) bool { holdAt = fm.holdAt; return !fm.holdAt.IsZero() })
	fm.set(func(fm *fakeMaster) { fm.mute = true })
	muted := time.Now()
	fm.waitFor("the agent to sync again", func(fm *fakeMaster) bool { return fm.holdAt.After(holdAt) && fm.holdAt.After(muted) })
	var again time.Time
	fm.locked(func(fm *fakeMaster) { again = fm.holdAt })
	silence := heartbeatSilence("100")
	if waited := again.Sub(muted); waited < silence-200*time.Millisecond || waited > silence+3*time.Second {
		t.Fatalf("the agent synced again %s after the heartbeats stopped, want about %s (not the poll's 30 s)",
			waited.Round(time.Millisecond), silence)
	}
}
