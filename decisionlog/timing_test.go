package decisionlog

import (
	"slices"
	"strings"
	"testing"
)

// parseLog reads a log written one line each, as tests give it.
func parseLog(t *testing.T, log string) []Decision {
	t.Helper()
	var ds []Decision
	for _, l := range splitLines(strings.TrimSpace(log)) {
		d, err := Parse(strings.TrimSpace(l))
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	return ds
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, line, err string
	}{
		{"a start on two nodes", "384 start j9-b9 task=0 attempt=1 nodes=n1:2,n2:1", ""},
		{"a resize", "12 resize j2 task=3 attempt=2 nodes=n1:4", ""},
		{"an end", "7 end j1-a task=0 attempt=1 how=failed", ""},
		{"a kill", "9 kill j2", ""},
		{"a preemption", "0 preempt j3 task=0 attempt=1 nodes=dev-1:7", ""},
		{"no job", "9 kill", "expected TIME KIND JOB"},
		{"a bad time", "x start j1 task=0 attempt=1", `time "x" is not a number`},
		{"an unknown kind", "3 begin j1 task=0 attempt=1", `unknown kind "begin"`},
		{"bad nodes", "3 start j1 task=0 attempt=1 nodes=n1", `expected NODE:SLOTS, got "n1"`},
		{"an unknown field", "3 start j1 task=0 attempt=1 gpus=2", `unknown field "gpus"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(tc.line)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one saying %q", err, tc.err)
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case tc.err == "" && d.Line() != tc.line:
				t.Fatalf("read back as %q", d.Line())
			}
		})
	}
}

func TestSettle(t *testing.T) {
	for _, tc := range []struct {
		name, log, want string
	}{
		{"a start grown in its second is a start at its size", `
			384 start j9 task=0 attempt=1 nodes=n2:2
			384 resize j9 task=0 attempt=1 nodes=n2:3
			384 end j9 task=0 attempt=1 how=failed`,
			"384 start j9 task=0 attempt=1 nodes=n2:3\n384 end j9 task=0 attempt=1 how=failed\n"},
		{"a move too in that second is kept: which came last is not known", `
			9 start j1 task=0 attempt=1 nodes=n1:2
			9 resize j1 task=0 attempt=1 nodes=n1:4
			9 move j1 task=0 attempt=1 nodes=n2:4`,
			"9 start j1 task=0 attempt=1 nodes=n1:2\n9 move j1 task=0 attempt=1 nodes=n2:4\n9 resize j1 task=0 attempt=1 nodes=n1:4\n"},
		{"a resize in a later second is kept", `
			5 start j1 task=0 attempt=1 nodes=n1:2
			9 resize j1 task=0 attempt=1 nodes=n1:1`,
			"5 start j1 task=0 attempt=1 nodes=n1:2\n9 resize j1 task=0 attempt=1 nodes=n1:1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Format(Settle(parseLog(t, tc.log))); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestTiming(t *testing.T) {
	// Trial n F7: three jobs fail at once; live, b9 started shrunk
	// before b7's end was heard and grew in the same second.
	const ends = `
		384 start j7 task=0 attempt=1 nodes=n2:1
		384 end j7 task=0 attempt=1 how=failed
		384 start j8 task=0 attempt=1 nodes=n2:1
		384 end j8 task=0 attempt=1 how=failed`
	for _, tc := range []struct {
		name, live, replayed string
		timing, other        []int64
	}{
		{"the same", ends, ends, nil, nil},
		{"started shrunk and grown in the second of another's end", ends + `
			384 start j9 task=0 attempt=1 nodes=n2:2
			384 resize j9 task=0 attempt=1 nodes=n2:3`, ends + `
			384 start j9 task=0 attempt=1 nodes=n2:3`, []int64{384}, nil},
		{"grown in the second with no other end", `
			384 start j9 task=0 attempt=1 nodes=n2:2
			384 resize j9 task=0 attempt=1 nodes=n2:3
			384 end j9 task=0 attempt=1 how=failed`, `
			384 start j9 task=0 attempt=1 nodes=n2:3
			384 end j9 task=0 attempt=1 how=failed`, nil, []int64{384}},
		{"grown to other nodes than the replay's", ends + `
			384 start j9 task=0 attempt=1 nodes=n2:2
			384 resize j9 task=0 attempt=1 nodes=n1:1,n2:2`, ends + `
			384 start j9 task=0 attempt=1 nodes=n2:3`, nil, []int64{384}},
		{"placed on other nodes", ends + `
			384 start j9 task=0 attempt=1 nodes=n1:1`, ends + `
			384 start j9 task=0 attempt=1 nodes=n2:1`, nil, []int64{384}},
		{"started a second later", ends + `
			385 start j9 task=0 attempt=1 nodes=n2:1`, ends + `
			384 start j9 task=0 attempt=1 nodes=n2:1`, nil, []int64{384, 385}},
		{"a timing second and another", ends + `
			384 start j9 task=0 attempt=1 nodes=n2:2
			384 resize j9 task=0 attempt=1 nodes=n2:3
			390 end j9 task=0 attempt=1 how=completed`, ends + `
			384 start j9 task=0 attempt=1 nodes=n2:3
			391 end j9 task=0 attempt=1 how=completed`, []int64{384}, []int64{390, 391}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			timing, other := Timing(parseLog(t, tc.live), parseLog(t, tc.replayed))
			if !slices.Equal(timing, tc.timing) || !slices.Equal(other, tc.other) {
				t.Fatalf("timing %v, other %v; want %v, %v", timing, other, tc.timing, tc.other)
			}
		})
	}
}
