package cli

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/decisionlog"
)

// liveLog is the fake master's decision log of its export (two jobs on a
// node of 2 slots: j2-small waits for j1-big), read 4000 s into the
// window, before j2-small ended.
func liveLog(lines ...string) api.DecisionLog {
	return api.DecisionLog{Since: t0, Until: t0.Add(time.Hour), At: t0.Add(4000 * time.Second), Lines: lines}
}

var fakeLiveLines = []string{
	"0 start j1-big task=0 attempt=1 nodes=n1:2",
	"3600 end j1-big task=0 attempt=1 how=completed",
	"3600 start j2-small task=0 attempt=1 nodes=n1:1",
}

// timingLines are fakeLiveLines where the live master started j2-small
// on n2 before it heard of j1-big's end, and moved it to n1 in the same
// second.
var timingLines = []string{
	fakeLiveLines[0],
	"3600 end j1-big task=0 attempt=1 how=completed",
	"3600 start j2-small task=0 attempt=1 nodes=n2:1",
	"3600 move j2-small task=0 attempt=1 nodes=n1:1",
}

// TestHistoryCheck: allot history check replays the export of the window
// the live log was read for and compares what happened before it was
// read; a difference exits 1 with the differing lines.
func TestHistoryCheck(t *testing.T) {
	cases := []struct {
		name    string
		lines   []string
		args    []string
		wantErr string
		want    []string
	}{
		{"same", fakeLiveLines, nil, "", []string{"makes the live master's 3 decisions, line for line"}},
		{"differs", []string{fakeLiveLines[0], fakeLiveLines[1], "3600 start j2-small task=0 attempt=1 nodes=n2:1"}, nil,
			"differs from the live master in 2 lines",
			[]string{"- 3600 start j2-small task=0 attempt=1 nodes=n2:1", "+ 3600 start j2-small task=0 attempt=1 nodes=n1:1"}},
		{"json", fakeLiveLines, []string{"-o", "json"}, "", []string{`"same": true`, `"live": 3`, `"replayed": 3`}},
		// Trial n F7: live, j2-small was placed before j1-big's end was
		// heard and moved within the second: timing, exit 0.
		{"timing only", timingLines, nil, "", []string{
			"differ from the live master's only in timing, within 1 second",
			"- 3600 start j2-small task=0 attempt=1 nodes=n2:1   (timing)",
			"- 3600 move j2-small task=0 attempt=1 nodes=n1:1   (timing)",
			"+ 3600 start j2-small task=0 attempt=1 nodes=n1:1   (timing)",
			"  3600 end j1-big task=0 attempt=1 how=completed\n",
			"takes a second's ends before its starts. Report latency"}},
		{"timing only, json", timingLines, []string{"-o", "json"}, "", []string{`"same": false`, `"timing_only": true`, `"timing": [
    3600
  ]`}},
		{"timing and a real difference", append(slices.Clone(timingLines), "3700 end j2-small task=0 attempt=1 how=completed"), nil,
			"differs from the live master in 1 line (5 live decisions, 3 replayed; 3 more lines differ only in timing)",
			[]string{"- 3600 move j2-small task=0 attempt=1 nodes=n1:1   (timing)", "- 3700 end j2-small task=0 attempt=1 how=completed\n"}},
		{"timing and a real difference, json", append(slices.Clone(timingLines), "3700 end j2-small task=0 attempt=1 how=completed"),
			[]string{"-o", "json"}, "differs from the live master in 1 line", []string{`"timing_only": false`}},
		// --until ended the window before the log was read: the
		// decisions from then on are left out of both sides.
		{"until", fakeLiveLines, []string{"--until", "30m"}, "",
			[]string{"makes the live master's 1 decision, line for line",
				"as of 2024-05-01 11:00:00: the replay has none of the jobs submitted later"}},
		{"until json", fakeLiveLines, []string{"--until", "30m", "-o", "json"}, "",
			[]string{`"before": "2024-05-01T11:00:00Z"`, `"live": 1`, `"replayed": 1`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeMaster(t)
			f.decisions = liveLog(c.lines...)
			out, _, err := runAt(t, f, append([]string{"history", "check", "--since", "1h"}, c.args...)...)
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("err %v, want %q\n%s", err, c.wantErr, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			// The export is of the window the master resolved for the log.
			want := "GET /api/v1/history/scenario?since=2024-05-01T10%3A00%3A00Z&until=2024-05-01T11%3A00%3A00Z"
			if got := f.requests[len(f.requests)-1]; got != want {
				t.Errorf("request %s, want %s", got, want)
			}
		})
	}
}

func TestHistoryCheckUsage(t *testing.T) {
	f := newFakeMaster(t)
	for _, bad := range [][]string{
		{"history", "check", "--context", "-1"},
		{"history", "check", "--since", "yesterday"},
		{"history", "check", "-o", "xml"},
		{"history", "check", "extra"},
	} {
		t.Run(strings.Join(bad[2:], " "), func(t *testing.T) {
			var ue *usageError
			if _, _, err := runAt(t, f, bad...); !errors.As(err, &ue) {
				t.Errorf("%v: %v, want a usage error", bad, err)
			}
		})
	}
}

// TestCompareDecisionsCut: what came after the log was read is left out
// of both sides, the replay's guesses of how live jobs go on included.
func TestCompareDecisionsCut(t *testing.T) {
	replayed := []decisionlog.Decision{
		{At: 0, Kind: decisionlog.Start, Job: "a", Attempt: 1, Nodes: []decisionlog.Node{{Name: "n1", Slots: 1}}},
		{At: 50, Kind: decisionlog.End, Job: "a", Attempt: 1, How: decisionlog.Completed},
	}
	for _, c := range []struct {
		name     string
		at       time.Duration
		lines    []string
		same     bool
		replayed int
	}{
		{"end after the cut", 50 * time.Second, []string{"0 start a task=0 attempt=1 nodes=n1:1"}, true, 1},
		{"end before the cut", 51 * time.Second, []string{"0 start a task=0 attempt=1 nodes=n1:1"}, false, 2},
		{"both", time.Minute, []string{"0 start a task=0 attempt=1 nodes=n1:1", "50 end a task=0 attempt=1 how=completed"}, true, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := api.DecisionLog{Since: t0, Until: t0.Add(time.Hour), At: t0.Add(c.at), Lines: c.lines}
			got := compareDecisions(log, log.At, replayed, 1)
			if got.Same != c.same || got.Replayed != c.replayed || got.Live != len(c.lines) {
				b, _ := json.Marshal(got)
				t.Errorf("got %s, want same %v, %d replayed", b, c.same, c.replayed)
			}
			if !slices.Equal(got.compared, c.lines) {
				t.Errorf("compared %q, want the live lines %q", got.compared, c.lines)
			}
		})
	}
}

// TestCompareUntil: the comparison ends when the log was read, or at the
// window's end where --until set one before then.
func TestCompareUntil(t *testing.T) {
	log := api.DecisionLog{Since: t0, Until: t0.Add(time.Hour), At: t0.Add(2 * time.Hour)}
	for _, c := range []struct {
		name  string
		until string
		at    time.Time
		want  time.Time
	}{
		{"no --until", "", log.At, log.At},
		{"--until before the reading", "1h", log.At, log.Until},
		{"--until after the reading", "1h", t0.Add(time.Minute), t0.Add(time.Minute)},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := log
			l.At = c.at
			if got := compareUntil(l, client.Window{Until: c.until}); !got.Equal(c.want) {
				t.Errorf("compareUntil = %v, want %v", got, c.want)
			}
		})
	}
}

// TestHistoryCheckPrint: a window where neither side decided anything
// says there was nothing to compare instead of claiming a match.
func TestHistoryCheckPrint(t *testing.T) {
	same := historyCheck{Same: true, Live: 2, Replayed: 2, compared: []string{"10 start 1/0 n1:0-1", "70 end 1/0 completed"}}
	for _, c := range []struct {
		name    string
		res     historyCheck
		wide    bool
		want    string
		notWant string
	}{
		{name: "nothing", res: historyCheck{Same: true}, want: "Nothing to compare: neither the live master nor the simulator made a decision"},
		{name: "same", res: same, want: "makes the live master's 2 decisions, line for line", notWant: "start 1/0"},
		{name: "same, wide: the decisions compared", res: same, wide: true,
			want: "line for line (jobs submitted from - to -, as of -).\n\nThe decisions (seconds from the window's start):\n  10 start 1/0 n1:0-1\n  70 end 1/0 completed\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			if err := c.res.print(&b, c.wide); err != nil || !strings.Contains(b.String(), c.want) {
				t.Errorf("print: %v, %q; want %q", err, b.String(), c.want)
			}
			if c.notWant != "" && strings.Contains(b.String(), c.notWant) {
				t.Errorf("print %q has %q", b.String(), c.notWant)
			}
		})
	}
}

// TestPrintNotesWarnsFirst: the export's warnings (jobs it left out)
// come on stderr before its notes, as "warning:", whatever their order
// in the file, and are returned; a comment after the head is not read.
func TestPrintNotesWarnsFirst(t *testing.T) {
	data := "# The jobs ...\n# Note: job 3 (j3-live) was still running when exported\n" +
		"# Warning: job 4 (j4-gang) left out: a task of 6 slots is larger than pool teams was at any time in the window (4 slots)\n" +
		"pools: []\n# Warning: not the head\n"
	var w strings.Builder
	got := printNotes(&w, "allot history check", []byte(data))
	want := "allot history check: warning: job 4 (j4-gang) left out: a task of 6 slots is larger than pool teams was at any time in the window (4 slots)\n" +
		"allot history check: note: job 3 (j3-live) was still running when exported\n"
	if w.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", w.String(), want)
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "job 4 (j4-gang) left out") {
		t.Errorf("warnings %q, want job 4's", got)
	}
}

// TestHistoryCheckFailureNamesLeftOut: where the export left jobs out,
// the failure says so, as the first cause of a difference to look at.
func TestHistoryCheckFailureNamesLeftOut(t *testing.T) {
	for _, c := range []struct {
		name    string
		leftOut []string
		want    string
	}{
		{"none", nil, "the replay differs from the live master in 1 line (3 live decisions, 2 replayed)"},
		{"one", []string{"job 4 (j4-gang) left out: ..."},
			"the replay differs from the live master in 1 line (3 live decisions, 2 replayed); the export left out 1 job, which the replay cannot make the decisions of (the warnings above)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := historyCheck{Live: 3, Replayed: 2, Diff: []string{"- 0 start j4-gang task=0 attempt=1 nodes=n1:4,n2:2"}, LeftOut: c.leftOut}
			if got := r.failure().Error(); got != c.want {
				t.Errorf("failure %q\nwant %q", got, c.want)
			}
		})
	}
}
