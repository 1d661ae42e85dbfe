//go:build !linux

package agentd

import (
	"errors"
	"syscall"

	"github.com/allot-sched/allot/agent"
)

// groupMembers cannot list a group's processes without /proc; it reports
// the leader's pid when the group exists, so that the caller can check it.
func groupMembers(pgid int) ([]int, error) {
	if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		return nil, nil
	}
	return []int{pgid}, nil
}

// startTicks is unknown without /proc.
func startTicks(pid int) (uint64, bool) { return 0, false }

// environMatches cannot read another process's environment without
// /proc, so a group left by an earlier agent is never proven to be its
// own and is left alone.
func environMatches(pid int, id agent.TaskID) bool { return false }

// bootID is unknown without /proc.
func bootID() string { return "" }
