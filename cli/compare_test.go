package cli

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCompare runs the default comparison (fcfs, easy, conservative) on
// the hand-checked fixture and writes every output.
func TestCompare(t *testing.T) {
	dir := t.TempDir()
	html, js, cs := filepath.Join(dir, "out.html"), filepath.Join(dir, "out.json"), filepath.Join(dir, "out.csv")
	out, errOut, err := run(t, "sim", "compare", filepath.Join(traceDir, "backfill.swf"),
		"--html", html, "--json", js, "--csv", cs)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for line := range strings.Lines(out) {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = f
		}
	}
	if got := strings.Join(rows["makespan"], " "); got != "makespan 50s 33s 50s" {
		t.Errorf("makespan row %q, want 50s 33s 50s:\n%s", got, out)
	}
	if got := strings.Join(rows["fcfs"], " "); got != "fcfs easy conservative" {
		t.Errorf("header %q", got)
	}
	for _, p := range []string{html, js, cs} {
		if !strings.Contains(errOut, "wrote "+p) {
			t.Errorf("stderr %q does not report writing %s", errOut, p)
		}
	}
	page, err := os.ReadFile(html)
	if err != nil || strings.Count(string(page), "<svg") != 6 {
		t.Errorf("HTML report: %v, %d charts", err, strings.Count(string(page), "<svg"))
	}
	var doc struct {
		Runs []struct{ Name string } `json:"runs"`
	}
	if b, err := os.ReadFile(js); err != nil || json.Unmarshal(b, &doc) != nil || len(doc.Runs) != 3 {
		t.Errorf("JSON report: %v, %+v", err, doc)
	}
	f, err := os.Open(cs)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if recs, err := csv.NewReader(f).ReadAll(); err != nil || len(recs) != 4 || recs[3][0] != "conservative" {
		t.Errorf("CSV report: %v, %v", err, recs)
	}
}

func TestCompareRuns(t *testing.T) {
	path := filepath.Join(traceDir, "backfill.swf")
	cases := []struct {
		name string
		args []string
		head string
		err  string
	}{
		{"policies and sets in order", []string{"--policy", "easy", "--set", "name=easy-spread,policy=easy,placement=spread", "--policy", "fcfs"},
			"easy fcfs easy-spread", ""},
		{"duplicate names", []string{"--policy", "easy", "--set", "name=easy,policy=conservative"}, "", `two runs are named "easy"`},
		{"bad set", []string{"--set", "policy=fifo,reservations=easy"}, "", "reservations apply only to policy backfill"},
		{"bad preset", []string{"--policy", "lottery"}, "", `--policy: expected current (the workload's own policies) or one of fcfs, fifo,`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := run(t, append([]string{"sim", "compare", path}, c.args...)...)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if head := strings.Join(strings.Fields(strings.SplitN(out, "\n", 2)[0]), " "); head != c.head {
				t.Errorf("runs %q, want %q", head, c.head)
			}
		})
	}
}

// TestSharedTraces runs allot sim and allot sim compare on every trace in
// the shared folder, over the first ten days so that the test stays quick;
// sim/ replays them in full. Lublin's header has no MaxProcs, and the
// output must say what was used instead.
func TestSharedTraces(t *testing.T) {
	entries, err := os.ReadDir(sharedTraces)
	if err != nil {
		t.Fatalf("the shared traces are missing: %v", err)
	}
	n := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".swf.gz") {
			continue
		}
		n++
		path := filepath.Join(sharedTraces, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			out := mustRun(t, "sim", "compare", path, "--until", "240h")
			if !strings.Contains(out, "makespan") || !strings.Contains(out, "note: cluster:") {
				t.Errorf("compare output:\n%s", out)
			}
			out = mustRun(t, "sim", path, "--until", "240h", "--policy", "conservative")
			if !strings.Contains(out, "utilisation") {
				t.Errorf("sim output:\n%s", out)
			}
			if strings.HasPrefix(e.Name(), "lublin") && !strings.Contains(out, "gives no MaxProcs; its MaxNodes (256)") {
				t.Errorf("the Lublin fallback to MaxNodes is not reported:\n%s", out)
			}
		})
	}
	if n < 4 {
		t.Errorf("%d shared traces, want the 4 of the README", n)
	}
}

// TestComparePolicyLabels: the configuration row says what each run
// replays: a single pool's policy with what is on, and what is off where
// another run has it on; with several pools each pool by name, so that
// one policy given to every pool does not read "fifo, fifo"; and runs
// configured alike say so, so that no two columns read the same.
func TestComparePolicyLabels(t *testing.T) {
	trace := filepath.Join(traceDir, "backfill.swf")
	cases := []struct {
		name, path string
		args       []string
		want       []string // the configuration row's cells, split at spaces
	}{
		{"one pool", trace, []string{"--policy", "fcfs", "--policy", "easy"},
			[]string{"fifo", "backfill/easy"}},
		{"two pools, one policy", "../examples/quickstart.yaml", []string{"--policy", "fifo"},
			[]string{"research: fifo, batch: fifo"}},
		{"two pools as configured", "../examples/quickstart.yaml", []string{"--policy", "current"},
			[]string{"research: priority/preemption/backfill, batch: backfill/easy"}},
		{"what one run turns on reads as off in another", "../examples/quickstart.yaml",
			[]string{"--policy", "current", "--policy", "priority"},
			[]string{"research: priority/preemption/backfill, batch: backfill/easy",
				"research: priority/no-preemption/no-backfill, batch: priority"}},
		{"presets alike", trace, []string{"--policy", "easy", "--policy", "backfill", "--policy", "conservative"},
			[]string{"backfill/easy", "backfill/easy (same as easy)", "backfill/conservative"}},
		{"placement apart", trace, []string{"--policy", "easy", "--set", "name=easy-spread,policy=easy,placement=spread"},
			[]string{"backfill/easy/binpack", "backfill/easy/spread"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := mustRun(t, append([]string{"sim", "compare", c.path, "--until", "1h"}, c.args...)...)
			// A configuration longer than a column is in the legend under
			// the table instead of its row (trial p F4).
			long := slices.ContainsFunc(c.want, func(l string) bool { return len(l) > 32 })
			var row string
			var legend []string
			inLegend := false
			for line := range strings.Lines(out) {
				switch {
				case strings.HasPrefix(line, "configuration "):
					row = line
				case line == "configurations:\n":
					inLegend = true
				case inLegend && strings.HasPrefix(line, "  "):
					_, l, _ := strings.Cut(strings.TrimSpace(line), ": ")
					legend = append(legend, l)
				default:
					inLegend = false
				}
			}
			got := strings.Join(strings.Fields(strings.TrimPrefix(row, "configuration ")), " ")
			if long {
				got = strings.Join(legend, " ")
				if row != "" {
					t.Errorf("a configuration row %q beside the legend:\n%s", row, out)
				}
			}
			if got != strings.Join(c.want, " ") {
				t.Errorf("configurations %q, want %q:\n%s", got, c.want, out)
			}
		})
	}
}

// TestCompareStarveAfter: --starve-after sets the threshold of the
// starvation rows (a day by default) and takes a duration as a file's
// are written; what is no duration over 0 is a usage error naming the
// flag, given before any replay.
func TestCompareStarveAfter(t *testing.T) {
	trace := filepath.Join(traceDir, "backfill.swf")
	row := func(out, label string) string {
		for line := range strings.Lines(out) {
			if strings.HasPrefix(line, label+" ") {
				return strings.Join(strings.Fields(strings.TrimPrefix(line, label)), " ")
			}
		}
		return ""
	}
	for _, tc := range []struct {
		name    string
		args    []string
		label   string // the starved row's
		starved string
		longest string
	}{
		{"a day by default", nil, "starved (wait over 24h)", "0 0 0", "27s (job 4) 21s (job 3) 27s (job 4)"},
		{"seconds", []string{"--starve-after", "20"}, "starved (wait over 20s)", "2 1 1", "27s (job 4) 21s (job 3) 27s (job 4)"},
		{"exactly the longest wait is not over it", []string{"--starve-after=27s"}, "starved (wait over 27s)", "0 0 0", ""},
		{"slurm's clock", []string{"--starve-after", "0:26"}, "starved (wait over 26s)", "1 0 1", ""},
		{"cut short: never started", []string{"--starve-after", "5", "--until", "12"}, "starved (wait over 5s)",
			"4 (3 never started) 2 (1 never started) 3 (2 never started)", "10s (job 3, never started) 10s (job 3, never started) 10s (job 3, never started)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := mustRun(t, append([]string{"sim", "compare", trace}, tc.args...)...)
			if got := row(out, tc.label); got != tc.starved {
				t.Errorf("row %q = %q, want %q:\n%s", tc.label, got, tc.starved, out)
			}
			if got := row(out, "longest wait"); tc.longest != "" && got != tc.longest {
				t.Errorf("longest wait = %q, want %q", got, tc.longest)
			}
			if !strings.Contains(out, "one that never started counts its wait until it was killed or the run stopped") {
				t.Errorf("the table does not define starved:\n%s", out)
			}
		})
	}
	for _, tc := range []struct {
		name, value, want string
	}{
		{"a word", "soon", `--starve-after: expected a duration (whole seconds like 90, or a string like 90s, 1h30m, 2d or 1:30:00), got "soon"`},
		{"negative", "-1h", `--starve-after: expected a duration >= 0, got "-1h"`},
		{"zero", "0s", `--starve-after: expected a duration > 0, got "0s"`},
		{"not whole seconds", "1.5s", `--starve-after: expected a whole number of seconds, got "1.5s"`},
		{"empty", "", `--starve-after: expected a duration`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			html := filepath.Join(t.TempDir(), "out.html")
			out, _, err := run(t, "sim", "compare", trace, "--html", html, "--starve-after", tc.value)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Errorf("error %v is no usage error: allot would not exit %d", err, ExitUsage)
			}
			if _, statErr := os.Stat(html); out != "" || statErr == nil {
				t.Errorf("stdout %q, %s written: the flag is checked before any replay or output", out, html)
			}
		})
	}
}

// TestCompareOutputUnwritable: an output that cannot be written fails
// before any replay (nothing on stdout), naming its flag, and leaves no
// file behind that the command created; a failed comparison leaves an
// earlier report as it was.
func TestCompareOutputUnwritable(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(traceDir, "backfill.swf")
	missing := filepath.Join(dir, "no-such-dir", "out.html")
	fresh, earlier := filepath.Join(dir, "fresh.json"), filepath.Join(dir, "earlier.csv")
	if err := os.WriteFile(earlier, []byte("old report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"html in a missing directory", []string{trace, "--json", fresh, "--html", missing}, "--html: open " + missing},
		{"csv is a directory", []string{trace, "--json", fresh, "--csv", dir}, "--csv: open " + dir},
		{"the workload fails", []string{filepath.Join(dir, "nosuch.swf"), "--json", fresh, "--csv", earlier}, "nosuch.swf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := run(t, append([]string{"sim", "compare"}, tt.args...)...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing: the check comes before the replays", out)
			}
			if _, err := os.Stat(fresh); !os.IsNotExist(err) {
				t.Errorf("%s left behind: %v", fresh, err)
			}
			if b, err := os.ReadFile(earlier); err != nil || string(b) != "old report\n" {
				t.Errorf("%s = %q, %v; want it untouched", earlier, b, err)
			}
		})
	}
}

// TestCompareJSON: a bare --json prints the comparison as JSON on stdout
// instead of the table, as allot sim --json prints its result, wherever
// it stands; --json=FILE writes FILE beside the table; and the older
// --json FILE, before or after the workload or with --from-history's
// none, still writes FILE.
func TestCompareJSON(t *testing.T) {
	trace := filepath.Join(traceDir, "backfill.swf")
	runs := func(t *testing.T, b []byte) int {
		t.Helper()
		var doc struct {
			Runs []struct{ Name string } `json:"runs"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("not the JSON comparison: %v\n%s", err, b)
		}
		return len(doc.Runs)
	}
	for _, tc := range []struct {
		name   string
		args   []string // FILE stands for the output file
		stdout bool     // JSON on stdout, else the table and FILE written
	}{
		{"bare, after the workload", []string{trace, "--json"}, true},
		{"bare, before the workload", []string{"--json", trace}, true},
		{"stdout named", []string{trace, "--json=-"}, true},
		{"a file with =", []string{trace, "--json=FILE"}, false},
		{"the older --json FILE, after the workload", []string{trace, "--json", "FILE"}, false},
		{"the older --json FILE, before the workload", []string{"--json", "FILE", trace}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "out.json")
			args := []string{"sim", "compare"}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "FILE", file))
			}
			out, errOut, err := run(t, args...)
			if err != nil {
				t.Fatal(err)
			}
			if tc.stdout {
				if n := runs(t, []byte(out)); n != 3 {
					t.Errorf("%d runs on stdout, want 3", n)
				}
				if strings.Contains(errOut, "wrote") {
					t.Errorf("stderr %q: a file written", errOut)
				}
				return
			}
			if !strings.Contains(out, "makespan") || !strings.Contains(errOut, "wrote "+file) {
				t.Errorf("stdout %q, stderr %q: want the table, and %s written", out, errOut, file)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if n := runs(t, b); n != 3 {
				t.Errorf("%d runs in %s, want 3", n, file)
			}
		})
	}
	if _, _, err := run(t, "sim", "compare", trace, "--json="); err == nil || !strings.Contains(err.Error(), "expected a file name (--json=FILE), or no value for JSON on stdout") {
		t.Errorf("--json= : %v", err)
	}
	if _, _, err := run(t, "sim", "compare", trace, "--json", "a.json", "b.json"); err == nil {
		t.Error("two arguments after --json accepted")
	}
}

// TestCompareJSONLegacyFile: the older --json FILE is read from the
// positional arguments only when one is left over, the workload's or, with
// --from-history, none.
func TestCompareJSONLegacyFile(t *testing.T) {
	for _, tc := range []struct {
		name        string
		path        string
		at          int
		args        []string
		fromHistory bool
		file        string
		rest        []string
	}{
		{"bare, workload after", jsonStdout, 0, []string{"w.swf"}, false, "", []string{"w.swf"}},
		{"older spelling, after the workload", jsonStdout, 1, []string{"w.swf", "out.json"}, false, "out.json", []string{"w.swf"}},
		{"older spelling, before the workload", jsonStdout, 0, []string{"out.json", "w.swf"}, false, "out.json", []string{"w.swf"}},
		{"older spelling, from history", jsonStdout, 0, []string{"out.json"}, true, "out.json", []string{}},
		{"bare, from history", jsonStdout, 0, nil, true, "", nil},
		{"a file with =", "out.json", -1, []string{"w.swf", "x"}, false, "", []string{"w.swf", "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := jsonOutput{path: tc.path, at: tc.at}
			file, rest := o.legacyFile(tc.args, tc.fromHistory)
			if file != tc.file || strings.Join(rest, " ") != strings.Join(tc.rest, " ") {
				t.Errorf("legacyFile = %q, %q; want %q, %q", file, rest, tc.file, tc.rest)
			}
		})
	}
}
