package master

import (
	"testing"
	"time"
)

// TestBeforeJob: a node event names the first job of its second
// submitted after it; one at the very time of a submission, or after
// every submission of its second, names none.
func TestBeforeJob(t *testing.T) {
	since := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return since.Add(time.Duration(ms) * time.Millisecond) }
	subs := []exportedSub{{"j1-a", at(100_000)}, {"j2-b", at(100_002)}, {"j3-c", at(100_005)}, {"j4-d", at(101_000)}}
	for _, tc := range []struct {
		name string
		ev   int // ms
		want string
	}{
		{"before the first", 99_999, ""}, // the second before
		{"at the second's start", 100_000, "j2-b"},
		{"between two", 100_001, "j2-b"},
		{"at a submission", 100_002, "j3-c"},
		{"after the last of its second", 100_900, ""},
		{"late in its second", 100_999, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := at(tc.ev)
			if got := beforeJob(subs, e, since, int64(e.Sub(since)/time.Second)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
