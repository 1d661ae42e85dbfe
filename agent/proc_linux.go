package agent

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// waitExit blocks until the process pid exits, without reaping it: the
// zombie keeps its pid, and so its process group id, reserved, and the
// group can be signalled with no risk of reaching a recycled id.
func waitExit(pid int) error {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// groupAlive reports whether the process group pgid has a member that is
// not a zombie. Zombies are left out because an orphan whose new parent
// does not reap (a PID 1 that is not an init, as in many containers) stays
// a zombie forever, though it holds no resources and runs no code.
func groupAlive(pgid int) bool { return groupAliveBut(pgid, 0) }

// groupAliveBut is groupAlive with process self left out.
func groupAliveBut(pgid, self int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	dir, err := os.Open("/proc")
	if err != nil {
		return true
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return true
	}
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // it exited meanwhile
		}
		if name == strconv.Itoa(self) {
			continue
		}
		if state, pg, ok := parseStat(stat); ok && pg == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// leaderAlive reports whether pid runs (is not a zombie) with the start
// time ticks, so is the leader recorded then and not a later process
// given the same pid.
func leaderAlive(pid int, ticks uint64) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	state, t, ok := parseStartTicks(stat)
	return ok && t == ticks && state != 'Z' && state != 'X'
}

// shimKeepsOutput reports whether the shim running as pid was started
// with ShimOutputArg, so keeps an output file once orphaned: a shim an
// older agent started may not. An unreadable command line counts as yes,
// the shim this agent starts.
func shimKeepsOutput(pid int) bool {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return true
	}
	return slices.Contains(strings.Split(string(cmdline), "\x00"), ShimOutputArg)
}

// processStopped reports whether pid is stopped (kill -STOP, a
// debugger): alive, but running none of its code, its fence included.
func processStopped(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	state, _, ok := parseStartTicks(stat)
	return ok && (state == 'T' || state == 't')
}

// becomeSubreaper makes the calling shim the parent of the task's
// processes whose parent dies (PR_SET_CHILD_SUBREAPER), so that it can
// learn how they end. Best effort: without it the shell's end is the
// task's, as before.
func becomeSubreaper() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }

// outliverPoll is how often a shim looks for the task's processes that
// outlived its shell.
const outliverPoll = 20 * time.Millisecond

// awaitOutlivers waits until no process of the shim's group pgid but the
// shim runs, reaping the shim's children (the processes of the task its
// shell left behind, reparented to the shim), and returns the status of
// the last one reaped and when; ok false when there was none. Only
// members of the group are waited for: a process that left it (a daemon
// of its own session) does not keep the shim; and only a shim that leads
// its group, as the agent starts it, has a group of the task's alone.
func awaitOutlivers(pgid int) (last syscall.WaitStatus, at time.Time, ok bool) {
	self := os.Getpid()
	if pgid != self {
		return 0, time.Time{}, false
	}
	reap := func() {
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err != nil || pid <= 0 {
				return
			}
			last, at, ok = ws, time.Now(), true
		}
	}
	for groupAliveBut(pgid, self) {
		reap()
		time.Sleep(outliverPoll)
	}
	reap()
	return last, at, ok
}
