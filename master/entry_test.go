package master

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// TestGoneProjectIsNoProject: a job whose project the configuration lost
// (at a restart: a reload that drops it is refused) runs
// on in a pool that reads no project for it, with no project and no
// account in its snapshot entry (-1), as the simulator gives a job of a
// project it does not know and as the what-if export replays it (a
// project of its own, with no quota and no budget). The master gave it
// project 0 and account 0, the first configured project's: its open
// attempts' usage was charged to that project's account (until their
// usage record, which goes to no account), and that project's
// preemption budget kept it from being preempted.
func TestGoneProjectIsNoProject(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  string
		// run checks the cluster once the running job's project is gone.
		run func(t *testing.T, h *harness, gone int64)
	}{
		{"its usage charges no account", `
pools:
  - {name: mf, policy: multifactor, multifactor: {fair_share: 1, fair_share_mode: classic}}
  - {name: mf0, policy: multifactor, multifactor: {qos: 1}}
nodes:
  - {name: n-mf, pool: mf}
  - {name: n-mf0, pool: mf0}
projects:
  - {name: team}
  - {name: gone}
default_pool: mf0
default_project: team
`, func(t *testing.T, h *harness, gone int64) {
			h.clock.Advance(time.Minute)
			s, _ := h.snapshot()
			for i, j := range h.snapJobs() {
				if j.rec.ID == gone && (s.Jobs[i].Project != -1 || s.Jobs[i].Account != -1) {
					t.Errorf("entry: project %d, account %d, want -1, -1", s.Jobs[i].Project, s.Jobs[i].Account)
				}
			}
			for _, a := range s.Accounts {
				if a.Usage != 0 {
					t.Errorf("account %s used %v; no job of a configured project ran", a.Name, a.Usage)
				}
			}
		}},
		{"no project's budget keeps it", `
pools:
  - {name: p, policy: priority, preemption: true}
nodes:
  - {name: n-p, pool: p}
projects:
  - {name: team, preempt_budget: 1}
  - {name: gone}
default_pool: p
default_project: team
`, func(t *testing.T, h *harness, gone int64) {
			h.m.lock()
			h.m.planner.notePreempted("team", h.clock.Now()) // team's budget is spent
			h.m.unlock()
			h.submit(`{"name": "urgent", "project": "team", "entrypoint": "x", "resources": {"slots": 1, "priority": 10}}`)
			h.step()
			if got := h.taskState(gone, 0); got != store.TaskPreempting {
				t.Errorf("gone's task is %s, want preempting for the urgent job: team's budget is not its own", got)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := mustConfig(t, c.cfg)
			after, err := config.Parse("after.yaml", []byte(strings.Replace(c.cfg, "  - {name: gone}\n", "", 1)))
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, withConfig(before), func(o *Options) {
				o.ConfigPath = "after.yaml"
				o.LoadConfig = func(string) (*config.Config, error) { return after, nil }
			})
			node := before.Pools[len(before.Pools)-1].Name
			a := h.agent("n-"+node, 1)
			gone := h.submit(`{"name": "g", "project": "gone", "pool": "` + node + `", "entrypoint": "x",
				"resources": {"slots": 1, "preemptible": true}}`)
			h.step()
			h.sync(a, a)
			if got := h.taskState(gone, 0); got != store.TaskRunning {
				t.Fatalf("gone's task is %s, want running", got)
			}
			// A reload that drops gone is refused while its job lives
			// (TestReloadRefusesDroppingLiveProject); a master started
			// without it keeps the job.
			if err := h.m.Reload(h.ctx); err == nil {
				t.Fatal("a reload dropping gone, whose job runs, was taken")
			}
			h.opt.Config = after
			h.start()
			c.run(t, h, gone)
		})
	}
}

// TestLicensesInSnapshotOrder: a job's entry lists its licenses in the
// snapshot's order (the configuration's), as the simulator's entries
// do, so that a job short of several is said to wait for the same one
// live and in a replay (sched's licensePending names the first). The
// master listed them by name: alpha here, where the simulator names
// zeta.
func TestLicensesInSnapshotOrder(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, `
pools:
  - {name: p, policy: fifo}
default_pool: p
licenses: {zeta: 1, alpha: 1}
`)))
	a := h.agent("n1", 2)
	both := `"licenses": {"alpha": 1, "zeta": 1}`
	h.submit(jobSpec("first", 1, ", "+both))
	second := h.submit(jobSpec("second", 1, ", "+both))
	h.step()
	h.sync(a, a)
	h.step()
	h.m.lock()
	defer h.m.unlock()
	p := h.m.jobs[second].pending
	if p == nil || p.p.Reason != sched.ReasonLicense || p.p.License != 0 {
		t.Errorf("second waits with %+v, want it waiting for license 0, zeta, the first it lists", p)
	}
}
