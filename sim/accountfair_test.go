package sim_test

import (
	"path/filepath"
	"testing"

	"github.com/allot-sched/allot/sim"
)

// TestAccountFairnessExample replays examples/multifactor.yaml as the
// scenario says (multifactor) and under fcfs: both runs report the
// accounts' fairness over the same four users' leaves, the top accounts'
// slot-hours add up to the slots held, and the two policies differ in
// it.
func TestAccountFairnessExample(t *testing.T) {
	w, err := sim.LoadWorkload(filepath.Join("..", "examples", "multifactor.yaml"), sim.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	jain := map[string]float64{}
	for _, c := range []struct {
		name string
		set  sim.Settings
	}{{"current", sim.Settings{}}, {"fcfs", sim.Settings{Policy: "fifo"}}} {
		t.Run(c.name, func(t *testing.T) {
			rp, err := w.Open(c.set)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(rp.Input, sim.Options{Until: -1})
			if err != nil {
				t.Fatal(err)
			}
			m := &res.Metrics
			if n := sim.ChargedAccounts(m); n != 4 {
				t.Fatalf("%d charged accounts in %+v, want the 4 users' leaves", n, m.Accounts)
			}
			top := 0.0
			for _, a := range m.Accounts {
				if a.Parent == "" {
					top += a.SlotHours
				}
			}
			held := m.Utilization * 32 * float64(m.Makespan) / 3600
			if d := top - held; d > 0.01 || d < -0.01 {
				t.Errorf("top accounts received %v slot-hours, the cluster held %v", top, held)
			}
			if m.JainFairnessAccounts <= 0.25 || m.JainFairnessAccounts > 1 {
				t.Errorf("Jain over accounts %v outside (1/4, 1]", m.JainFairnessAccounts)
			}
			jain[c.name] = m.JainFairnessAccounts
		})
	}
	if jain["current"] == jain["fcfs"] {
		t.Errorf("multifactor and fcfs are equally fair to the accounts (%v): the metric cannot tell them apart", jain["current"])
	}
}
