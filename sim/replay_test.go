package sim_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/allot-sched/allot/sim"
)

const traceDir = "../testdata/traces"

// replay runs a workload file under a preset policy ("" keeps the file's
// own) with per-job results and the timeline on.
func replay(t testing.TB, path, policy string, opt sim.Options) *sim.Result {
	t.Helper()
	w, err := sim.LoadWorkload(path, sim.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var set sim.Settings
	if policy != "" {
		if set, err = sim.Preset(policy); err != nil {
			t.Fatal(err)
		}
	}
	rp, err := w.Open(set)
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	res, err := sim.Run(rp.Input, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func starts(t *testing.T, res *sim.Result) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, j := range res.Jobs {
		if j.Start == nil {
			t.Fatalf("job %s never started: %+v", j.Name, j)
		}
		out[j.Name] = *j.Start
	}
	return out
}

// TestBackfillFixture replays testdata/traces/backfill.swf, five jobs on
// four processors (job: submit, processors, run = requested time):
//
//	1: 0, 2, 10    2: 1, 3, 10    3: 2, 4, 10    4: 3, 1, 20    5: 4, 1, 5 (requested 6)
//
// FCFS: 1 runs 0–10; 2 needs 3 of the 2 free processors and blocks the
// queue. At 10, 2 starts (10–20) and 3, needing all 4, blocks again; at 20
// 3 runs (20–30); at 30, 4 (30–50) and 5 (30–35) start together.
// Makespan 50; 115 processor-seconds / (4 × 50) = 57.5%.
//
// EASY: at 1, head 2 is reserved at 10 (when 1 ends, 4 free), leaving 1
// extra processor. At 3, job 4 (1 processor, ends at 23, after the shadow
// time) fits in the extra one and starts (3–23). At 4, job 5 fits in the
// last free processor and its limit ends at 10, by the shadow time: it
// starts (4–9). At 10, 2 starts (10–20); head 3 is reserved at 23, when 4
// ends; it runs 23–33. Makespan 33; 115 / (4 × 33) = 87.1%.
//
// Conservative: reservations 2 at 10, 3 at 20 (2 leaves 1 processor in
// 10–20), and 4 at 30: 4 would run into 3's reservation of all four
// processors at 20. Job 5 fits before 10 and starts at 4 (4–9). Then 2
// runs 10–20, 3 20–30 and 4 30–50. Makespan 50; 57.5%.
func TestBackfillFixture(t *testing.T) {
	path := filepath.Join(traceDir, "backfill.swf")
	cases := []struct {
		policy   string
		starts   map[string]int64
		makespan int64
		util     float64
	}{
		{"fcfs", map[string]int64{"1": 0, "2": 10, "3": 20, "4": 30, "5": 30}, 50, 115.0 / 200},
		{"easy", map[string]int64{"1": 0, "2": 10, "3": 23, "4": 3, "5": 4}, 33, 115.0 / 132},
		{"conservative", map[string]int64{"1": 0, "2": 10, "3": 20, "4": 30, "5": 4}, 50, 115.0 / 200},
	}
	for _, c := range cases {
		t.Run(c.policy, func(t *testing.T) {
			ck := newChecker(t)
			ck.textbook = true
			res := replay(t, path, c.policy, sim.Options{Until: -1, Inspect: ck.inspect})
			if got := starts(t, res); !reflect.DeepEqual(got, c.starts) {
				t.Errorf("starts %v, want %v", got, c.starts)
			}
			if res.Metrics.Makespan != c.makespan || math.Abs(res.Metrics.Utilization-c.util) > 1e-6 {
				t.Errorf("makespan %d, utilisation %v; want %d, %v",
					res.Metrics.Makespan, res.Metrics.Utilization, c.makespan, c.util)
			}
		})
	}
}

// TestLimitsFixture replays testdata/traces/limits.swf on its 4 processors:
// job 1 (4 processors, runs 100 s, asked for 50) is killed at 50; job 2
// gives no requested time, so its limit is its 30 s run; job 3 needs 8
// processors and is skipped, as are job 4 (no run time) and job 5 (zero
// run time). Jobs 2 and 6 both wait for job 1 and start at 50, under every
// policy: job 2 is the head, reserved at 50, and job 6 arrives when
// nothing is free.
func TestLimitsFixture(t *testing.T) {
	path := filepath.Join(traceDir, "limits.swf")
	for _, policy := range []string{"fcfs", "easy", "conservative"} {
		t.Run(policy, func(t *testing.T) {
			res := replay(t, path, policy, sim.Options{Until: -1})
			type outcome struct {
				state      sim.State
				start, end int64
			}
			got := map[string]outcome{}
			for _, j := range res.Jobs {
				got[j.Name] = outcome{j.State, *j.Start, *j.End}
			}
			want := map[string]outcome{
				"1": {sim.StateKilled, 0, 50},
				"2": {sim.StateCompleted, 50, 80},
				"6": {sim.StateCompleted, 50, 60},
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("jobs %v, want %v", got, want)
			}
			wantSkips := []sim.Skip{
				{Reason: "no run time", Count: 1, FirstLine: 13},
				{Reason: "zero run time", Count: 1, FirstLine: 14},
				{Reason: "wider than the cluster (4 slots)", Count: 1, FirstLine: 12},
			}
			if !reflect.DeepEqual(res.Skipped, wantSkips) {
				t.Errorf("skipped %+v, want %+v", res.Skipped, wantSkips)
			}
			notes := strings.Join(res.Notes, "\n")
			for _, want := range []string{
				"cluster: 4 single-slot nodes, from the trace's MaxProcs (4)",
				"1 job gives no requested time (first at line 11); its time limit is its run time",
				"1 job ran longer than its requested time (first at line 10); it is killed",
			} {
				if !strings.Contains(notes, want) {
					t.Errorf("notes %q lack %q", notes, want)
				}
			}
			m := res.Metrics
			if m.Jobs != 3 || m.Completed != 2 || m.Killed != 1 || m.TimeLimitKills != 1 || m.Makespan != 80 {
				t.Errorf("metrics %+v: want 3 jobs, 2 completed, 1 killed at its limit, makespan 80", m)
			}
		})
	}
}

// TestTraceGolden compares the full JSON result of every fixture trace
// under each policy with its golden file; -update rewrites them.
func TestTraceGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(traceDir, "*.swf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no traces in %s: %v", traceDir, err)
	}
	for _, f := range files {
		for _, policy := range []string{"fcfs", "easy", "conservative"} {
			name := strings.TrimSuffix(filepath.Base(f), ".swf") + "." + policy
			t.Run(name, func(t *testing.T) {
				res := replay(t, f, policy, sim.Options{Until: -1, Timeline: true, Series: true})
				got, err := json.MarshalIndent(res, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, '\n')
				golden := filepath.Join(traceDir, name+".golden.json")
				if *update {
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test ./sim -run TestTraceGolden -update to create it)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("result differs from %s; rerun with -update if the change is intended\n got: %s", golden, got)
				}
			})
		}
	}
}

// TestSeed003AsSWF: seed 003's job mix written as SWF gives the scenario
// file's 7 h at 25/28 under FIFO, run directly or from a scenario that
// names the trace, and 9 h at 25/36 from a scenario with a serial pool.
func TestSeed003AsSWF(t *testing.T) {
	cases := []struct {
		file, policy string
		makespan     int64
		util         float64
		scenario     string
	}{
		{"seed003.swf", "fcfs", 7 * hour, 25.0 / 28, "seed003-fifo.yaml"},
		{"seed003.yaml", "", 7 * hour, 25.0 / 28, "seed003-fifo.yaml"},
		{"seed003-serial.yaml", "", 9 * hour, 25.0 / 36, "seed003-fifo-serial.yaml"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			res := replay(t, filepath.Join(traceDir, c.file), c.policy, sim.Options{Until: -1})
			if res.Metrics.Makespan != c.makespan || math.Abs(res.Metrics.Utilization-c.util) > 1e-5 {
				t.Errorf("makespan %d, utilisation %v; want %d, %v",
					res.Metrics.Makespan, res.Metrics.Utilization, c.makespan, c.util)
			}
			want := runScenario(t, filepath.Join(scenarioDir, c.scenario))
			for i, j := range want.Jobs {
				got := res.Jobs[i]
				if got.Name != j.Name || *got.Start != *j.Start || *got.End != *j.End {
					t.Errorf("job %s ran %d–%d, the scenario's %s ran %d–%d",
						got.Name, *got.Start, *got.End, j.Name, *j.Start, *j.End)
				}
			}
		})
	}
}

// TestConservativeCompression replays testdata/traces/compression.swf on
// 11 processors (job: submit, processors, run, requested time):
//
//	1: 0, 6, 10, 10    2: 0, 4, 3, 20    3: 1, 10, 5, 5    4: 2, 6, 10, 10
//
// Jobs 1 and 2 start at 0, leaving 1 processor. At 1, job 3 (10
// processors) is reserved at 20, when 2's limit frees enough. At 2, job 4
// (6 processors) is reserved at 10, when 1 ends: it fits in 10–20 beside
// nothing else and ends before job 3's reservation. At 3, job 2 ends early.
//
// Mu'alem and Feitelson's conservative backfilling then compresses the
// schedule: each job, in order, moves to the earliest time that does not
// disturb the others' reservations, so no reservation ever moves later.
// Job 3 cannot move to 10, where job 4 holds 6 of the 11 processors; it
// stays at 20, and job 4 keeps 10. Textbook schedule: 4 runs 10–20, 3 runs
// 20–25.
// Rebuilding every reservation from scratch instead would give job 3
// 10–15 and push job 4 to 15, after the start it was promised.
func TestConservativeCompression(t *testing.T) {
	c := newChecker(t)
	res := replay(t, filepath.Join(traceDir, "compression.swf"), "conservative",
		sim.Options{Until: -1, Inspect: c.inspect})
	got := starts(t, res)
	textbook := map[string]int64{"1": 0, "2": 0, "3": 20, "4": 10}
	if !reflect.DeepEqual(got, textbook) {
		t.Fatalf("starts %v; textbook %v", got, textbook)
	}
	if late := c.lateFirst(); len(late) > 0 {
		t.Errorf("textbook schedule, but a reservation was broken: %v", late)
	}
}

// TestTraceScenarioEvents: a scenario's events name trace jobs by their
// job number. Job 126 starts at 3 h (after 123 and 124 at 0–2 h and 125 at
// 2–3 h) and the event kills it at 4 h.
func TestTraceScenarioEvents(t *testing.T) {
	res := replay(t, filepath.Join(traceDir, "seed003-kill.yaml"), "", sim.Options{Until: -1})
	j := job(t, res, "126")
	if j.State != sim.StateKilled || *j.Start != 3*hour || *j.End != 4*hour {
		t.Errorf("job 126 %s, %d–%d; want killed, 3h–4h", j.State, *j.Start, *j.End)
	}
	if res.Metrics.Makespan != 4*hour || res.Metrics.Killed != 1 || res.Metrics.TimeLimitKills != 0 {
		t.Errorf("metrics %+v: want makespan 4h, one kill, not at a time limit", res.Metrics)
	}
}
