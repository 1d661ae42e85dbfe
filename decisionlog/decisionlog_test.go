package decisionlog

import "testing"

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		name string
		ds   []Decision
		want string
	}{
		{"empty", nil, ""},
		{"one start, nodes sorted", []Decision{{At: 5, Kind: Start, Job: "j1-a", Task: 0, Attempt: 1,
			Nodes: []Node{{"n2", 1}, {"n1", 3}}}}, "5 start j1-a task=0 attempt=1 nodes=n1:3,n2:1\n"},
		{"an attempt's life in order at one time", []Decision{
			{At: 7, Kind: End, Job: "j", Task: 0, Attempt: 1, How: Preempted},
			{At: 7, Kind: Preempt, Job: "j", Task: 0, Attempt: 1, Nodes: []Node{{"n1", 1}}},
			{At: 7, Kind: Start, Job: "j", Task: 0, Attempt: 1, Nodes: []Node{{"n1", 1}}},
		}, "7 start j task=0 attempt=1 nodes=n1:1\n7 preempt j task=0 attempt=1 nodes=n1:1\n7 end j task=0 attempt=1 how=preempted\n"},
		{"time, then a kill and its ends before the starts they make room for", []Decision{
			{At: 9, Kind: End, Job: "j2", Task: 0, Attempt: 1, How: Killed},
			{At: 9, Kind: Kill, Job: "j2", Task: 3},
			{At: 9, Kind: Start, Job: "j10", Task: 1, Attempt: 2, Nodes: []Node{{"n1", 2}}},
			{At: 2, Kind: Move, Job: "j2", Task: 0, Attempt: 1, Nodes: []Node{{"n3", 1}}},
		}, "2 move j2 task=0 attempt=1 nodes=n3:1\n9 kill j2\n9 end j2 task=0 attempt=1 how=killed\n9 start j10 task=1 attempt=2 nodes=n1:2\n"},
		{"an end before the starts on its slots, whatever the jobs' names", []Decision{
			{At: 178, Kind: Start, Job: "j10-a", Task: 0, Attempt: 1, Nodes: []Node{{"dev-3", 2}}},
			{At: 178, Kind: Start, Job: "j2-b", Task: 0, Attempt: 1, Nodes: []Node{{"dev-1", 1}}},
			{At: 178, Kind: End, Job: "j5-c", Task: 0, Attempt: 1, How: Completed},
		}, "178 end j5-c task=0 attempt=1 how=completed\n178 start j10-a task=0 attempt=1 nodes=dev-3:2\n" +
			"178 start j2-b task=0 attempt=1 nodes=dev-1:1\n"},
		{"a preemption, its checkpoint's landing, then the start it made room for", []Decision{
			{At: 508, Kind: Start, Job: "j17", Task: 0, Attempt: 1, Nodes: []Node{{"dev-1", 7}}},
			{At: 508, Kind: End, Job: "j2", Task: 0, Attempt: 1, How: Preempted},
			{At: 508, Kind: Preempt, Job: "j2", Task: 0, Attempt: 1, Nodes: []Node{{"dev-1", 7}}},
			{At: 508, Kind: End, Job: "j3", Task: 0, Attempt: 2, How: Completed},
		}, "508 end j3 task=0 attempt=2 how=completed\n508 preempt j2 task=0 attempt=1 nodes=dev-1:7\n" +
			"508 end j2 task=0 attempt=1 how=preempted\n508 start j17 task=0 attempt=1 nodes=dev-1:7\n"},
		{"an attempt that failed at once ends after its start", []Decision{
			{At: 4, Kind: End, Job: "j1", Task: 0, Attempt: 1, How: Failed},
			{At: 4, Kind: Start, Job: "j1", Task: 0, Attempt: 1, Nodes: []Node{{"n1", 1}}},
			{At: 4, Kind: End, Job: "j9", Task: 0, Attempt: 1, How: Completed},
			{At: 4, Kind: Start, Job: "j5", Task: 0, Attempt: 1, Nodes: []Node{{"n2", 1}}},
		}, "4 end j9 task=0 attempt=1 how=completed\n4 start j1 task=0 attempt=1 nodes=n1:1\n" +
			"4 end j1 task=0 attempt=1 how=failed\n4 start j5 task=0 attempt=1 nodes=n2:1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Format(tc.ds); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		name, a, b string
		context    int
		want       string
	}{
		{"equal", "1\n2\n", "1\n2\n", 3, ""},
		{"changed line", "1\n2\n3\n", "1\nx\n3\n", 3, "  1\n- 2\n+ x\n  3\n"},
		{"context trimmed", "1\n2\n3\n4\n5\n", "1\n2\n3\n4\n6\n", 1, "@@\n  4\n- 5\n+ 6\n"},
		{"added at the end", "1\n", "1\n2\n", 0, "@@\n+ 2\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Diff(tc.a, tc.b, tc.context); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestSortIgnoresInputOrder: every permutation of one second's lines
// sorts to the same log, since both drivers list their decisions in
// orders of their own.
func TestSortIgnoresInputOrder(t *testing.T) {
	base := []Decision{
		{At: 3, Kind: Kill, Job: "j4"},
		{At: 3, Kind: End, Job: "j4", Task: 0, Attempt: 1, How: Killed},
		{At: 3, Kind: Preempt, Job: "j2", Task: 0, Attempt: 1, Nodes: []Node{{"n1", 1}}},
		{At: 3, Kind: End, Job: "j2", Task: 0, Attempt: 1, How: Preempted},
		{At: 3, Kind: Start, Job: "j7", Task: 0, Attempt: 1, Nodes: []Node{{"n1", 1}}},
		{At: 3, Kind: End, Job: "j7", Task: 0, Attempt: 1, How: Failed},
	}
	want := Format(base)
	perm := make([]Decision, len(base))
	var walk func(k int, used []bool)
	walk = func(k int, used []bool) {
		if k == len(base) {
			if got := Format(perm); got != want {
				t.Fatalf("order %v gives\n%s\nwant\n%s", perm, got, want)
			}
			return
		}
		for i := range base {
			if !used[i] {
				used[i], perm[k] = true, base[i]
				walk(k+1, used)
				used[i] = false
			}
		}
	}
	walk(0, make([]bool, len(base)))
}
