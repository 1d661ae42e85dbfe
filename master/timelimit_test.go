package master

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// killCommands counts the kill commands an agent has got.
func killCommands(a *mastertest.Agent) int {
	n := 0
	for _, c := range a.Commands() {
		if c.Type == api.CommandKill {
			n++
		}
	}
	return n
}

// overLimit starts four 1-GPU jobs with a one-minute time limit on a
// 4-GPU agent, has them run, and moves the clock past their limit.
func overLimit(t *testing.T, h *harness) (*mastertest.Agent, []int64) {
	t.Helper()
	a := h.agent("n1", 4)
	var ids []int64
	for range 4 {
		ids = append(ids, h.submit(jobSpec("train", 1, `, "time_limit": 60`)))
	}
	h.step()
	h.sync(a, a)
	for _, id := range ids {
		if got := h.taskState(id, 0); got != store.TaskRunning {
			t.Fatalf("job %d: task %s, want running", id, got)
		}
	}
	h.clock.Advance(61 * time.Second)
	return a, ids
}

// checkLimits runs the master's time-limit check as the tick does.
func checkLimits(h *harness) {
	h.m.lock()
	defer h.m.mu.Unlock()
	h.m.planner.limits.checkTimeLimits(h.ctx)
}

// TestTimeLimitKillsShareOneCommit: the tasks that reach their time limit
// on one tick are moved to killing in one transaction, and each gets its
// kill command once that commit is done.
func TestTimeLimitKillsShareOneCommit(t *testing.T) {
	var cs *countingStore
	h := newHarness(t, func(o *Options) { cs = &countingStore{Store: o.Store}; o.Store = cs })
	a, ids := overLimit(t, h)
	before := cs.updates.Load()
	checkLimits(h)
	if got := cs.updates.Load() - before; got != 1 {
		t.Fatalf("%d transactions to kill 4 tasks past their time limit, want 1", got)
	}
	for _, id := range ids {
		if got := h.taskState(id, 0); got != store.TaskKilling {
			t.Fatalf("job %d: task %s, want killing", id, got)
		}
	}
	h.sync(a, a)
	if got := killCommands(a); got != 4 {
		t.Fatalf("the agent got %d kill commands, want 4", got)
	}
	for _, id := range ids {
		if got := h.job(id).State; got != "killed" {
			t.Fatalf("job %d: %s after its kill, want killed", id, got)
		}
		want := []string{"0 running → killing: time_limit", "0 killing → killed: time_limit"}
		if got := h.causesOf(id); !slices.Equal(got, want) {
			t.Fatalf("job %d: causes %q, want %q", id, got, want)
		}
	}
}

// TestFailedTimeLimitKillsSendNothing: when the kills' commit fails (and
// so does each retry alone), no task is killing and no kill command goes
// out; the next tick kills them all.
func TestFailedTimeLimitKillsSendNothing(t *testing.T) {
	var cs *countingStore
	h := newHarness(t, func(o *Options) { cs = &countingStore{Store: o.Store}; o.Store = cs })
	a, ids := overLimit(t, h)
	cs.failCommit.Store(true)
	before := cs.updates.Load()
	checkLimits(h)
	cs.failCommit.Store(false)
	if got := cs.updates.Load() - before; got != 5 {
		t.Fatalf("%d transactions, want 5: the batch, then each task alone", got)
	}
	for _, id := range ids {
		if got := h.taskState(id, 0); got != store.TaskRunning {
			t.Fatalf("job %d: task %s after kills that were not stored, want running", id, got)
		}
	}
	h.sync(a)
	if got := killCommands(a); got != 0 {
		t.Fatalf("the agent got %d kill commands for kills not stored, want none", got)
	}
	checkLimits(h)
	h.sync(a, a)
	if got := killCommands(a); got != 4 {
		t.Fatalf("the agent got %d kill commands after the next check, want 4", got)
	}
}

// TestTimeLimitNext: the loop's timer is set to the earliest deadline of
// a running task, its start plus its limit; after a check whose kill of
// it could not be stored, to a tick after that check (not at once again,
// which would spin); with no limit to reach, to none.
func TestTimeLimitNext(t *testing.T) {
	var cs *countingStore
	h := newHarness(t, func(o *Options) { cs = &countingStore{Store: o.Store}; o.Store = cs })
	a := h.agent("n1", 4)
	t0 := h.clock.Now()
	h.submit(jobSpec("long", 1, `, "time_limit": 90`))
	h.submit(jobSpec("free", 1, ``))
	h.clock.Advance(500 * time.Millisecond)
	h.submit(jobSpec("short", 1, `, "time_limit": 15`))
	h.step()
	h.sync(a, a)
	next := func() (time.Time, bool) {
		h.m.lock()
		defer h.m.mu.Unlock()
		return h.m.planner.limits.next(time.Second)
	}
	if due, ok := next(); !ok || !due.Equal(t0.Add(15500*time.Millisecond)) {
		t.Fatalf("next check at %v (%t), want %v: short's start plus its 15 s", due.Sub(t0), ok, 15500*time.Millisecond)
	}
	h.clock.Advance(15 * time.Second)
	cs.failCommit.Store(true)
	checkLimits(h)
	cs.failCommit.Store(false)
	if due, ok := next(); !ok || !due.Equal(h.clock.Now().Add(time.Second)) {
		t.Fatalf("after a kill that could not be stored, next check at %v (%t), want a tick later", due.Sub(t0), ok)
	}
	checkLimits(h)
	if due, ok := next(); !ok || !due.Equal(t0.Add(90500*time.Millisecond)) {
		t.Fatalf("after short's kill, next check at %v (%t), want 1m30.5s: long's", due.Sub(t0), ok)
	}
	h.clock.Advance(80 * time.Second)
	checkLimits(h)
	h.sync(a, a)
	if due, ok := next(); ok {
		t.Fatalf("next check at %v with no limit left to reach, want none", due.Sub(t0))
	}
}

// TestRunKillsAtTheLimit: the loop kills a task whose time limit has
// come by its timer, without waiting for a tick (an hour here).
func TestRunKillsAtTheLimit(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Tick = time.Hour })
	a := h.agent("n1", 1)
	id := h.submit(jobSpec("short", 1, `, "time_limit": 15`))
	h.step()
	h.sync(a, a)
	h.clock.Advance(15 * time.Second)
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan struct{})
	go func() { h.m.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	for deadline := time.Now().Add(5 * time.Second); h.taskState(id, 0) != store.TaskKilling; {
		if time.Now().After(deadline) {
			t.Fatalf("the task is %s 5s after its limit came, want killing", h.taskState(id, 0))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
