package master

import "testing"

// TestWaitLedgerBound: past maxLedgerJobs the ledger drops the oldest
// jobs (smallest ids) and keeps the newest, and a job credited again
// keeps its sum.
func TestWaitLedgerBound(t *testing.T) {
	var l waitLedger
	const extra = 10
	for id := int64(1); id <= maxLedgerJobs+extra; id++ {
		l.add(id, waitOther, 1)
	}
	l.add(maxLedgerJobs+extra, waitOwn, 2)
	if len(l.by) != maxLedgerJobs {
		t.Fatalf("ledger keeps %d jobs, want %d", len(l.by), maxLedgerJobs)
	}
	cases := []struct {
		name string
		id   int64
		want *waitSplit
	}{
		{"the oldest dropped", 1, nil},
		{"the last dropped", extra, nil},
		{"the oldest kept", extra + 1, &waitSplit{waitOther: 1}},
		{"the newest, credited twice", maxLedgerJobs + extra, &waitSplit{waitOther: 1, waitOwn: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := l.by[c.id]
			switch {
			case c.want == nil && got != nil:
				t.Fatalf("job %d kept: %v", c.id, *got)
			case c.want != nil && (got == nil || *got != *c.want):
				t.Fatalf("job %d: %v, want %v", c.id, got, *c.want)
			}
		})
	}
}

func TestExcludedNoteIsASentence(t *testing.T) {
	for _, tc := range []struct {
		name      string
		own, down int64
		jobs      int
		want      string
	}{
		{"nothing left out", 0, 0, 1, ""},
		{"own limit, one job", 11, 0, 1, "its 1 job waited 11s on the project's own limit, on demand past its quota or fair share, " +
			"or on its max_concurrent, which is not counted as deprivation"},
		{"nodes down, two jobs", 0, 180, 2, "its 2 jobs waited 3m on drained, lost or departed nodes, which is not counted as deprivation"},
		{"both", 900, 180, 2, "its 2 jobs waited 15m on the project's own limit, on demand past its quota or fair share, " +
			"or on its max_concurrent and 3m on drained, lost or departed nodes, which is not counted as deprivation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := excludedNote(tc.own, tc.down, tc.jobs); got != tc.want {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
