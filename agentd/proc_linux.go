package agentd

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/allot-sched/allot/agent"
)

// procStat holds the fields of /proc/PID/stat the agent reads.
type procStat struct {
	state      byte
	pgrp       int
	startTicks uint64
}

// parseProcStat reads "pid (comm) S ppid pgrp session ... starttime ...",
// where comm may hold spaces and parentheses; starttime is field 22.
func parseProcStat(stat []byte) (procStat, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(stat[i+1:])
	// f[0] is field 3 (state), so field n is f[n-3].
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	pg, err1 := strconv.Atoi(string(f[2]))
	st, err2 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], pgrp: pg, startTicks: st}, true
}

func readProcStat(pid int) (procStat, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	return parseProcStat(data)
}

// groupMembers lists the live (not zombie) processes of a process group.
func groupMembers(pgid int) ([]int, error) {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return nil, nil
	}
	dir, err := os.Open("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	var pids []int
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		st, ok := readProcStat(pid)
		if ok && st.pgrp == pgid && st.state != 'Z' && st.state != 'X' {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// startTicks returns a process's start time in clock ticks after boot.
func startTicks(pid int) (uint64, bool) {
	st, ok := readProcStat(pid)
	return st.startTicks, ok
}

// environMatches reports whether a process was started with the attempt's
// ALLOT_ variables, as the Runner sets them; children inherit them.
func environMatches(pid int, id agent.TaskID) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	want := map[string]string{
		"ALLOT_JOB_ID":     id.JobID,
		"ALLOT_TASK_INDEX": strconv.Itoa(id.TaskIndex),
		"ALLOT_ATTEMPT":    strconv.Itoa(id.Attempt),
	}
	for kv := range bytes.SplitSeq(data, []byte{0}) {
		k, v, ok := strings.Cut(string(kv), "=")
		if w, mine := want[k]; ok && mine && w == v {
			delete(want, k)
		}
	}
	return len(want) == 0
}

// bootID identifies the running kernel's boot; "" when unknown.
func bootID() string {
	data, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}
