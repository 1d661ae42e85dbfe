package sim_test

import (
	"path/filepath"
	"testing"
)

// TestIssue14Outcomes checks the expected outcome of each issue 14
// scenario beyond its golden file: when the job the case is about starts,
// and how many tasks were preempted for it.
func TestIssue14Outcomes(t *testing.T) {
	tests := []struct {
		file        string
		job         string
		start       int64
		preemptions int // of the whole run
	}{
		// The whole-node cases: 8 one-GPU victims on one node.
		{"issue14-quota-whole-node", "train", 31 * minute, 8},
		{"issue14-fair-share-whole-node", "bob", 31 * minute, 8},
		{"issue14-mixed-gang", "gang", 0, 0},
		{"issue14-mixed-gang", "after", hour, 0},
		{"issue14-conservative-gap", "small", 2 * minute, 0},
		{"issue14-conservative-gap", "head", 2 * hour, 0},
		{"issue14-set-priority-class", "urgent-1", hour + minute, 1},
		{"issue14-set-priority-class", "urgent-2", 2*hour + minute, 1},
	}
	for _, tc := range tests {
		t.Run(tc.file+"/"+tc.job, func(t *testing.T) {
			res := runScenario(t, filepath.Join(scenarioDir, tc.file+".yaml"))
			jr := job(t, res, tc.job)
			if jr.Start == nil || *jr.Start != tc.start {
				t.Errorf("%s starts at %v, want %d", tc.job, fmtStart(jr.Start), tc.start)
			}
			if res.Metrics.Preemptions != tc.preemptions {
				t.Errorf("%d preemptions, want %d", res.Metrics.Preemptions, tc.preemptions)
			}
		})
	}
}

func fmtStart(p *int64) any {
	if p == nil {
		return "never"
	}
	return *p
}

// TestSetPriorityClassPreemptible: the job moved into LOW is the one
// preempted, the one moved out of LOW is not.
func TestSetPriorityClassPreemptible(t *testing.T) {
	res := runScenario(t, filepath.Join(scenarioDir, "issue14-set-priority-class.yaml"))
	for name, want := range map[string]int{"normal": 1, "low": 0} {
		if got := job(t, res, name).Preemptions; got != want {
			t.Errorf("%s preempted %d times, want %d", name, got, want)
		}
	}
}
