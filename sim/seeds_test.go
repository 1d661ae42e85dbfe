package sim_test

import (
	"math"
	"path/filepath"
	"testing"
)

// The seed walkthroughs: after each step the allocations must be what the
// seed text says. Step times are the submissions and kills of the scenario
// files; see the comments there.
func TestSeedWalkthroughs(t *testing.T) {
	t.Run("seed000 priority without backfill", func(t *testing.T) {
		res := runScenario(t, filepath.Join(scenarioDir, "seed000-priority.yaml"))
		checkSteps(t, res, []step{
			{"1 asha runs 8 trials", 0, map[string]int{"asha": 8}},
			{"2 four trials preempted for the p1 experiment", 10 * minute, map[string]int{"asha": 4, "dist-p1-4": 4}},
			{"3 notebook waits while the experiments need 8", 20 * minute, map[string]int{"asha": 4, "dist-p1-4": 4}},
			{"4 notebook runs once they need at most 7", 170 * minute, map[string]int{"asha": 4, "notebook": 1}},
			{"4 experiments complete", 4 * hour, map[string]int{"notebook": 1}},
			{"5 p1 8-slot job cannot run beside the notebook", 5 * hour, map[string]int{"notebook": 1}},
			{"6 p2 job waits behind the p1 job", 5*hour + 10*minute, map[string]int{"notebook": 1}},
			{"7 notebook killed, p1 job runs", 5*hour + 20*minute, map[string]int{"dist-p1-8": 8}},
			{"7 then the p2 job runs", 6*hour + 20*minute, map[string]int{"dist-p2-4": 4}},
		})
		if p := job(t, res, "asha").Preemptions; p != 4 {
			t.Errorf("asha preemptions = %d, want 4", p)
		}
		if p := job(t, res, "dist-p2-4").Preemptions; p != 0 {
			t.Errorf("dist-p2-4 preemptions = %d, want 0 (it never ran before the p1 job)", p)
		}
	})
	t.Run("seed001 priority with backfill", func(t *testing.T) {
		res := runScenario(t, filepath.Join(scenarioDir, "seed001-priority-backfill.yaml"))
		checkSteps(t, res, []step{
			{"1 asha runs 8 trials", 0, map[string]int{"asha": 8}},
			{"2 preempted trials checkpoint for a minute", 10 * minute, map[string]int{"asha": 8}},
			{"2 then the p1 experiment runs", 11 * minute, map[string]int{"asha": 4, "dist-p1-4": 4}},
			{"3 notebook waits", 20 * minute, map[string]int{"asha": 4, "dist-p1-4": 4}},
			{"4 notebook runs once they need at most 7", 170 * minute, map[string]int{"asha": 4, "notebook": 1}},
			{"5 p1 8-slot job cannot run beside the notebook", 5 * hour, map[string]int{"notebook": 1}},
			{"6 p2 job backfills the idle slots", 5*hour + 10*minute, map[string]int{"notebook": 1, "dist-p2-4": 4}},
			{"7 notebook killed, p2 job checkpoints", 5*hour + 20*minute, map[string]int{"dist-p2-4": 4}},
			{"7 p1 job runs", 5*hour + 21*minute, map[string]int{"dist-p1-8": 8}},
			{"7 p2 job restarts after it", 6*hour + 21*minute, map[string]int{"dist-p2-4": 4}},
		})
		p2 := job(t, res, "dist-p2-4")
		// It ran 10 of its 60 minutes before the preemption and keeps them.
		if p2.Preemptions != 1 || p2.End == nil || *p2.End != 6*hour+21*minute+50*minute {
			t.Errorf("dist-p2-4 = %+v, want 1 preemption and end at 7h11m", p2)
		}
	})
}

func TestSeed003FIFO(t *testing.T) {
	cases := []struct {
		file     string
		makespan int64
		util     float64
	}{
		{"seed003-fifo-serial.yaml", 9 * hour, 25.0 / 36},
		{"seed003-fifo.yaml", 7 * hour, 25.0 / 28},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			res := runScenario(t, filepath.Join(scenarioDir, c.file))
			if res.Metrics.Makespan != c.makespan {
				t.Errorf("makespan = %d, want %d", res.Metrics.Makespan, c.makespan)
			}
			if math.Abs(res.Metrics.Utilization-c.util) > 1e-5 {
				t.Errorf("utilization = %v, want %v", res.Metrics.Utilization, c.util)
			}
		})
	}
}

func TestSeed001FairShare(t *testing.T) {
	res := runScenario(t, filepath.Join(scenarioDir, "seed001-fair-share.yaml"))
	checkSteps(t, res, []step{
		{"demands 10 and 30 on 8 slots give 2 and 6", 0, map[string]int{"exp-a": 2, "exp-b": 6}},
		{"weights 3 and 1 give 4 and 4", hour, map[string]int{"exp-a": 4, "exp-b": 4}},
	})
}

func TestSeed001Gang(t *testing.T) {
	res := runScenario(t, filepath.Join(scenarioDir, "seed001-gang.yaml"))
	checkSteps(t, res, []step{
		{"one 16-GPU experiment runs, the other waits", 0, map[string]int{"exp-1": 16}},
		{"the other runs after it, no deadlock", 2 * hour, map[string]int{"exp-2": 16}},
	})
	for _, name := range []string{"exp-1", "exp-2"} {
		if j := job(t, res, name); j.State != "completed" {
			t.Errorf("%s ended %s, want completed", name, j.State)
		}
	}
}

func TestZeroSlotTasksRunWhileSlotTasksQueue(t *testing.T) {
	res := runScenario(t, filepath.Join(scenarioDir, "zero-slot.yaml"))
	big := job(t, res, "big")
	if big.Start == nil || *big.Start != 2*hour {
		t.Fatalf("big started at %v, want 2h (queued behind the full pool)", big.Start)
	}
	for _, name := range []string{"cpu-notebook", "tensorboard"} {
		j := job(t, res, name)
		if j.Start == nil || *j.Start != 10*minute {
			t.Errorf("%s started at %v, want at its submission (10m) while big queued", name, j.Start)
		}
	}
}
