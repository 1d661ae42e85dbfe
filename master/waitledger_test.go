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
