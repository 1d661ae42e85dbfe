package sim_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

// The seed 002 (Run:ai) and seed 004 (OSMO) examples under testdata/quota:
// each test checks the seed's stated outcome at the times it happens, and
// TestQuotaGolden pins the whole JSON result, attempts included.

const quotaDir = "../testdata/quota"

// runQuota replays a scenario with the timeline and attempts on.
func runQuota(t *testing.T, name string, set sim.Settings) *sim.Result {
	t.Helper()
	w, err := sim.LoadWorkload(filepath.Join(quotaDir, name), sim.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rp, err := w.Open(set)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(rp.Input, sim.Options{Until: -1, Timeline: true, Attempts: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestQuotaGolden(t *testing.T) {
	checkGoldens(t, quotaDir, "TestQuotaGolden", func(t *testing.T, f string) *sim.Result {
		return runQuota(t, filepath.Base(f), sim.Settings{})
	})
}

// projectAt returns a project's holdings at time t: its last step at or
// before t.
func projectAt(t *testing.T, res *sim.Result, name string, at int64) sim.HeldStep {
	t.Helper()
	for _, p := range res.Projects {
		if p.Name != name {
			continue
		}
		out := sim.HeldStep{Time: at}
		for _, s := range p.Held {
			if s.Time > at {
				break
			}
			out = s
		}
		return out
	}
	t.Fatalf("no project %q in the result", name)
	return sim.HeldStep{}
}

type projectStep struct {
	name     string
	at       int64
	slots    map[string]int // project -> slots held
	borrowed map[string]int // project -> slots held by borrowing work
}

func checkProjects(t *testing.T, res *sim.Result, steps []projectStep) {
	t.Helper()
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			for p, n := range s.slots {
				got := projectAt(t, res, p, s.at)
				if got.Slots != n || got.Borrowing != s.borrowed[p] {
					t.Errorf("at t=%d project %s holds %d (%d borrowing), want %d (%d borrowing)",
						s.at, p, got.Slots, got.Borrowing, n, s.borrowed[p])
				}
			}
		})
	}
}

// attempts renders a job's attempts as "start-end STATE" for comparison.
func attempts(t *testing.T, res *sim.Result, name string) []string {
	t.Helper()
	var out []string
	for _, a := range job(t, res, name).Attempts {
		end := "open"
		if a.End != nil {
			end = sim.Clock(*a.End)
		}
		out = append(out, sim.Clock(a.Start)+"-"+end+" "+string(a.State))
	}
	return out
}

func sameList(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSeed002OverQuotaSplit(t *testing.T) {
	res := runQuota(t, "seed002-over-quota.yaml", sim.Settings{})
	// Quotas 3 and 1, both over quota: each gets its quota, and the 4 idle
	// GPUs go 3:1, so A holds 6 (75% of the spare) and B 2 (25%).
	checkProjects(t, res, []projectStep{
		{"quotas 3 and 1 split the idle GPUs 75/25", 0, map[string]int{"A": 6, "B": 2}, nil},
		{"the split is recomputed as trials end", hour, map[string]int{"A": 6, "B": 2}, nil},
		{"once A wants fewer, B takes the rest", 3 * hour, map[string]int{"A": 2, "B": 6}, nil},
	})
	if res.Metrics.Preemptions != 0 {
		t.Errorf("%d preemptions; both projects stay at or above their share, so none are needed", res.Metrics.Preemptions)
	}
}

func TestSeed002Interactive(t *testing.T) {
	res := runQuota(t, "seed002-interactive.yaml", sim.Settings{})
	checkSteps(t, res, []step{
		{"A's training takes the idle cluster", 0, map[string]int{"a-train": 4}},
		{"B below quota reclaims 2", 11 * minute, map[string]int{"a-train": 2, "b-train": 2}},
		{"a notebook within quota preempts A's own training", 21 * minute,
			map[string]int{"a-train": 1, "b-train": 2, "a-notebook-1": 1}},
		{"a second notebook preempts A's last training task", 31 * minute,
			map[string]int{"b-train": 2, "a-notebook-1": 1, "a-notebook-2": 1}},
		{"a third notebook would exceed the quota and waits", 50 * minute,
			map[string]int{"b-train": 2, "a-notebook-1": 1, "a-notebook-2": 1}},
		{"B reclaims from A's training, never its notebooks", 2*hour + 31*minute,
			map[string]int{"b-train-2": 2, "a-notebook-1": 1, "a-notebook-2": 1}},
		{"the third notebook starts when the first is killed", 3 * hour,
			map[string]int{"b-train-2": 2, "a-notebook-2": 1, "a-notebook-3": 1}},
	})
	for _, nb := range []string{"a-notebook-1", "a-notebook-2", "a-notebook-3"} {
		j := job(t, res, nb)
		if j.Preemptions != 0 || len(j.Attempts) != 1 || j.Attempts[0].State != sim.AttemptCanceled {
			t.Errorf("%s: %d preemptions, attempts %+v; want one attempt, ended by its kill", nb, j.Preemptions, j.Attempts)
		}
	}
	if p := job(t, res, "a-train").Preemptions; p != 6 {
		t.Errorf("a-train preempted %d times, want 6 (2 reclaimed at 10m, 1 per notebook, 2 reclaimed at 2h30m)", p)
	}
}

func TestSeed002Reclaim(t *testing.T) {
	res := runQuota(t, "seed002-reclaim.yaml", sim.Settings{})
	checkProjects(t, res, []projectStep{
		{"A alone takes the whole cluster", 0, map[string]int{"A": 8, "B": 0}, nil},
		{"B reclaims up to its quota, A keeps its own", 31 * minute, map[string]int{"A": 5, "B": 3}, nil},
	})
	a := job(t, res, "a-search")
	lost := 0
	for _, at := range a.Attempts {
		if at.State == sim.AttemptPreempted {
			lost++
			if at.LostWork != 10*minute {
				t.Errorf("preempted attempt %+v lost %d s, want the 10 minutes since its checkpoint at 20m", at, at.LostWork)
			}
		}
	}
	if lost != 3 || a.Preemptions != 3 {
		t.Errorf("a-search: %d preemptions, %d FAILED_PREEMPTED attempts; want 3 and 3", a.Preemptions, lost)
	}
}

func TestSeed002BinPacking(t *testing.T) {
	res := runQuota(t, "seed002-binpack.yaml", sim.Settings{})
	big := job(t, res, "big")
	if big.Start == nil || *big.Start != 10*minute || res.Metrics.Moves != 0 {
		t.Fatalf("big started at %s after %d moves, want at its submission (10m) on three whole nodes, moving nothing",
			startOf(big), res.Metrics.Moves)
	}
	// Spread placement puts the small work on every node: the big job then
	// has to wait for consolidation to gather whole nodes.
	spread := runQuota(t, "seed002-binpack.yaml", sim.Settings{Placement: sched.PlaceSpread})
	if spread.Metrics.Moves == 0 {
		t.Errorf("with spread placement nothing moved; the small work sits on every node")
	}
}

func TestSeed002Consolidation(t *testing.T) {
	res := runQuota(t, "seed002-consolidation.yaml", sim.Settings{})
	checkSteps(t, res, []step{
		{"spread placement leaves no whole node", 0, map[string]int{"small": 6, "pair": 2}},
		{"five tasks move; their old slots drain for a minute", 10 * minute, map[string]int{"small": 11, "pair": 2}},
		{"the big job starts on three whole nodes", 11 * minute, map[string]int{"small": 6, "pair": 2, "big": 24}},
	})
	if m := res.Metrics; m.Moves != 5 || m.Preemptions != 0 {
		t.Errorf("%d moves and %d preemptions, want 5 and 0", m.Moves, m.Preemptions)
	}
	// A move keeps the task's progress and its attempt: each small task
	// still has one attempt, ending at 2h, or, for the five that moved, a
	// minute later: a moved task does no work while it checkpoints, and
	// restarts when its checkpoint lands (lifecycle.Replannable).
	moved := 0
	for _, a := range job(t, res, "small").Attempts {
		want := int64(2 * hour)
		if len(a.Moves) > 0 {
			want += minute
			moved++
		}
		if a.End == nil || *a.End != want || a.State != sim.AttemptCompleted {
			t.Errorf("small attempt %+v, want one attempt per task, completed at %s", a, sim.Clock(want))
		}
	}
	if moved != 5 {
		t.Errorf("%d small tasks moved, want 5", moved)
	}
}

func TestSeed004QueueOrder(t *testing.T) {
	res := runQuota(t, "seed004-queue-order.yaml", sim.Settings{})
	// Queued by priority, then submission: WF5 (HIGH), WF3 and WF6
	// (NORMAL, in submit order), WF4 (LOW).
	want := map[string]int64{"WF5": hour, "WF3": hour + 30*minute, "WF6": 2 * hour, "WF4": 2*hour + 30*minute}
	for name, at := range want {
		if j := job(t, res, name); j.Start == nil || *j.Start != at {
			t.Errorf("%s started at %v, want %s", name, j.Start, sim.Clock(at))
		}
	}
}

func TestSeed004Preemption(t *testing.T) {
	res := runQuota(t, "seed004-preemption.yaml", sim.Settings{})
	checkSteps(t, res, []step{
		{"WF1 (LOW) and WF2 (NORMAL) run", 0, map[string]int{"WF1": 1, "WF2": 1}},
		{"WF5 (NORMAL) jumps the queue and WF1 is preempted", 25 * minute, map[string]int{"WF2": 1, "WF5": 1}},
		{"WF1 is rescheduled ahead of WF3 and WF4", hour, map[string]int{"WF1": 1, "WF5": 1}},
		{"then WF3", hour + 25*minute, map[string]int{"WF1": 1, "WF3": 1}},
		{"then WF4", hour + 40*minute, map[string]int{"WF3": 1, "WF4": 1}},
	})
	// WF1 kept the 20 minutes up to its last checkpoint and lost 5.
	if got, want := attempts(t, res, "WF1"), []string{"0-25m FAILED_PREEMPTED", "1h-1h40m COMPLETED"}; !sameList(got, want) {
		t.Errorf("WF1 attempts %v, want %v", got, want)
	}
	if a := job(t, res, "WF1").Attempts; len(a) != 2 || a[0].LostWork != 5*minute {
		t.Errorf("WF1 attempts %+v, want the first to have lost 5 minutes", a)
	}
}

func TestSeed004BorrowAndReclaim(t *testing.T) {
	res := runQuota(t, "seed004-borrowing.yaml", sim.Settings{})
	checkSteps(t, res, []step{
		{"pool1 runs WF1 and WF2, pool2 WF4", 0, map[string]int{"WF1": 1, "WF2": 1, "WF4": 1}},
		{"WF3 borrows pool2's idle GPU", 10 * minute, map[string]int{"WF1": 1, "WF2": 1, "WF3": 1, "WF4": 1}},
		{"WF5 reclaims it: WF3 is preempted, WF2 is not", 20 * minute, map[string]int{"WF1": 1, "WF2": 1, "WF4": 1, "WF5": 1}},
		{"WF3 runs again on pool1's own GPU when WF1 ends", hour, map[string]int{"WF2": 1, "WF3": 1, "WF4": 1, "WF5": 1}},
	})
	checkProjects(t, res, []projectStep{
		{"pool1 borrows one GPU over its quota", 10 * minute,
			map[string]int{"pool1": 3, "pool2": 1}, map[string]int{"pool1": 2}},
		{"pool2 back at its quota", 20 * minute,
			map[string]int{"pool1": 2, "pool2": 2}, map[string]int{"pool1": 1}},
	})
	if got, want := attempts(t, res, "WF3"), []string{"10m-20m FAILED_PREEMPTED", "1h-1h50m COMPLETED"}; !sameList(got, want) {
		t.Errorf("WF3 attempts %v, want %v", got, want)
	}
	for _, p := range res.Projects {
		if p.Kind != sim.ProjectKindPool {
			t.Errorf("project %s has kind %q, want pool", p.Name, p.Kind)
		}
	}
}

// TestExitActions: a preempted task is rescheduled by default, fails with
// on_preempt: fail, and fails once max_retries reschedules are used up.
func TestExitActions(t *testing.T) {
	const base = `pools:
  - {name: pool, policy: quota, quota: 1, nodes: [{name: n, slots: 1}]}
jobs:
  - {name: low, priority_class: LOW, duration: 1h%s}
  - {name: n1, priority_class: NORMAL, submit: 10m, duration: 10m}
  - {name: n2, priority_class: NORMAL, submit: 30m, duration: 10m}
`
	cases := []struct {
		name     string
		extra    string
		state    sim.State
		attempts []string
	}{
		{"reschedule by default", "", sim.StateCompleted, []string{
			"0-10m FAILED_PREEMPTED", "20m-30m FAILED_PREEMPTED", "40m-1h20m COMPLETED"}},
		{"on_preempt fail", ", on_preempt: fail", sim.StateFailed, []string{"0-10m FAILED_PREEMPTED"}},
		{"max_retries 1", ", max_retries: 1", sim.StateFailed, []string{"0-10m FAILED_PREEMPTED", "20m-30m FAILED_PREEMPTED"}},
		{"checkpoint_every longer than the run restarts from zero", ", checkpoint_every: 2h", sim.StateCompleted, []string{
			"0-10m FAILED_PREEMPTED", "20m-30m FAILED_PREEMPTED", "40m-1h40m COMPLETED"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc, err := scenario.Parse("exit.yaml", []byte(strings.Replace(base, "%s", c.extra, 1)))
			if err != nil {
				t.Fatal(err)
			}
			res := runAttempts(t, sc)
			j := job(t, res, "low")
			if j.State != c.state || !sameList(attempts(t, res, "low"), c.attempts) {
				t.Errorf("low ended %s with attempts %v; want %s with %v", j.State, attempts(t, res, "low"), c.state, c.attempts)
			}
			failed := 0
			if c.state == sim.StateFailed {
				failed = 1
			}
			if m := res.Metrics; m.Failed != failed || m.Unfinished != 0 || m.Completed != 3-failed {
				t.Errorf("metrics: %d failed, %d completed, %d unfinished", m.Failed, m.Completed, m.Unfinished)
			}
		})
	}
}

// TestVictimLosesLeastWork: the simulator tells the core when each task
// last checkpointed, so reclaim takes the victim that loses the least work:
// at 25m, old (checkpointed at 20m) loses 5 minutes and new (no periodic
// checkpoints, running since 15m) would lose 10, so old goes although it
// is the older task.
func TestVictimLosesLeastWork(t *testing.T) {
	res := runYAML(t, `pools:
  - {name: pool, policy: quota, quota: 2, nodes: [{name: n, slots: 2}]}
jobs:
  - {name: old, priority_class: LOW, duration: 2h, checkpoint_every: 10m}
  - {name: new, priority_class: LOW, submit: 15m, duration: 2h}
  - {name: normal, priority_class: NORMAL, submit: 25m, duration: 1h}
`)
	if o, n := job(t, res, "old").Preemptions, job(t, res, "new").Preemptions; o != 1 || n != 0 {
		t.Errorf("old preempted %d times, new %d; want old once (it loses 5 minutes, new would lose 10)", o, n)
	}
}

// TestQuotaElasticReclaim: nlp, below its quota, gets its 2 GPUs from
// vision's grown elastic job by a shrink, since evicting the one task
// would take vision below its quota; the job grows back once nlp's ends.
func TestQuotaElasticReclaim(t *testing.T) {
	res := runQuota(t, "quota-elastic-reclaim.yaml", sim.Settings{})
	checkProjects(t, res, []projectStep{
		{"vision's elastic job takes the idle node", 0, map[string]int{"vision": 4, "nlp": 0}, nil},
		{"nlp's job starts once the shrink's checkpoint lands", 10*minute + 10, map[string]int{"vision": 2, "nlp": 2}, nil},
		{"vision grows back when nlp's job ends", hour + 10*minute + 10, map[string]int{"vision": 4, "nlp": 0}, nil},
	})
	if n := res.Metrics.Preemptions; n != 0 {
		t.Errorf("%d preemptions, want none: the reclaim is a resize", n)
	}
}
