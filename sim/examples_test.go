package sim_test

import (
	"path/filepath"
	"testing"

	"github.com/allot-sched/allot/sim"
)

// TestExamples replays the scenarios under examples/, as the README and
// the docs tell people to, and checks a few things each is there to show.
// (examples/cluster.yaml is a master configuration, not a scenario.)
func TestExamples(t *testing.T) {
	var files []string
	for _, name := range []string{"quickstart.yaml", "quota.yaml", "osmo-pools.yaml"} {
		files = append(files, filepath.Join("..", "examples", name))
	}
	checks := map[string]func(t *testing.T, res *sim.Result){
		"quota.yaml": func(t *testing.T, res *sim.Result) {
			for _, nb := range []string{"ann-notebook", "kim-notebook"} {
				if j := job(t, res, nb); j.Preemptions != 0 || j.Start == nil || *j.Start != *j.Wait+j.Submit || *j.Wait > minute {
					t.Errorf("%s = %+v: a notebook within quota starts after at most a checkpoint and is never preempted", nb, j)
				}
			}
			if len(res.Projects) != 4 {
				t.Errorf("%d projects in the result, want 4", len(res.Projects))
			}
		},
		"osmo-pools.yaml": func(t *testing.T, res *sim.Result) {
			if j := job(t, res, "lidar-sweep"); j.Preemptions == 0 {
				t.Errorf("lidar-sweep (LOW, borrowing) was never preempted")
			}
			if j := job(t, res, "planner-hotfix"); j.Project != "planning" {
				t.Errorf("planner-hotfix reports project %q, want its pool planning", j.Project)
			}
		},
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			w, err := sim.LoadWorkload(f, sim.WorkloadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rp, err := w.Open(sim.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(rp.Input, sim.Options{Until: -1, Timeline: true, Attempts: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Metrics.Completed == 0 {
				t.Errorf("no job completed")
			}
			if check := checks[name]; check != nil {
				check(t, res)
			}
		})
	}
}
