package sim_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

// mechText returns a scenario of testdata/mechanisms with each pair of
// old, new strings replaced, for variants that show what a field changes.
func mechText(t *testing.T, name string, replace ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(mechDir, name))
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	for i := 0; i+1 < len(replace); i += 2 {
		if !strings.Contains(src, replace[i]) {
			t.Fatalf("%s has no %q to replace", name, replace[i])
		}
		src = strings.ReplaceAll(src, replace[i], replace[i+1])
	}
	return src
}

// pendingLog records each job's pending entries, pass by pass.
type pendingLog struct {
	at   map[int64]map[string]sched.Pending
	msgs map[int64]map[string]string
}

func newPendingLog() *pendingLog {
	return &pendingLog{at: map[int64]map[string]sched.Pending{}, msgs: map[int64]map[string]string{}}
}

func (l *pendingLog) inspect(now int64, s *sched.Snapshot, p *sched.Plan) {
	if l.at[now] == nil {
		l.at[now], l.msgs[now] = map[string]sched.Pending{}, map[string]string{}
	}
	for _, pe := range p.Pending {
		id := s.Jobs[pe.Job].ID
		l.at[now][id], l.msgs[now][id] = pe, pe.Message(s)
	}
}

// startLog records the nodes of every start, by job.
type startLog map[string][][]string

func (sl startLog) inspect(_ int64, s *sched.Snapshot, p *sched.Plan) {
	for _, st := range p.Starts {
		var nodes []string
		for _, ns := range st.Nodes {
			nodes = append(nodes, s.Nodes[ns.Node].Name)
		}
		sl[s.Jobs[st.Job].ID] = append(sl[s.Jobs[st.Job].ID], nodes)
	}
}

func startAt(t *testing.T, res *sim.Result, name string, at int64) {
	t.Helper()
	if j := job(t, res, name); j.Start == nil || *j.Start != at {
		t.Errorf("%s started at %s, want %s", name, startOf(j), sim.Clock(at))
	}
}

func TestEmergencyQOS(t *testing.T) {
	res := runMech(t, "emergency-qos.yaml", nil)
	startAt(t, res, "forecast", 31*minute)
	startAt(t, res, "report", 91*minute)
	if j := job(t, res, "training"); j.Preemptions != 4 {
		t.Errorf("training preempted %d times, want 4 (for the forecast only)", j.Preemptions)
	}
	// Without a QOS that preempts, the forecast outranks training but
	// waits for its slots like the report.
	res = runYAML(t, mechText(t, "emergency-qos.yaml", "qos: emergency}", "qos: high}"))
	if j := job(t, res, "forecast"); j.Start == nil || *j.Start < 4*hour || res.Metrics.Preemptions != 0 {
		t.Errorf("forecast of the high QOS started at %s with %d preemptions, want after training's 4h and none",
			startOf(j), res.Metrics.Preemptions)
	}
}

func TestLicenseWait(t *testing.T) {
	log := newPendingLog()
	res := runMech(t, "licenses.yaml", func(now int64, s *sched.Snapshot, p *sched.Plan) {
		log.inspect(now, s, p)
		checkLicenses(t, now, s, p)
	})
	fit, plain := log.at[10*minute]["fit"], log.at[10*minute]["plain"]
	if fit.Reason != sched.ReasonLicense || fit.LicenseNeed != 2 || fit.LicenseFree != 1 {
		t.Errorf("at 10m fit waits with %+v, want reason license, needing 2 with 1 free", fit)
	}
	if msg := log.msgs[10*minute]["fit"]; !strings.Contains(msg, "matlab") {
		t.Errorf("fit's message %q does not name the license", msg)
	}
	if plain.Reason != sched.ReasonBehind {
		t.Errorf("at 10m plain waits with %v, want behind (the fit blocks it)", plain.Reason)
	}
	startAt(t, res, "fit", 2*hour)
	startAt(t, res, "plain", 2*hour)
}

// checkLicenses fails when a plan would hold more of a license than
// exist: running tasks (checkpointing ones included) and the plan's starts.
func checkLicenses(t *testing.T, now int64, s *sched.Snapshot, p *sched.Plan) {
	t.Helper()
	held := make([]int, len(s.Licenses))
	add := func(job int) {
		for _, u := range s.Jobs[job].Licenses {
			held[u.License] += u.Count
		}
	}
	for _, a := range s.Allocs {
		if !a.Moving {
			add(a.Job)
		}
	}
	for _, st := range p.Starts {
		add(st.Job)
	}
	for i, l := range s.Licenses {
		if held[i] > l.Total {
			t.Errorf("t=%d: license %s: %d held after the plan, %d exist", now, l.Name, held[i], l.Total)
		}
	}
}

func TestGPUTypes(t *testing.T) {
	starts := startLog{}
	res := runMech(t, "gpu-types.yaml", starts.inspect)
	for _, nodes := range starts["h100-train"] {
		for _, n := range nodes {
			if !strings.HasPrefix(n, "h-") {
				t.Errorf("h100-train placed on %s, not an h100 node", n)
			}
		}
	}
	if got := len(starts["h100-train"]); got != 3 {
		t.Errorf("h100-train started %d tasks, want 3", got)
	}
	if got := starts["any"]; len(got) != 1 || !strings.HasPrefix(got[0][0], "a-") {
		t.Errorf("any placed on %v, want an a100 node", got)
	}
	if got := slotsAt(res, 0)["h100-train"]; got != 8 {
		t.Errorf("h100-train holds %d GPUs at 0, want 8 (the third task waits for an h100 node)", got)
	}
	// A type no node of the pool has: the scenario format rejects it up
	// front, and the core, asked anyway, says gpu_type.
	in := &sim.Input{Pools: []sim.Pool{{Pool: sched.Pool{Name: "gpu", Policy: sched.PolicyPriority},
		Nodes: []sched.Node{{Name: "h-1", Slots: 4, GPU: "h100", ZeroSlotLimit: 1}}}},
		Jobs: sim.NewSliceSource([]sim.JobSpec{{Name: "b200-job", Tasks: 1, MaxConcurrent: 1, Slots: 1, Duration: hour,
			Priority: 42, Weight: 1, GPU: "b200"}})}
	res, err := sim.Run(in, sim.Options{Until: -1})
	if err != nil {
		t.Fatal(err)
	}
	if j := job(t, res, "b200-job"); j.Start != nil || !strings.Contains(j.Reason, "no node of type b200 in pool gpu") {
		t.Errorf("b200-job = %+v, want it waiting: no node of type b200", j)
	}
}

func TestTopology(t *testing.T) {
	log, starts := newPendingLog(), startLog{}
	res := runMech(t, "topology.yaml", func(now int64, s *sched.Snapshot, p *sched.Plan) {
		log.inspect(now, s, p)
		starts.inspect(now, s, p)
	})
	if got := log.at[0]["gang"].Reason; got != sched.ReasonTopology {
		t.Errorf("at 0 the gang waits with %v, want topology", got)
	}
	startAt(t, res, "gang", 2*hour)
	if got := starts["gang"]; len(got) != 1 || !slices.Equal(got[0], []string{"a-1", "a-2", "a-3"}) {
		t.Errorf("gang placed on %v, want switch a's three nodes", got)
	}
	for name, src := range map[string]string{
		"preferred": mechText(t, "topology.yaml", "topology: required", "topology: prefer"),
		"no switch": mechText(t, "topology.yaml", ", labels: {switch: a}", "", ", labels: {switch: b}", ""),
	} {
		if j := job(t, runYAML(t, src), "gang"); j.Start == nil || *j.Start != 0 {
			t.Errorf("%s: gang started at %s, want 0 across the switches", name, startOf(j))
		}
	}
}

// TestThrashGuards shows each guard changing the outcome: the scenario
// with the guard, and the same without it.
func TestThrashGuards(t *testing.T) {
	t.Run("min_run_time", func(t *testing.T) {
		res := runMech(t, "thrash-min-run-time.yaml", nil)
		startAt(t, res, "urgent", 31*minute)
		res = runYAML(t, mechText(t, "thrash-min-run-time.yaml", "    min_run_time: 30m\n", ""))
		startAt(t, res, "urgent", 11*minute)
	})
	t.Run("preempt_budget", func(t *testing.T) {
		res := runMech(t, "thrash-budget.yaml", nil)
		startAt(t, res, "urgent-1", 11*minute)
		startAt(t, res, "urgent-2", 71*minute)
		res = runYAML(t, mechText(t, "thrash-budget.yaml", ", preempt_budget: 2", ""))
		startAt(t, res, "urgent-2", 21*minute)
	})
	t.Run("least work lost", func(t *testing.T) {
		res := runMech(t, "thrash-least-lost.yaml", nil)
		if o, y := job(t, res, "old"), job(t, res, "young"); o.Preemptions != 1 || y.Preemptions != 0 {
			t.Errorf("preemptions old %d young %d, want the old task (5m lost) rather than the young one (25m)", o.Preemptions, y.Preemptions)
		}
		if got := res.Metrics.LostWorkSlotHours; !near(got, round6(5.0/60)) {
			t.Errorf("lost work %v slot-hours, want 5 minutes", got)
		}
		if a := job(t, res, "old").Attempts[0]; a.LostWork != 5*minute {
			t.Errorf("old's first attempt lost %ds, want 300", a.LostWork)
		}
		res = runYAML(t, mechText(t, "thrash-least-lost.yaml", ", checkpoint_every: 30m", ""))
		if o, y := job(t, res, "old"), job(t, res, "young"); o.Preemptions != 0 || y.Preemptions != 1 {
			t.Errorf("without checkpoints: preemptions old %d young %d, want the newest task", o.Preemptions, y.Preemptions)
		}
		if got := res.Metrics.LostWorkSlotHours; got != 0 {
			t.Errorf("without checkpoints %v slot-hours lost, want 0: a task checkpoints when asked", got)
		}
	})
}

func round6(x float64) float64 { return float64(int64(x*1e6+0.5)) / 1e6 }

// TestSeed002Elastic: the elastic job starts at 2 of its 8 GPUs (8 and 4
// do not fit), doubles to 4 at 1h and to 8 at 2h, and finishes its 32
// GPU-hours at 5h15m.
func TestSeed002Elastic(t *testing.T) {
	type resize struct {
		at    int64
		slots int
	}
	var started []int
	var resizes []resize
	res := runMech(t, "seed002-elastic.yaml", func(now int64, s *sched.Snapshot, p *sched.Plan) {
		for _, st := range p.Starts {
			if s.Jobs[st.Job].ID == "elastic" {
				started = append(started, sched.Slots(st.Nodes))
			}
		}
		for _, r := range p.Resizes {
			resizes = append(resizes, resize{now, sched.Slots(r.Nodes)})
		}
	})
	if !slices.Equal(started, []int{2}) {
		t.Errorf("elastic started with %v slots, want one task of 2", started)
	}
	if want := []resize{{hour, 4}, {2 * hour, 8}}; !slices.Equal(resizes, want) {
		t.Errorf("resizes %v, want %v", resizes, want)
	}
	for _, st := range []struct {
		at    int64
		slots int
	}{{0, 2}, {hour, 4}, {2 * hour, 8}} {
		if got := slotsAt(res, st.at)["elastic"]; got != st.slots {
			t.Errorf("at %s elastic holds %d, want %d", sim.Clock(st.at), got, st.slots)
		}
	}
	if j := job(t, res, "elastic"); j.End == nil || *j.End != 5*hour+15*minute || j.Preemptions != 0 {
		t.Errorf("elastic = %+v, want it done at 5h15m without preemptions", j)
	}
	if res.Metrics.Resizes != 2 {
		t.Errorf("%d resizes in the metrics, want 2", res.Metrics.Resizes)
	}
}

// runYAMLInspect replays a scenario given as text, with inspect watching
// every pass.
func runYAMLInspect(t *testing.T, src string, inspect func(int64, *sched.Snapshot, *sched.Plan)) *sim.Result {
	t.Helper()
	sc, err := scenario.Parse("inline.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	in, err := sim.FromScenario(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(in, sim.Options{Until: -1, Timeline: true, Inspect: inspect})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
