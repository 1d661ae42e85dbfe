package agent

import (
	"bytes"
	"strconv"
)

// parseStat returns the state and process group from /proc/PID/stat:
// "pid (comm) S ppid pgrp ...", where comm may hold spaces and parentheses.
func parseStat(stat []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(string(f[2]))
	return f[0][0], pg, err == nil
}

// parseStartTicks returns the state and start time (field 22, clock ticks
// after boot) from /proc/PID/stat.
func parseStartTicks(stat []byte) (state byte, ticks uint64, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(stat[i+1:])
	// f[0] is field 3 (state), so field n is f[n-3].
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0, false
	}
	t, err := strconv.ParseUint(string(f[19]), 10, 64)
	return f[0][0], t, err == nil
}
