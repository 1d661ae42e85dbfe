//go:build unix

package sched

import "syscall"

// processCPU returns the CPU time (user plus system) the test process has
// used, in nanoseconds, and whether it could be read. Benchmarks report it
// per op besides wall time: on a machine shared with other work wall time
// counts the waits for a core, CPU time much less so.
func processCPU() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
