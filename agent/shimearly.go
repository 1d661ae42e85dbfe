package agent

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// A stop asked for before the task exists (trial o F6: a kill 44 ms
// after the start ran the whole kill_grace and ended by SIGKILL). The
// agent signals the task's process group, which is the shim's. The shim
// catches the termination signals (to outlive a checkpointing task) from
// before it forks the task, and until the fork the group is the shim
// alone: a signal sent then is the shim's only, and the task, forked
// after, never hears of it. (Before the shim catches them, such a
// signal ends the shim, and the task never starts: the attempt ends at
// once, killed.) The kernel delivers a group's signal either to the
// parent alone before a fork or to both after it, so earlySignals keeps
// each signal the shim caught while it had no task, and sends it to the
// task once it exists, as the group's signal would have reached it.
// A signal the shim catches once the task exists reached the task too.
//
// A signal that lands between the fork and the task's start being known
// may reach the task twice; the task then has its default dispositions
// still (the fork resets the shim's handlers, and exec its own), which
// end it at the first.

// earlySignals relays to a shim's task the termination signals the shim
// caught before the task's process existed.
type earlySignals struct {
	mu    sync.Mutex
	task  *os.Process // nil until the task is started
	early []os.Signal // caught while task is nil, each once, in order
	// term says a SIGTERM was caught, before the task existed or after:
	// the agent's kill signals the group so (Task.Kill), for the
	// shim's fence to say what became of the attempt (fenceWhy).
	term bool
	// caught is closed when the first early signal is kept (for tests).
	caught chan struct{}
}

// catchEarly starts catching the shim's signals (shimSignals) and
// keeping those that come before the task exists.
func catchEarly() *earlySignals {
	e := &earlySignals{caught: make(chan struct{})}
	c := make(chan os.Signal, len(shimSignals))
	signal.Notify(c, shimSignals...)
	go e.keep(c)
	return e
}

// keep notes the signals of c that come before the task exists.
func (e *earlySignals) keep(c <-chan os.Signal) {
	for s := range c {
		e.mu.Lock()
		e.term = e.term || s == syscall.SIGTERM
		if e.task == nil && !containsSignal(e.early, s) {
			e.early = append(e.early, s)
			if len(e.early) == 1 {
				close(e.caught)
			}
		}
		e.mu.Unlock()
	}
}

// termCaught reports whether the shim has caught a SIGTERM.
func (e *earlySignals) termCaught() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.term
}

// started records that the task p exists, and sends it the signals the
// shim caught before.
func (e *earlySignals) started(p *os.Process) {
	e.mu.Lock()
	e.task = p
	early := e.early
	e.mu.Unlock()
	for _, s := range early {
		_ = p.Signal(s) // an error: the task has exited already
	}
}

func containsSignal(ss []os.Signal, s os.Signal) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// shimBeforeStart, when set (by tests), runs in the shim after it catches
// its signals and before it starts the task.
var shimBeforeStart func(*earlySignals)
