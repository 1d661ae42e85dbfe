package master

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/lifecycle/lifecycletest"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

// scriptDriver plays a lifecycletest script through the master's own
// fair-share and budget code, fed as the master feeds it: usage records
// of each open attempt every usageInterval and when it ends
// (flushUsage, charged), what open attempts used since their last record
// at each snapshot (snapTask's openUsage, fill), and preemptions noted and
// counted by project (notePreempted, preemptedCount). With restart set,
// the counters are rebuilt from every record before each look, as
// restoreUsage does after a restart.
type scriptDriver struct {
	s        lifecycletest.Script
	m        *Master
	next     int64
	restart  bool
	jobs     map[int]*scriptJob
	records  []scriptRecord
	capacity int
}

type scriptJob struct {
	project, user string
	slots         int
	usedTo        int64
}

type scriptRecord struct {
	project, user string
	from, to      int64
	slotSeconds   float64
}

func newScriptDriver(t *testing.T, s lifecycletest.Script, restart bool) *scriptDriver {
	var projects []string
	for _, l := range s.Leaves {
		projects = append(projects, l[0])
	}
	projects = append(projects, s.Projects...)
	slices.Sort(projects)
	var b strings.Builder
	projects = slices.Compact(projects)
	fmt.Fprintf(&b, "default_project: %s\n", projects[0])
	b.WriteString("default_pool: mf\npools:\n  - {name: mf, policy: multifactor, multifactor: {fair_share: 1, fair_share_mode: classic}}\nprojects:\n")
	for _, p := range projects {
		fmt.Fprintf(&b, "  - {name: %s}\n", p)
	}
	cfg := mustConfig(t, b.String())
	m := &Master{cfg: cfg, fair: newFairShare(s.Decay)}
	m.planner = &planner{m: m, preempted: newPreemptBudget()}
	for _, l := range s.Leaves {
		m.fair.addLeaf(l[0], l[1])
	}
	m.fair.rebuild(cfg)
	return &scriptDriver{s: s, m: m, restart: restart, jobs: map[int]*scriptJob{}, capacity: s.Capacity}
}

func (d *scriptDriver) Start(at int64, id int, project, user string, slots int) {
	d.flush(at)
	d.jobs[id] = &scriptJob{project, user, slots, at}
}

func (d *scriptDriver) End(at int64, id int) {
	d.flush(at)
	d.record(d.jobs[id], at)
	delete(d.jobs, id)
}

func (d *scriptDriver) record(j *scriptJob, to int64) {
	if to <= j.usedTo {
		return
	}
	r := scriptRecord{j.project, j.user, j.usedTo, to, float64(j.slots) * float64(to-j.usedTo)}
	d.records = append(d.records, r)
	d.m.fair.charge("mf", r.project, r.user, r.from, r.to, r.slotSeconds)
	j.usedTo = to
}

// flush records open attempts once per usageInterval, as flushUsage does.
func (d *scriptDriver) flush(now int64) {
	if now < d.next {
		return
	}
	d.next = now + int64(usageInterval/time.Second)
	ids := make([]int, 0, len(d.jobs))
	for id := range d.jobs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		d.record(d.jobs[id], now)
	}
}

func (d *scriptDriver) Preempt(at int64, project string) {
	d.m.planner.notePreempted(project, time.Unix(at, 0))
}

func (d *scriptDriver) Look(at int64) lifecycletest.Seen {
	d.flush(at)
	f := d.m.fair
	if d.restart {
		f = newFairShare(d.s.Decay)
		for _, r := range d.records {
			f.charge("mf", r.project, r.user, r.from, r.to, r.slotSeconds)
			f.addLeaf(r.project, r.user)
		}
		for _, l := range d.s.Leaves {
			f.addLeaf(l[0], l[1])
		}
		f.rebuild(d.m.cfg)
		d.m.fair = f
	}
	f.open = resizeFloats(f.open, len(f.accounts))
	now := time.Unix(at, 0)
	for _, j := range d.jobs {
		f.open[f.account(j.project, j.user)] += f.openUsage(j.slots, time.Unix(j.usedTo, 0), now)
	}
	f.fill(d.m.cfg, at, d.capacity)
	seen := lifecycletest.Seen{At: at, Usage: map[string]float64{}, Preempted: map[string]int{}}
	for _, l := range d.s.Leaves {
		seen.Usage[lifecycletest.Leaf(l[0], l[1])] = f.accounts[f.account(l[0], l[1])].Usage
	}
	for _, p := range d.s.Projects {
		seen.Preempted[p] = d.m.planner.preemptedCount(p, now)
	}
	return seen
}

// TestLifecycleScripts: the master's usage and budget give, for the
// scripts every driver plays, what the definitions say; sim's
// TestLifecycleScripts shows the same of the simulator, so for the same
// events the live cluster and the simulation put the same usage and the
// same preemption counts in their snapshots.
func TestLifecycleScripts(t *testing.T) {
	for name, s := range lifecycletest.Scripts() {
		for _, restart := range []bool{false, true} {
			got := lifecycletest.Run(s, newScriptDriver(t, s, restart))
			if err := lifecycletest.Compare(got, lifecycletest.Want(s), 1e-12); err != nil {
				t.Errorf("%s (restart %v): %v", name, restart, err)
			}
		}
	}
}

// TestLiveUsageMatchesSimulation runs the same work through the live
// master (agents, usage records every five minutes, snapshots) and through
// the simulator, and compares the account's usage at looks on both sides
// of the decay's period ends (an hour, per_period 0.5, from 12:00 UTC,
// which is the simulation's time 0).
func TestLiveUsageMatchesSimulation(t *testing.T) {
	type work struct {
		start, end int64 // seconds after 12:00
		slots      int
	}
	jobs := []work{{0, 8220, 2}, {6000, 14700, 1}}
	looks := []int64{3540, 3600, 8220, 10800, 14700, 16200}

	h := newHarness(t, withFeatures(t))
	a := h.agent("n1", 4)
	t0 := h.clock.Now()
	ids := make([]int64, len(jobs))
	live := map[int64]float64{}
	var accounts []sched.Account
	var pool sched.Pool
	var qos []sched.QOS
	for now := int64(0); now <= looks[len(looks)-1]; now += 60 {
		h.clock.Advance(t0.Add(time.Duration(now) * time.Second).Sub(h.clock.Now()))
		for i, j := range jobs {
			switch now {
			case j.start:
				ids[i] = h.submitAs("ana", jobSpec(fmt.Sprintf("w%d", i), j.slots, ""))
				h.step()
				h.sync(a, a)
			case j.end:
				a.Exit(tid(ids[i], 0, 1), agent.OutcomeCompleted, 0)
			}
		}
		h.sync(a)
		h.m.Tick(h.ctx)
		if slices.Contains(looks, now) {
			s, _ := h.snapshot()
			live[now] = s.Accounts[3].Usage
			accounts, pool, qos = slices.Clone(s.Accounts), s.Pools[0], slices.Clone(s.QOS)
		}
	}

	for i := range accounts {
		accounts[i].Usage = 0
	}
	var specs []sim.JobSpec
	for i, j := range jobs {
		specs = append(specs, sim.JobSpec{Name: fmt.Sprintf("w%d", i), Submit: j.start, Tasks: 1, MaxConcurrent: 1, Slots: j.slots,
			Duration: j.end - j.start, Weight: 1, Account: accounts[3].Name})
	}
	for _, at := range looks {
		in := &sim.Input{Pools: []sim.Pool{{Pool: pool, Nodes: []sched.Node{{Name: "n1", Slots: 4}}}},
			Accounts: slices.Clone(accounts), QOS: qos, Decay: sched.Decay{Period: 3600, PerPeriod: 0.5},
			Jobs: sim.NewSliceSource(specs)}
		res, err := sim.Run(in, sim.Options{Until: at})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Accounts[3].Usage
		if math.Abs(got-live[at]) > 1e-9 || live[at] == 0 {
			t.Errorf("%ds after 12:00: simulated usage %.9f, live %.12f", at, got, live[at])
		}
	}
}
