package agentd

import "testing"

func TestParseProcStat(t *testing.T) {
	fields := " S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100"
	cases := []struct {
		name, stat string
		ok         bool
	}{
		{"plain", "4242 (sleep)" + fields, true},
		{"comm with spaces and parens", "4242 (a (b) c)" + fields, true},
		{"truncated", "4242 (sleep) S 1 4242", false},
		{"no comm", "4242 sleep S", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, ok := parseProcStat([]byte(tc.stat))
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if ok && (st.state != 'S' || st.pgrp != 4242 || st.startTicks != 987654) {
				t.Errorf("stat = %+v, want state S, pgrp 4242, start 987654", st)
			}
		})
	}
}
