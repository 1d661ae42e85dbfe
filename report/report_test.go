package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/sim"
)

// compareStarveAfter is the fixture's starvation threshold: its waits
// are seconds long, so that fcfs starves two jobs (waits 27 and 26 s),
// easy and conservative one each.
const compareStarveAfter = 20

// compare replays testdata/traces/backfill.swf, whose schedules
// sim/replay_test.go works out by hand: makespans 50, 33 and 50 s.
func compare(t *testing.T, names ...string) *Comparison {
	t.Helper()
	path := filepath.Join("..", "testdata", "traces", "backfill.swf")
	w, err := sim.LoadWorkload(path, sim.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := &Comparison{Workload: path, Slots: w.Slots()}
	for i, policy := range []string{"fcfs", "easy", "conservative"} {
		set, err := sim.Preset(policy)
		if err != nil {
			t.Fatal(err)
		}
		rp, err := w.Open(set)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(rp.Input, sim.Options{Until: -1, OmitJobs: true, Series: true, StarveAfter: compareStarveAfter})
		rp.Close()
		if err != nil {
			t.Fatal(err)
		}
		name := policy
		if i < len(names) {
			name = names[i]
		}
		c.Runs = append(c.Runs, Run{Name: name, Policy: rp.Input.Policy(), Config: rp.Input.Config(), Result: res})
		c.Skipped, c.Notes = res.Skipped, res.Notes
	}
	return c
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, compare(t)); err != nil {
		t.Fatal(err)
	}
	lines := map[string][]string{}
	for line := range strings.Lines(b.String()) {
		if f := strings.Fields(line); len(f) > 0 {
			lines[f[0]] = f
		}
	}
	for _, want := range [][]string{
		{"configuration", "fifo", "backfill/easy", "backfill/conservative"},
		{"makespan", "50s", "33s", "50s"},
		{"utilisation", "57.5%", "87.1%", "57.5%"},
	} {
		if got := lines[want[0]]; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("row %q = %q, want %q\n%s", want[0], got, want, b.String())
		}
	}
	if !strings.HasPrefix(b.String(), strings.Repeat(" ", len("bounded slowdown mean"))) {
		t.Errorf("the header row should start with the blank label column:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "note: cluster: 4 single-slot nodes") {
		t.Errorf("the table does not say how the workload was read:\n%s", b.String())
	}
}

func TestWriteCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, compare(t)); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if n := 4 + len(csvColumns) + len(csvLate); len(recs) != 4 || len(recs[0]) != n {
		t.Fatalf("%d rows of %d cells, want a header and 3 runs of %d", len(recs), len(recs[0]), n)
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	for i, want := range []string{"50", "33", "50"} {
		if got := recs[i+1][col["makespan_s"]]; got != want {
			t.Errorf("run %s makespan_s = %s, want %s", recs[i+1][0], got, want)
		}
	}
	if got := recs[2][col["utilization"]]; got != "0.871212" {
		t.Errorf("easy utilization = %s, want 0.871212 (115/132)", got)
	}
	for i, want := range [][]string{{"20", "2", "0", "27", "4", "fifo"}, {"20", "1", "0", "21", "3", "backfill/easy"},
		{"20", "1", "0", "27", "4", "backfill/conservative"}} {
		var got []string
		for _, name := range []string{"starve_after_s", "starved", "starved_never_started", "longest_wait_s", "longest_wait_job", "label"} {
			got = append(got, recs[i+1][col[name]])
		}
		if !slices.Equal(got, want) {
			t.Errorf("run %s starvation and label %q, want %q", recs[i+1][0], got, want)
		}
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, compare(t)); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Workload struct {
			Slots int      `json:"slots"`
			Notes []string `json:"notes"`
		} `json:"workload"`
		Runs []struct {
			Name    string           `json:"name"`
			Policy  string           `json:"policy"`
			Label   string           `json:"label"`
			Config  []sim.PoolConfig `json:"config"`
			Metrics struct {
				Makespan   int64           `json:"makespan"`
				Starvation *sim.Starvation `json:"starvation"`
			} `json:"metrics"`
			Series *struct {
				Utilization []float64 `json:"utilization"`
			} `json:"series"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Workload.Slots != 4 || len(got.Workload.Notes) == 0 || len(got.Runs) != 3 {
		t.Fatalf("workload %+v, %d runs", got.Workload, len(got.Runs))
	}
	for i, want := range []int64{50, 33, 50} {
		r := got.Runs[i]
		if r.Metrics.Makespan != want || r.Series == nil || len(r.Series.Utilization) == 0 {
			t.Errorf("run %s: makespan %d, series %v; want %d and a series", r.Name, r.Metrics.Makespan, r.Series, want)
		}
	}
	for i, want := range []string{"fifo", "backfill/easy", "backfill/conservative"} {
		r := got.Runs[i]
		if r.Label != want || len(r.Config) != 1 || r.Config[0].Pool != "cluster" {
			t.Errorf("run %s: label %q, config %+v; want %q and the cluster pool's", r.Name, r.Label, r.Config, want)
		}
	}
	want := sim.Starvation{After: compareStarveAfter, Jobs: 2, Longest: &sim.LongestWait{Job: "4", Wait: 27, Started: true}}
	if st := got.Runs[0].Metrics.Starvation; st == nil || st.After != want.After || st.Jobs != want.Jobs ||
		st.Longest == nil || *st.Longest != *want.Longest {
		t.Errorf("fcfs starvation %+v, want %+v", st, want)
	}
}

// TestWriteHTML checks that the page is self-contained (it names no URL
// and loads no script, style sheet or font), well formed, escapes names,
// and has its charts: utilisation, queue, wait CDF and one stacked chart
// per run.
func TestWriteHTML(t *testing.T) {
	evil := `<b>"x"&y</b>`
	var b bytes.Buffer
	if err := WriteHTML(&b, compare(t, evil)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"http:", "https:", "//", "<script", "<link", "@import", "url(", "src=", evil} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	if n := strings.Count(page, "<svg"); n != 3+3 {
		t.Errorf("%d charts, want 6", n)
	}
	// The queue chart plots bucket means, not the table's peak: it says so.
	if !strings.Contains(page, "jobs waiting (mean per bucket)") {
		t.Error("the queue chart's axis does not say it plots the mean per bucket")
	}
	if !strings.Contains(page, "&lt;b&gt;&#34;x&#34;&amp;y&lt;/b&gt;") {
		t.Error("the run name is not escaped as expected")
	}
	// Every run's configuration heads its column and titles its lines.
	for _, want := range []string{`<th class="muted">configuration</th><th class="muted">fifo</th><th class="muted">backfill/easy</th>`,
		`<b>easy</b> <span class="muted">backfill/easy</span>`, "<title>conservative (backfill/conservative)</title>",
		"<td>starved (wait over 20s)</td><td>2</td>", "Starved: jobs that waited over 20s to start"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if !strings.Contains(page, "time since the replay&#39;s start (hours)") {
		t.Error("the time axis does not say it counts from the replay's start")
	}
	dec := xml.NewDecoder(strings.NewReader(page))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the page is not well formed: %v", err)
		}
	}
}

func TestSignificant(t *testing.T) {
	cases := []struct {
		x    float64
		want string
	}{
		{13860.614, "13861"}, {652.771, "652.8"}, {88.541, "88.54"}, {1.702, "1.702"}, {1, "1"},
		{0.2714, "0.271"}, {0, "0"}, {2.5, "2.5"},
	}
	for _, c := range cases {
		if got := Significant(c.x); got != c.want {
			t.Errorf("Significant(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}

// TestProjectChartsShareColours: each run's stacked chart shows the same
// projects in the same order and colours, chosen over all runs.
func TestProjectChartsShareColours(t *testing.T) {
	c := compare(t)
	top := topNames(c)
	if len(top) != 3 {
		t.Fatalf("top projects %v, want the fixture's 3 groups", top)
	}
	_, first := projectChart(c, 0, top)
	for i := 1; i < len(c.Runs); i++ {
		if _, legend := projectChart(c, i, top); !slices.Equal(legend, first) {
			t.Errorf("run %s legend %v, run %s %v", c.Runs[i].Name, legend, c.Runs[0].Name, first)
		}
	}
}

// TestWriteInputCounts: a skipped kind of record is counted with its
// noun's number, as the notes are: "1 record", "2 records".
func TestWriteInputCounts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		count int
		want  string
	}{
		{"one", 1, "skipped 1 record: zero run time (first at line 7)\n"},
		{"several", 3, "skipped 3 records: zero run time (first at line 7)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteInput(&b, []sim.Skip{{Count: tc.count, Reason: "zero run time", FirstLine: 7}}, nil); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("output %q lacks %q", b.String(), tc.want)
			}
		})
	}
}

// TestWriteHTMLTitle: a comparison of the cluster's history is headed by
// what it holds, not by the temporary file it was read from (trial p F14).
func TestWriteHTMLTitle(t *testing.T) {
	tests := []struct {
		name, title, want string
	}{
		{"a file", "", "<h1>Replay of "},
		{"the cluster's history", "the cluster's jobs submitted from 2026-11-28 17:59:40 to 2026-11-28 18:41:06",
			"<h1>What if: the cluster&#39;s jobs submitted from 2026-11-28 17:59:40 to 2026-11-28 18:41:06</h1>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := compare(t, "r")
			c.Title = tt.title
			var b bytes.Buffer
			if err := WriteHTML(&b, c); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tt.want) {
				t.Errorf("the page lacks %q", tt.want)
			}
		})
	}
}

// TestLongConfigurationsInALegend (trial p F4): configurations longer
// than a column (a cluster's pools spelt out) leave the table's head for
// a legend under it, in the table and the page alike; short ones head
// their columns.
func TestLongConfigurationsInALegend(t *testing.T) {
	long := "osmo: quota, fs: fair_share/preemption, hpc: backfill/easy, mf: multifactor/preemption/backfill/easy"
	c := compare(t)
	for i := range c.Runs {
		c.Runs[i].Config, c.Runs[i].Policy = nil, long+strings.Repeat("!", i)
	}
	var table, page bytes.Buffer
	if err := WriteTable(&table, c); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&page, c); err != nil {
		t.Fatal(err)
	}
	out := table.String()
	if strings.Contains(out, "\nconfiguration ") || !strings.Contains(out, "\nconfigurations:\n  fcfs: "+long+"\n") {
		t.Errorf("the table keeps a configuration row or lacks the legend:\n%s", out)
	}
	tbl, _, _ := strings.Cut(out, "\n\n")
	for line := range strings.Lines(tbl) {
		if len(line) > 120 {
			t.Errorf("a line of %d columns: %q", len(line), line)
			break
		}
	}
	if strings.Contains(page.String(), `<th class="muted">configuration</th>`) {
		t.Error("the page's table keeps the configuration row the legend above it has")
	}
}
