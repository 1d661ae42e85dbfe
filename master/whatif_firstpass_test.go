package master

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// TestFirstPassScan: a job gets first_pass where the first decision
// after its submission came in the next second and nothing but other
// submissions came after it in its own second, nor a node event.
func TestFirstPassScan(t *testing.T) {
	since := time.Date(2026, 11, 29, 19, 54, 0, 0, time.UTC)
	at := func(s float64) time.Time { return since.Add(time.Duration(s * float64(time.Second))) }
	// An event: a submission (job > 0, "sub"), a decision ("dec") or
	// anything else ("end"), at s seconds.
	type ev struct {
		kind string
		job  int64
		s    float64
	}
	for _, tc := range []struct {
		name  string
		evs   []ev
		nodes []float64 // node events' times
		want  map[int64]int64
	}{
		{"started by a pass in the next second (I24)", []ev{{"sub", 10, 46.993}, {"dec", 10, 47.001}}, nil, map[int64]int64{10: 47}},
		{"a pass in its second", []ev{{"sub", 10, 46.2}, {"dec", 10, 46.3}}, nil, map[int64]int64{}},
		{"the first decision two seconds on", []ev{{"sub", 10, 46.9}, {"dec", 11, 48.1}}, nil, map[int64]int64{}},
		{"an end after it in its second", []ev{{"sub", 10, 46.9}, {"end", 3, 46.95}, {"dec", 10, 47.001}}, nil, map[int64]int64{}},
		{"an end in the next second before the pass", []ev{{"sub", 10, 46.9}, {"end", 3, 47.0}, {"dec", 10, 47.001}}, nil, map[int64]int64{10: 47}},
		{"two submissions, one pass", []ev{{"sub", 10, 46.99}, {"sub", 11, 46.995}, {"dec", 11, 47.002}}, nil, map[int64]int64{10: 47, 11: 47}},
		{"a submission in the next second comes at its own", []ev{{"sub", 10, 46.99}, {"sub", 11, 47.0}, {"dec", 11, 47.002}}, nil, map[int64]int64{10: 47}},
		{"a node event after it in its second", []ev{{"sub", 10, 46.99}, {"dec", 10, 47.001}}, []float64{46.995}, map[int64]int64{}},
		{"a node event before it", []ev{{"sub", 10, 46.99}, {"dec", 10, 47.001}}, []float64{46.5, 47.0}, map[int64]int64{10: 47}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fp := firstPassScan{out: map[int64]int64{}}
			for _, e := range tc.evs {
				se := store.Event{JobID: e.job, At: at(e.s)}
				fp.see(se, int64(se.At.Sub(since)/time.Second), e.kind == "dec", e.kind == "sub")
			}
			var nodeAt []time.Time
			for _, s := range tc.nodes {
				nodeAt = append(nodeAt, at(s))
			}
			got := fp.firstPasses(nodeAt, since)
			if len(got) != len(tc.want) {
				t.Fatalf("first passes %v, want %v", got, tc.want)
			}
			for id, s := range tc.want {
				if got[id] != s {
					t.Errorf("first passes %v, want %v", got, tc.want)
				}
			}
		})
	}
}
