//go:build !unix

package sched

// processCPU is not available here; see the unix version.
func processCPU() (int64, bool) { return 0, false }
