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
