package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

func fixtureUsage() api.Usage {
	return api.Usage{Since: t0.Add(-7 * 24 * time.Hour), Until: t0, By: "project", TotalGPUHours: 12.5,
		Rows: []api.UsageRow{{Project: "vision", GPUHours: 10, Jobs: 3, Attempts: 4}, {Project: "nlp", GPUHours: 2.5, Jobs: 1, Attempts: 1}},
		Shares: []api.Share{{Account: "ml", RawShares: 1, NormShares: 1, EffectiveUsage: 0.3},
			{Account: "ml/ann", RawShares: 1, NormShares: 1, EffectiveUsage: 0.3, FairShare: new(0.7)}}}
}

func fixtureHistory() []api.HistoryRecord {
	start, end, zero := t0.Add(-90*time.Minute), t0.Add(-30*time.Minute), 0
	return []api.HistoryRecord{
		{ID: 4, Name: "done", User: "ann", Project: "vision", Pool: "research", State: "completed", Tasks: 1, Slots: 2,
			SubmittedAt: t0.Add(-2 * time.Hour), StartedAt: &start, EndedAt: &end, WaitS: 1800, ElapsedS: 3600,
			Attempts: 1, GPUHours: 2, ExitCode: &zero, Reason: "completed"},
		{ID: 7, Name: "live", Project: "nlp", Pool: "batch", State: "running", Tasks: 1, Slots: 1,
			SubmittedAt: t0.Add(-time.Minute), StartedAt: ptr(t0.Add(-time.Minute)), ElapsedS: 60, Attempts: 1, GPUHours: 1.0 / 60},
	}
}

func fixtureFairness() api.Fairness {
	return api.Fairness{Since: t0.Add(-7 * 24 * time.Hour), Until: t0, CapacityGPUHours: 2688, Projects: []api.FairnessRow{
		{Project: "ml", Entitled: 1, Got: 0.5, GPUHours: 1344, Jobs: 10, Waited: 4, MeanWaitS: 5400, MaxWaitS: 7800},
		{Project: "vision", Parent: "ml", Entitled: 0.6, Got: 0.1, GPUHours: 268.8, Jobs: 4, Waited: 4, MeanWaitS: 5400, MaxWaitS: 7800,
			Deprived: true, Note: "got 10.0% of the cluster against an entitlement of 60.0% while 4 jobs waited (mean 1h 30m, longest 2h 10m)"},
	}}
}

func TestAccounting(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "usage", args: []string{"usage"}, out: `POOL   PROJECT  USER  GPU-HOURS  JOBS  ATTEMPTS
-      vision   -     10.00      3     4
-      nlp      -     2.50       1     1
TOTAL                 12.50            

ACCOUNT  RAW SHARES  NORM SHARES  EFFECTIVE USAGE  FAIR SHARE
ml       1           1.0000       0.3000           -
ml/ann   1           1.0000       0.3000           0.7000
`},
		{name: "usage wide adds each row's share", args: []string{"usage", "-o", "wide"}, out: `POOL   PROJECT  USER  GPU-HOURS  JOBS  ATTEMPTS  SHARE
-      vision   -     10.00      3     4         80.0%
-      nlp      -     2.50       1     1         20.0%
TOTAL                 12.50                      100.0%

ACCOUNT  RAW SHARES  NORM SHARES  EFFECTIVE USAGE  FAIR SHARE
ml       1           1.0000       0.3000           -
ml/ann   1           1.0000       0.3000           0.7000
`},
		// Raw values for programs, as sreport -P: empty cells, not "-";
		// hours unrounded; SHARE a fraction, not "80.0%"; the window on
		// each row and no TOTAL row, which a sum would count twice, as
		// the dashboard's Download CSV (trial 2026-11-29j J12).
		{name: "usage csv has every column", args: []string{"usage", "--since", "30d", "-o", "csv"}, out: `POOL,PROJECT,USER,GPU-HOURS,JOBS,ATTEMPTS,SHARE,SINCE,UNTIL
,vision,,10,3,4,0.8,2024-04-24T10:00:00Z,2024-05-01T10:00:00Z
,nlp,,2.5,1,1,0.2,2024-04-24T10:00:00Z,2024-05-01T10:00:00Z
`},
		{name: "history", args: []string{"history", "--since", "7d", "--user", "ann"}, out: `ID  NAME  USER  PROJECT  POOL      STATE      SUBMITTED            WAIT  ELAPSED  GPU-HOURS  EXIT
4   done  ann   vision   research  completed  ` + formatTime(ptr(t0.Add(-2*time.Hour))) + `  30m   1h       2.00       0
7   live  -     nlp      batch     running    ` + formatTime(ptr(t0.Add(-time.Minute))) + `  0s    1m       0.02       -
`},
		// For programs (trial 2026-11-29i I2), as usage's: RFC 3339 UTC,
		// seconds in _S columns, hours unrounded, empty cells for none.
		{name: "history csv has every column", args: []string{"history", "-o", "csv"},
			out: "ID,NAME,USER,PROJECT,POOL,STATE,SUBMITTED,WAIT_S,ELAPSED_S,GPU-HOURS,EXIT,TASKS,SLOTS,ATTEMPTS,ENDED,REASON\n" +
				"4,done,ann,vision,research,completed,2024-05-01T08:00:00Z,1800,3600,2,0,1,2,1,2024-05-01T09:30:00Z,completed\n" +
				"7,live,,nlp,batch,running,2024-05-01T09:59:00Z,0,60,0.016666666666666666,,1,1,1,,\n"},
		{name: "fairness csv", args: []string{"fairness", "-o", "csv"},
			out: "PROJECT,PARENT,ENTITLED,GOT,GPU-HOURS,JOBS,WAITED,MEAN_WAIT_S,MAX_WAIT_S,FLAG,NOTE\n" +
				"ml,,1,0.5,1344,10,4,5400,7800,,\n" +
				"vision,ml,0.6,0.1,268.8,4,4,5400,7800,DEPRIVED,\"got 10.0% of the cluster against an entitlement of 60.0% while 4 jobs waited (mean 1h 30m, longest 2h 10m)\"\n"},
		{name: "fairness", args: []string{"fairness"}, out: `PROJECT  PARENT  ENTITLED  GOT    GPU-HOURS  JOBS  WAITED  MEAN WAIT  MAX WAIT  FLAG
ml       -       100.0%    50.0%  1344.00    10    4       1.5h       2.2h      -
vision   ml      60.0%     10.0%  268.80     4     4       1.5h       2.2h      DEPRIVED
`},
		{name: "bad state", args: []string{"history", "--state", "done"}, err: `--state: expected one of queued, held, running, completed, failed, killed (or Slurm's pending, PD, R, CD, F, CA), got "done"`},
		{name: "bad output", args: []string{"usage", "-o", "xml"}, err: `--output: expected one of table, wide, json, yaml, csv, got "xml"`},
	})
}

// TestSimFromHistory: allot sim and allot sim compare replay the scenario
// the master exports of its own history; --save keeps it.
func TestSimFromHistory(t *testing.T) {
	f := newFakeMaster(t)
	saved := filepath.Join(t.TempDir(), "history.yaml")
	out, errOut, err := runAt(t, f, "sim", "--from-history", "--since", "7d", "--save", saved, "-q")
	if err != nil || !strings.Contains(out, "j2-small") || !strings.Contains(out, "1h") {
		t.Fatalf("sim --from-history: %v\n%s", err, out)
	}
	// The export's notes reach the user without --save too.
	if want := "allot sim: note: job 3 (j3-live) was still running when exported\n"; !strings.Contains(errOut, want) {
		t.Errorf("stderr %q, want the export's note %q", errOut, want)
	}
	if data, err := os.ReadFile(saved); err != nil || !strings.Contains(string(data), "j1-big") {
		t.Fatalf("--save: %v %q", err, data)
	}
	if got := f.requests[len(f.requests)-1]; got != "GET /api/v1/history/scenario?since=7d" {
		t.Errorf("request %s, want the export since 7d", got)
	}
	out, _, err = runAt(t, f, "sim", "compare", "--from-history", "-q")
	if err != nil || !strings.Contains(out, "current") || !strings.Contains(out, "conservative") {
		t.Fatalf("sim compare --from-history: %v\n%s", err, out)
	}
	for _, bad := range [][]string{
		{"sim", "--from-history", "x.yaml"},
		{"sim", "x.yaml", "--save", "y.yaml"},
		{"sim", "compare"},
	} {
		if _, _, err := runAt(t, f, bad...); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// TestHistoryHelpSaysWholeRuns: over a window, allot history's GPU-hours
// are each job's whole run's (historyOf), allot usage's the window's part;
// the help says so, since the two disagree for any window a job spans.
func TestHistoryHelpSaysWholeRuns(t *testing.T) {
	long := strings.Join(strings.Fields(newHistoryCmd().Long), " ")
	for _, want := range []string{"its whole run's", "allot usage counts only the window's part"} {
		if !strings.Contains(long, want) {
			t.Errorf("allot history --help does not say %q:\n%s", want, long)
		}
	}
}

// TestAccountingFilters: usage and history take sacct's -u and -A (and
// the long --user and --project), sent to the master, which narrows what
// the caller may read.
func TestAccountingFilters(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"usage short", []string{"usage", "-u", "ana", "-A", "vision"}, "GET /api/v1/usage?by=project&project=vision&user=ana"},
		{"usage long", []string{"usage", "--user", "bo", "--by", "user"}, "GET /api/v1/usage?by=user&user=bo"},
		{"usage project only", []string{"usage", "--project", "nlp"}, "GET /api/v1/usage?by=project&project=nlp"},
		{"history short", []string{"history", "-u", "ana", "-A", "vision"}, "project=vision"},
		{"history user", []string{"history", "-u", "ana"}, "user=ana"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeMaster(t)
			if _, _, err := runAt(t, f, tc.args...); err != nil {
				t.Fatalf("%v: %v", tc.args, err)
			}
			found := false
			for _, r := range f.requests {
				if strings.HasPrefix(r, "GET /api/v1/usage") || strings.HasPrefix(r, "GET /api/v1/history") {
					found = found || r == tc.want || (!strings.HasPrefix(tc.want, "GET") && strings.Contains(r, tc.want))
				}
			}
			if !found {
				t.Errorf("requests %q, want one %q", f.requests, tc.want)
			}
		})
	}
}

// TestHistoryStateSlurmCodes: allot history --state takes the Slurm words
// allot jobs --state takes (sacct -s CD), in any case, and asks the master
// for the state they name; a job still ending (CG, killing) is refused
// with where to see it, as history lists those killed or running.
func TestHistoryStateSlurmCodes(t *testing.T) {
	cases := []struct {
		name, state string
		want        string // the request's state filter; "" with err
		err         string
	}{
		{name: "CD", state: "CD", want: "state=completed"},
		{name: "-s F, as sacct -s", state: "-s F", want: "state=failed"},
		{name: "lower-case f", state: "f", want: "state=failed"},
		{name: "CANCELLED", state: "CANCELLED", want: "state=killed"},
		{name: "pending", state: "pending", want: "state=queued"},
		{name: "a job state", state: "Running", want: "state=running"},
		{name: "held, stored queued", state: "held", want: "state=queued"},
		{name: "CG", state: "CG", err: "allot jobs --state killing lists those now"},
		{name: "unknown", state: "TO", err: `(or Slurm's pending, PD, R, CD, F, CA), got "TO"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeMaster(t)
			args := []string{"history", "--state", c.state}
			if flag, v, ok := strings.Cut(c.state, " "); ok {
				args = []string{"history", flag, v}
			}
			_, _, err := runAt(t, f, args...)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("history --state %s: %v, want an error with %q", c.state, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("history --state %s: %v", c.state, err)
			}
			last := f.requests[len(f.requests)-1]
			if !strings.Contains(last, c.want) {
				t.Fatalf("request %s, want %s", last, c.want)
			}
		})
	}
}
