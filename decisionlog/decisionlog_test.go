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
		{"time, then job, the job's kill first", []Decision{
			{At: 9, Kind: End, Job: "j2", Task: 0, Attempt: 1, How: Killed},
			{At: 9, Kind: Kill, Job: "j2", Task: 3},
			{At: 9, Kind: Start, Job: "j10", Task: 1, Attempt: 2, Nodes: []Node{{"n1", 2}}},
			{At: 2, Kind: Move, Job: "j2", Task: 0, Attempt: 1, Nodes: []Node{{"n3", 1}}},
		}, "2 move j2 task=0 attempt=1 nodes=n3:1\n9 start j10 task=1 attempt=2 nodes=n1:2\n9 kill j2\n9 end j2 task=0 attempt=1 how=killed\n"},
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
