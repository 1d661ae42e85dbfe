package sim_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/scenarios")

const scenarioDir = "../testdata/scenarios"

// runScenario replays a scenario file with the timeline on.
func runScenario(t *testing.T, path string) *sim.Result {
	t.Helper()
	sc, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	in, err := sim.FromScenario(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(in, sim.Options{Until: -1, Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGolden replays every scenario under testdata/scenarios and compares
// the JSON result with its golden file. Run with -update to rewrite them.
func TestGolden(t *testing.T) {
	checkGoldens(t, scenarioDir, "TestGolden", runScenario)
}

// checkGoldens runs every scenario of dir through run and compares its
// JSON result with the golden file beside it (-update rewrites them).
func checkGoldens(t *testing.T, dir, test string, run func(t *testing.T, file string) *sim.Result) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios found in %s: %v", dir, err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			got, err := json.MarshalIndent(run(t, f), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(f, ".yaml") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./sim -run %s -update to create it)", err, test)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("result differs from %s; rerun with -update if the change is intended\n got: %s", golden, got)
			}
		})
	}
}

// slotsAt returns the slots each job holds at time t: the last timeline
// entry at or before t.
func slotsAt(res *sim.Result, t int64) map[string]int {
	out := map[string]int{}
	for _, e := range res.Timeline {
		if e.Time > t {
			break
		}
		out = e.Slots
	}
	return out
}

type step struct {
	name  string
	at    int64
	slots map[string]int
}

func checkSteps(t *testing.T, res *sim.Result, steps []step) {
	t.Helper()
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			got := slotsAt(res, s.at)
			if len(got) != len(s.slots) {
				t.Fatalf("at t=%d: holdings %v, want %v", s.at, got, s.slots)
			}
			for job, n := range s.slots {
				if got[job] != n {
					t.Fatalf("at t=%d: holdings %v, want %v", s.at, got, s.slots)
				}
			}
		})
	}
}

func job(t *testing.T, res *sim.Result, name string) sim.JobResult {
	t.Helper()
	for _, j := range res.Jobs {
		if j.Name == name {
			return j
		}
	}
	t.Fatalf("no job %q in result", name)
	return sim.JobResult{}
}

const (
	minute = 60
	hour   = 3600
)
