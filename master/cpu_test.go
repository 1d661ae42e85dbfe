package master

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is Linux's USER_HZ, the unit of /proc's CPU times: 100 on
// every architecture Go supports.
const clockTick = 10 * time.Millisecond

// treeCPU returns the CPU time (user and system) used so far by this
// process and every process descended from it, such as the throwaway
// PostgreSQL server and its backends; ok is false where /proc is missing.
// Benchmarks report it per operation: on a machine shared with other
// work, CPU per job varies far less than jobs per second.
func treeCPU() (total time.Duration, ok bool) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return 0, false
	}
	type proc struct {
		ppid int
		cpu  time.Duration
	}
	procs := map[int]proc{}
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // the process ended
		}
		s := string(data)
		end := strings.LastIndexByte(s, ')')
		pid, err := strconv.Atoi(strings.TrimSpace(s[:strings.IndexByte(s, ' ')]))
		if end < 0 || err != nil {
			continue
		}
		// After "pid (comm) ": state ppid ... utime is field 14, stime 15.
		f := strings.Fields(s[end+1:])
		if len(f) < 13 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		procs[pid] = proc{ppid: ppid, cpu: time.Duration(ut+st) * clockTick}
	}
	self := os.Getpid()
	in := map[int]bool{self: true}
	for changed := true; changed; {
		changed = false
		for pid, p := range procs {
			if !in[pid] && in[p.ppid] {
				in[pid], changed = true, true
			}
		}
	}
	for pid := range in {
		total += procs[pid].cpu
	}
	return total, len(procs) > 0
}
