package sim_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

// The scenarios under testdata/mechanisms show the mechanisms that apply
// across policies or come with the multifactor policy: seed 003's fair
// share and decay, QOS, licenses, GPU types, topology, thrash guards and
// elastic jobs. Each test checks what its scenario is there to show;
// TestMechanismsGolden pins the whole results.

const mechDir = "../testdata/mechanisms"

// runMech replays a scenario of testdata/mechanisms with the timeline and
// attempts on, and inspect (if not nil) watching every pass.
func runMech(t *testing.T, name string, inspect func(int64, *sched.Snapshot, *sched.Plan)) *sim.Result {
	t.Helper()
	w, err := sim.LoadWorkload(filepath.Join(mechDir, name), sim.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rp, err := w.Open(sim.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(rp.Input, sim.Options{Until: -1, Timeline: true, Attempts: true, Inspect: inspect})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestMechanismsGolden(t *testing.T) {
	checkGoldens(t, mechDir, "TestMechanismsGolden", func(t *testing.T, f string) *sim.Result {
		return runMech(t, filepath.Base(f), nil)
	})
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// pendingPriorities records, for each time and job, the priority the first
// pass at that time reports for the job while it waits.
type pendingPriorities map[int64]map[string]float64

func (pp pendingPriorities) inspect(now int64, s *sched.Snapshot, p *sched.Plan) {
	if pp[now] == nil {
		pp[now] = map[string]float64{}
	}
	for _, pe := range p.Pending {
		if _, seen := pp[now][s.Jobs[pe.Job].ID]; !seen {
			pp[now][s.Jobs[pe.Job].ID] = pe.Priority
		}
	}
}

// TestSeed003JackJill replays seed 003's walkthrough: the order jill,
// jill, jill, jack, with the priorities the seed prints at each step,
// both while the jobs wait and in the result (each job's priority when it
// started).
func TestSeed003JackJill(t *testing.T) {
	pp := pendingPriorities{}
	res := runMech(t, "seed003-jack-jill.yaml", pp.inspect)
	steps := []struct {
		at         int64
		runs       string
		jack, jill float64 // P while waiting
		started    float64 // the priority the job that runs started with
	}{
		{0, "jill-1", 0.25, 0.75, 0.75},
		{6 * hour, "jill-2", 0.25, 0.5, 0.5},
		{12 * hour, "jill-3", 0.25, 0.25, 0.25},
		{18 * hour, "jack-1", 0.25, 0, 0.25},
	}
	for _, st := range steps {
		j := job(t, res, st.runs)
		if j.Start == nil || *j.Start != st.at {
			t.Errorf("%s started at %s, want %s", st.runs, startOf(j), sim.Clock(st.at))
		}
		if j.Priority == nil || !near(*j.Priority, st.started) {
			t.Errorf("%s started with priority %v, want %v", st.runs, j.Priority, st.started)
		}
		for name, p := range pp[st.at] {
			want := st.jill
			if strings.HasPrefix(name, "jack") {
				want = st.jack
			}
			if !near(p, want) {
				t.Errorf("at %s %s waits with priority %v, want %v", sim.Clock(st.at), name, p, want)
			}
		}
		if len(pp[st.at]) == 0 {
			t.Errorf("no job waits at %s", sim.Clock(st.at))
		}
	}
	var order []string
	for _, e := range res.Timeline {
		for name := range e.Slots {
			if len(order) == 0 || order[len(order)-1] != name {
				order = append(order, name)
			}
		}
	}
	if got := strings.Join(order[:4], ","); got != "jill-1,jill-2,jill-3,jack-1" {
		t.Errorf("order %s, want jill-1,jill-2,jill-3,jack-1", got)
	}
	// At the end of the day each used its share: jill 72 and jack 24 of
	// the 96 node-hours, and then day 0 decays once.
	if got := pp[24*hour]["jack-2"]; !near(got, 0.25-0.25*0.7) {
		t.Errorf("at 24h jack waits with %v, want 0.25 − 0.7·0.25 = 0.075", got)
	}
	if got := pp[24*hour]["jill-5"]; !near(got, 0.75-0.75*0.7) {
		t.Errorf("at 24h jill waits with %v, want 0.75 − 0.7·0.75 = 0.225", got)
	}
	if res.Metrics.Completed != 12 {
		t.Errorf("%d jobs completed, want all 12", res.Metrics.Completed)
	}
}

// TestSeed003Decay checks the seed's decay figures through the
// simulator: jill's day of 72 node-hours (U = 0.75) counts 0.525 a day
// later and 0.3675 two days later, so her waiting jobs have priority
// 0.225 and then 0.3825.
func TestSeed003Decay(t *testing.T) {
	usage := map[int64]float64{}
	pp := pendingPriorities{}
	res := runMech(t, "seed003-decay.yaml", func(now int64, s *sched.Snapshot, p *sched.Plan) {
		for _, a := range s.Accounts {
			if a.Name == "jill" {
				usage[now] = a.Usage
			}
		}
		pp.inspect(now, s, p)
	})
	for _, st := range []struct {
		at          int64
		usage, prio float64
	}{{0, 0, 0.75}, {24 * hour, 0.525, 0.225}, {48 * hour, 0.3675, 0.3825}} {
		if !near(usage[st.at], st.usage) {
			t.Errorf("at %s jill's usage is %v, want %v", sim.Clock(st.at), usage[st.at], st.usage)
		}
		for name, p := range pp[st.at] {
			if strings.HasPrefix(name, "probe") && !near(p, st.prio) {
				t.Errorf("at %s %s waits with priority %v, want %v", sim.Clock(st.at), name, p, st.prio)
			}
		}
	}
	if _, ok := pp[48*hour]["probe-day2"]; !ok {
		t.Errorf("probe-day2 does not wait at 48h: %v", pp[48*hour])
	}
	// The probes run once jack's job ends at 72h, when day 0 counts 0.7³.
	p := job(t, res, "probe-day1")
	if p.Start == nil || *p.Start != 72*hour || p.Priority == nil || !near(*p.Priority, 0.75-0.75*0.7*0.7*0.7) {
		t.Errorf("probe-day1 = start %s priority %v, want 72h and 0.75 − 0.75·0.7³", startOf(p), p.Priority)
	}
	if len(res.Accounts) != 2 || res.Accounts[1].Name != "jill" {
		t.Fatalf("accounts %+v, want jack and jill", res.Accounts)
	}
}
