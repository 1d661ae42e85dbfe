package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestFairnessShortenedWindow: when the master measured the window from
// the cluster's start, the table is followed by a line that says so; csv
// and json stay as they are.
func TestFairnessShortenedWindow(t *testing.T) {
	fixClock(t)
	born := t0.Add(-30 * time.Minute)
	const table = `PROJECT  PARENT  ENTITLED  GOT    GPU-HOURS  JOBS  WAITED  MEAN WAIT  MAX WAIT  FLAG
ml       -       100.0%    50.0%  1344.00    10    4       1.5h       2.2h      -
vision   ml      60.0%     10.0%  268.80     4     4       1.5h       2.2h      DEPRIVED
`
	const note = "\nThe cluster began at 2024-05-01 09:30:00, after the window's start (2024-04-24 10:00:00): the window is measured from then.\n"
	tests := []struct {
		name     string
		measured *time.Time
		args     []string
		want     string // stdout, exactly; "" to check wantIn only
		wantIn   string
		wantNot  string
	}{
		{name: "shortened", measured: &born, args: []string{"fairness"}, want: table + note},
		{name: "whole window", args: []string{"fairness"}, want: table},
		{name: "csv has no note", measured: &born, args: []string{"fairness", "-o", "csv"}, wantIn: "PROJECT,PARENT", wantNot: "cluster began"},
		{name: "json has the field", measured: &born, args: []string{"fairness", "-o", "json"}, wantIn: `"measured_since": "2024-05-01T09:30:00Z"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fixtureFairness()
			f.MeasuredSince = tt.measured
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { reply(w, 200, f) }))
			defer srv.Close()
			out, _, err := run(t, append([]string{"--master", srv.URL}, tt.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != "" && out != tt.want {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, tt.want)
			}
			if !strings.Contains(out, tt.wantIn) || (tt.wantNot != "" && strings.Contains(out, tt.wantNot)) {
				t.Errorf("stdout:\n%s\nwant it to contain %q and not %q", out, tt.wantIn, tt.wantNot)
			}
		})
	}
}

// TestFairnessHelpStatesTheRules: the help says what the master's audit
// does: a project without quota has one share (config.md), and a project
// whose jobs waited less than 10 minutes is not flagged (minDeprivingWait).
func TestFairnessHelpStatesTheRules(t *testing.T) {
	long := newFairnessCmd().Long
	for _, want := range []string{"or 1 for a project without quota", "none of\n10 minutes"} {
		t.Run(want, func(t *testing.T) {
			if !strings.Contains(long, want) {
				t.Errorf("allot fairness --help does not say %q:\n%s", want, long)
			}
		})
	}
}

// TestFairnessNoNodeFlag: a project whose jobs wait in a pool with no
// node up is flagged NO NODE, not DEPRIVED, and -o wide's note names the
// pool; one deprived as well stays DEPRIVED.
func TestFairnessNoNodeFlag(t *testing.T) {
	note := "1 job waits in pool batch, which has no node up: no share of the cluster could serve it, so its wait is not counted as deprivation"
	for _, tt := range []struct {
		name     string
		row      api.FairnessRow
		flag     string
		wideNote string
	}{
		{"waits in a pool with no node", api.FairnessRow{Project: "sandbox", Entitled: 0.1, Jobs: 1, Waited: 1, MaxWaitS: 1080,
			NoNode: 1, NoNodePools: []string{"batch"}, Note: note}, "NO NODE", note},
		{"deprived too", api.FairnessRow{Project: "sandbox", Entitled: 0.1, Jobs: 2, Waited: 2, MaxWaitS: 1080,
			NoNode: 1, NoNodePools: []string{"batch"}, Deprived: true, Note: "got 0.0%; " + note}, "DEPRIVED", "got 0.0%; " + note},
		{"fair", api.FairnessRow{Project: "sandbox", Entitled: 0.1}, "-", "-"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := api.Fairness{Projects: []api.FairnessRow{tt.row}}
			_, rows := fairnessRows(f, rowsFormat{})
			if got := rows[0][len(rows[0])-1]; got != tt.flag {
				t.Errorf("FLAG %q, want %q", got, tt.flag)
			}
			_, rows = fairnessRows(f, rowsFormat{wide: true})
			if got := rows[0][len(rows[0])-1]; got != tt.wideNote {
				t.Errorf("NOTE %q, want %q", got, tt.wideNote)
			}
		})
	}
}
