package agentd

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// TestFenceTimes: the fence stops an attempt the master would requeue
// before the master loses the node (agent_timeout less the margin),
// giving it what is left of the pool's grace after the quiet floor; a
// held attempt once lost_node_grace is over too.
func TestFenceTimes(t *testing.T) {
	f := func(timeout, grace time.Duration, lostGrace time.Duration) *api.Fence {
		return &api.Fence{AgentTimeoutMS: timeout.Milliseconds(), GraceS: int64(grace / time.Second), LostNodeGraceMS: lostGrace.Milliseconds()}
	}
	s := time.Second
	tests := []struct {
		name        string
		fence       *api.Fence
		hold        time.Duration
		held        bool
		after, gr   time.Duration
		late        bool
		beforeTheTO bool
	}{
		{"defaults: grace cut to what the quiet floor leaves", f(30*s, 30*s, 5*time.Minute), 10 * s, false, 21 * s, 6 * s, false, true},
		{"short grace: asked late enough to keep all of it", f(120*s, 10*s, 5*time.Minute), 10 * s, false, 98 * s, 10 * s, false, true},
		{"no grace: killed at the margin", f(60*s, 0, 0), 10 * s, false, 54 * s, 0, false, true},
		{"hold capped at half the timeout", f(30*s, 30*s, 0), time.Minute, false, 31 * s, 0, true, false},
		{"held: after the loss and its grace", f(30*s, 30*s, 5*time.Minute), 10 * s, true, 333 * s, 30 * s, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			after, grace, late := fenceTimes(tt.fence, tt.hold, time.Second, tt.held)
			if after != tt.after || grace != tt.gr || late != tt.late {
				t.Errorf("fenceTimes = %s, %s, late %v; want %s, %s, late %v", after, grace, late, tt.after, tt.gr, tt.late)
			}
			if timeout := msDuration(tt.fence.AgentTimeoutMS); (after+grace < timeout) != tt.beforeTheTO {
				t.Errorf("killed at %s of silence, agent_timeout %s: before it %v, want %v", after+grace, timeout, !tt.beforeTheTO, tt.beforeTheTO)
			}
		})
	}
}

// TestFenceStopsWhatTheMasterRequeues: out of the master's reach, the
// agent stops the attempt the master would requeue at the loss before
// the agent timeout, and the one it holds once lost_node_grace is over
// too; while the master answers, and under a master that does not fence
// (older, or fence: false), nothing is stopped. Back in reach, the
// agent reports them preempted, saying the fence stopped them.
func TestFenceStopsWhatTheMasterRequeues(t *testing.T) {
	const timeout, lostGrace = 3 * time.Second, time.Second
	fenceFloor, fenceMargin = 500*time.Millisecond, 500*time.Millisecond
	t.Cleanup(func() { fenceFloor, fenceMargin = 5*time.Second, time.Second })
	for _, fencing := range []bool{true, false} {
		t.Run(map[bool]string{true: "fence", false: "no fence"}[fencing], func(t *testing.T) {
			fm := newFakeMaster(t)
			dir := t.TempDir()
			loose, held := spec(0, 0, "while :; do sleep 0.05; done"), spec(1, 0, "while :; do sleep 0.05; done")
			fm.set(func(fm *fakeMaster) {
				fm.holdCap = time.Second // long polls held as long as the agent asks: one a second
				if fencing {
					fm.fence = &api.Fence{AgentTimeoutMS: timeout.Milliseconds(), LostNodeGraceMS: lostGrace.Milliseconds(),
						GraceS: 1, Held: []agent.TaskID{held.ID()}}
				}
			})
			startAgent(t, testConfig(t, fm, dir))
			pids := map[agent.TaskID]int{}
			for _, s := range []*agent.TaskSpec{loose, held} {
				pidFile := filepath.Join(dir, fmt.Sprintf("task%d.pid", s.TaskIndex))
				s.Entrypoint = "echo $$ > " + pidFile + "; " + s.Entrypoint
				fm.send(startCmd(s))
				pids[s.ID()] = readPid(t, pidFile)
			}
			fm.waitFor("the running reports", func(fm *fakeMaster) bool {
				return len(fm.reportsFor(loose.ID())) == 1 && len(fm.reportsFor(held.ID())) == 1
			})
			time.Sleep(timeout + 500*time.Millisecond)
			for id, pgid := range pids {
				if !groupLive(t, pgid) {
					t.Fatalf("the fence stopped %s while the master answered", id)
				}
			}

			fm.set(func(fm *fakeMaster) { fm.down = true })
			if !fencing {
				time.Sleep(timeout + lostGrace + 2*time.Second)
				for id, pgid := range pids {
					if !groupLive(t, pgid) {
						t.Fatalf("%s stopped under a master that does not fence", id)
					}
				}
				return
			}
			groupGone(t, pids[loose.ID()])
			// A long poll in flight when the master went down was still
			// answered: the silence counts from the last reply.
			var down time.Time
			fm.locked(func(fm *fakeMaster) { down = fm.repliedAt })
			if d := time.Since(down); d >= timeout {
				t.Errorf("the requeued attempt was gone %s after the master went out of reach, want before the agent timeout %s", d, timeout)
			}
			if !groupLive(t, pids[held.ID()]) {
				t.Fatal("the held attempt was stopped with the other, before lost_node_grace")
			}
			groupGone(t, pids[held.ID()])
			if d := time.Since(down); d < timeout+lostGrace {
				t.Errorf("the held attempt was gone %s after the master went out of reach, want after agent_timeout + lost_node_grace %s", d, timeout+lostGrace)
			}
			fm.set(func(fm *fakeMaster) { fm.down = false })
			fm.waitFor("both exit reports", func(fm *fakeMaster) bool {
				_, ok1 := fm.exitOf(loose.ID())
				_, ok2 := fm.exitOf(held.ID())
				return ok1 && ok2
			})
			fm.locked(func(fm *fakeMaster) {
				for _, id := range []agent.TaskID{loose.ID(), held.ID()} {
					exit, _ := fm.exitOf(id)
					if exit.Outcome != string(agent.OutcomePreempted) || !strings.Contains(exit.Error, "stopped by the agent's fence") {
						t.Errorf("exit of %s = %+v, want preempted, saying the fence stopped it", id, exit)
					}
				}
			})
		})
	}
}

// TestFenceSparesAStoreOutage: a master whose store is down answers the
// syncs 503 with api.StoreOutageHeader; it loses no node for the outage,
// so the agent's fence stops nothing however long it lasts, where the
// same silence from an unreachable master would have stopped the task.
func TestFenceSparesAStoreOutage(t *testing.T) {
	const timeout = 3 * time.Second
	fenceFloor, fenceMargin = 500*time.Millisecond, 500*time.Millisecond
	t.Cleanup(func() { fenceFloor, fenceMargin = 5*time.Second, time.Second })
	fm := newFakeMaster(t)
	dir := t.TempDir()
	s := spec(0, 0, "while :; do sleep 0.05; done")
	fm.set(func(fm *fakeMaster) {
		fm.holdCap = time.Second
		fm.fence = &api.Fence{AgentTimeoutMS: timeout.Milliseconds(), LostNodeGraceMS: 1000, GraceS: 1}
	})
	startAgent(t, testConfig(t, fm, dir))
	pidFile := filepath.Join(dir, "task0.pid")
	s.Entrypoint = "echo $$ > " + pidFile + "; " + s.Entrypoint
	fm.send(startCmd(s))
	pid := readPid(t, pidFile)
	fm.waitFor("the running report", func(fm *fakeMaster) bool { return len(fm.reportsFor(s.ID())) == 1 })
	fm.set(func(fm *fakeMaster) { fm.storeOut = true })
	time.Sleep(timeout + 2*time.Second)
	if !groupLive(t, pid) {
		t.Fatal("the fence stopped a task while the master answered that its store was down")
	}
	fm.set(func(fm *fakeMaster) { fm.storeOut = false })
	fm.locked(func(fm *fakeMaster) {
		if _, ok := fm.exitOf(s.ID()); ok {
			t.Error("the task reported an exit")
		}
	})
}

// TestFenceWhy: the fence's words fit what the master does with the
// attempt once it loses the node (trial 2026-11-29g G8: a task being
// killed was said to be requeued).
func TestFenceWhy(t *testing.T) {
	tests := []struct {
		name          string
		held, killing bool
		want, not     string
	}{
		{"requeued if it may run again", false, false,
			"no reply from the master for 21s; the master ends the attempt after 30s without contact, and requeues the task elsewhere if its job may run again", ""},
		{"being killed", false, true, "the master ends the attempt, which was being killed, after 30s without contact", "requeue"},
		{"held through the loss", true, false, "the master fails the attempt after 30s without contact and 5m0s more (lost_node_grace)", "requeue"},
		{"held, and being killed", true, true, "which was being killed", "lost_node_grace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fenceWhy(21*time.Second+300*time.Millisecond, 30*time.Second, 5*time.Minute, tt.held, tt.killing)
			if !strings.HasPrefix(got, agent.AgentFenceStopped+": ") || !strings.Contains(got, tt.want) || (tt.not != "" && strings.Contains(got, tt.not)) {
				t.Errorf("fenceWhy = %q, want it to say %q and not %q", got, tt.want, tt.not)
			}
		})
	}
}

// TestFenceDueWords: due gives each attempt it stops the words of its
// case: the one the master's kill reached is not said to be requeued.
func TestFenceDueWords(t *testing.T) {
	now := time.Now()
	killed, running := agent.TaskID{JobID: "1", Attempt: 1}, agent.TaskID{JobID: "2", Attempt: 1}
	fs := &fenceState{f: &api.Fence{AgentTimeoutMS: 30_000, GraceS: 10}, contact: now.Add(-time.Hour)}
	tasks := map[agent.TaskID]*attempt{killed: {stopped: api.CommandKill}, running: {}}
	due, _ := fs.due(now, tasks, 10, time.Second, false)
	if len(due) != 2 {
		t.Fatalf("due = %d attempts, want 2", len(due))
	}
	for id, want := range map[agent.TaskID]string{killed: "which was being killed", running: "requeues the task elsewhere if its job may run again"} {
		t.Run(id.String(), func(t *testing.T) {
			if got := tasks[id].fenced; !strings.Contains(got, want) {
				t.Errorf("fenced %q, want it to say %q", got, want)
			}
		})
	}
}
