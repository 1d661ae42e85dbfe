//go:build !linux

package agent

import (
	"errors"
	"syscall"
	"time"
)

// errNoWaitid says that the leader must be reaped to learn of its exit.
var errNoWaitid = errors.New("waitid with WNOWAIT is Linux-only")

// waitExit cannot wait without reaping here; the caller reaps first and
// signals the group after, accepting the tiny chance of a recycled id.
func waitExit(pid int) error { return errNoWaitid }

// groupAlive reports whether the process group pgid has a member; zombies
// count, since only Linux is inspected.
func groupAlive(pgid int) bool {
	return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

// leaderAlive cannot prove a process to be the recorded one without
// /proc, so nothing is adopted here.
func leaderAlive(pid int, ticks uint64) bool { return false }

// shimKeepsOutput is moot here: nothing is adopted without /proc.
func shimKeepsOutput(pid int) bool { return true }

// processStopped cannot tell without /proc.
func processStopped(pid int) bool { return false }

// becomeSubreaper is Linux-only: here the shell's end is the task's.
func becomeSubreaper() {}

// awaitOutlivers cannot reap the task's other processes here.
func awaitOutlivers(pgid int) (last syscall.WaitStatus, at time.Time, ok bool) {
	return 0, time.Time{}, false
}
