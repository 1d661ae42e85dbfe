package sched

import (
	"math"
	"strings"
	"testing"
)

// Seed 003's fair-share walkthrough. Jack bought one of the four nodes of a
// Raspberry Pi cluster and jill three, so their shares S are 0.25 and 0.75.
// A job's priority is P = S − U, where U is the user's decayed usage as a
// share of the cluster's capacity: usage is counted per day, a day on four
// nodes offers 24 × 4 = 96 node-hours, and yesterday's usage counts
// D = 0.7 times, the day before D² times, and so on.
//
// The seed writes U = S·(U(today) + D·U(today−1) + ...), with each U(day)
// the share of the user's own part of the cluster that was used; S times
// that share is the share of the whole cluster, which is how its own
// example counts (jill's six hours on all four nodes are U = 24/96 = 0.25,
// not 0.75 × 0.25). Allot's Account.Usage is that share of the whole
// cluster, so the multifactor pool below, with only the fair-share weight
// set to 1 in classic mode, computes exactly P = S − U.

const (
	hour = int64(3600)
	day  = 24 * hour
)

// seedDecay is the seed's decay: usage counted per day, D = 0.7 per day.
var seedDecay = Decay{Period: day, PerPeriod: 0.7}

// piCluster builds the four-node cluster with jack's and jill's accounts
// and six jobs each asking for all four nodes for six hours, all
// submitted at once (jack's first, so that plain FIFO would favour him).
func piCluster(t *testing.T) (b *cluster, jack, jill int, jackJobs, jillJobs []int) {
	b = newCluster(t).pool("pi", PolicyMultifactor,
		withMultifactor(Multifactor{FairShare: 1, FairShareMode: FairShareClassic})).nodes("pi", 4, 1, "")
	jack = b.account("jack", -1, 1, 0)
	jill = b.account("jill", -1, 3, 0)
	for i := range 6 {
		jackJobs = append(jackJobs, b.job("jack-"+string(rune('1'+i)), acct(jack), slots(4), timeLimit(6*hour)))
	}
	for i := range 6 {
		jillJobs = append(jillJobs, b.job("jill-"+string(rune('1'+i)), acct(jill), slots(4), timeLimit(6*hour)))
	}
	return b, jack, jill, jackJobs, jillJobs
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestSeed003JackJill replays the seed's six-hour steps. At each step one
// job runs on all four nodes; when it ends its 24 node-hours are charged to
// its user as 24/96 = 0.25 of the day's capacity. All four steps fall on
// the same day, so nothing decays between them (the seed decays per day).
//
//	step  P(jack)            P(jill)                 runs
//	1     0.25 − 0 = 0.25    0.75 − 0     = 0.75     jill
//	2     0.25               0.75 − 24/96 = 0.5      jill
//	3     0.25               0.75 − 48/96 = 0.25     jill (tie: larger share)
//	4     0.25               0.75 − 72/96 = 0        jack
//	end   0.25 − 24/96 = 0   0                       (a tie again)
func TestSeed003JackJill(t *testing.T) {
	b, jack, jill, jackJobs, jillJobs := piCluster(t)
	s := b.snapshot()
	steps := []struct {
		runs       string
		jack, jill float64
	}{
		{"jill", 0.25, 0.75},
		{"jill", 0.25, 0.5},
		{"jill", 0.25, 0.25},
		{"jack", 0.25, 0},
	}
	var ran []string
	for i, st := range steps {
		s.Now = int64(i) * 6 * hour
		p := mustSchedule(t, s)
		if len(p.Starts) != 1 || Slots(p.Starts[0].Nodes) != 4 {
			t.Fatalf("step %d: want one start on all four nodes\n%s", i+1, fmtPlan(s, &p))
		}
		who := s.Jobs[p.Starts[0].Job].ID[:4]
		ran = append(ran, who)
		if who != st.runs {
			t.Errorf("step %d: %s runs, want %s\n%s", i+1, who, st.runs, fmtPlan(s, &p))
		}
		// Every waiting job reports its user's priority.
		for _, set := range []struct {
			jobs []int
			want float64
		}{{jackJobs, st.jack}, {jillJobs, st.jill}} {
			for _, j := range set.jobs {
				if s.Jobs[j].Waiting == 0 || j == p.Starts[0].Job {
					continue
				}
				pe, ok := pendingOf(&p, j)
				if !ok || !near(pe.Priority, set.want) {
					t.Errorf("step %d: %s pending priority %v (found %v), want %v", i+1, s.Jobs[j].ID, pe.Priority, ok, set.want)
				}
			}
		}
		// The job runs its six hours and is charged when it ends.
		s = applyPlan(s, &p)
		s.Allocs = s.Allocs[:0]
		a := s.Jobs[p.Starts[0].Job].Account
		s.Accounts[a].Usage = seedDecay.Charge(s.Accounts[a].Usage, 0, float64(4*6*hour), 4)
	}
	if got := strings.Join(ran, ","); got != "jill,jill,jill,jack" {
		t.Fatalf("order %s, want jill,jill,jill,jack", got)
	}
	// End of the day: the cluster was shared 72/24 node-hours, as owned,
	// and both priorities are 0.
	s.Now = 24 * hour
	f, err := PriorityFactors(s)
	if err != nil {
		t.Fatal(err)
	}
	if !near(s.Accounts[jill].Usage, 0.75) || !near(s.Accounts[jack].Usage, 0.25) {
		t.Fatalf("usage jill %v jack %v, want 0.75 and 0.25", s.Accounts[jill].Usage, s.Accounts[jack].Usage)
	}
	if !near(f[jackJobs[1]].Priority, 0) || !near(f[jillJobs[3]].Priority, 0) {
		t.Fatalf("end of day priorities jack %v jill %v, want 0 and 0", f[jackJobs[1]].Priority, f[jillJobs[3]].Priority)
	}
	// The tie goes to the larger share again.
	p := mustSchedule(t, s)
	if len(p.Starts) != 1 || s.Jobs[p.Starts[0].Job].Account != jill {
		t.Fatalf("tie at 0 should go to jill\n%s", fmtPlan(s, &p))
	}
}

// TestSeed003Decay checks the seed's decay figures. Jill runs on her three
// nodes all day: 72 of 96 node-hours, U = 0.75 = S, so P = 0. A day later
// that usage counts D = 0.7 times: 0.525, P = 0.225; two days later D² =
// 0.49 times: 0.3675, P = 0.3825.
func TestSeed003Decay(t *testing.T) {
	u := UsageShare(float64(3*24*hour), 4, day)
	if !near(u, 0.75) {
		t.Fatalf("today's usage %v, want 0.75", u)
	}
	steps := []struct {
		elapsed     int64
		usage, prio float64
	}{
		{0, 0.75, 0},
		{day, 0.525, 0.225},
		{2 * day, 0.3675, 0.3825},
	}
	for _, st := range steps {
		got := DecayUsage(u, seedDecay, st.elapsed)
		if !near(got, st.usage) {
			t.Errorf("after %d days: usage %v, want %v", st.elapsed/day, got, st.usage)
		}
		b := newCluster(t).pool("pi", PolicyMultifactor,
			withMultifactor(Multifactor{FairShare: 1, FairShareMode: FairShareClassic})).nodes("pi", 4, 1, "")
		b.account("jack", -1, 1, 0)
		jill := b.account("jill", -1, 3, got)
		hog := b.job("hog", acct(jill), slots(4), waiting(0))
		b.running(hog, on("pi-1", 1), on("pi-2", 1), on("pi-3", 1), on("pi-4", 1))
		j := b.job("next", acct(jill))
		s := b.snapshot()
		p := mustSchedule(t, s)
		pe := mustPending(t, s, &p, j, ReasonNoCapacity)
		if !near(pe.Priority, st.prio) {
			t.Errorf("after %d days: priority %v, want %v", st.elapsed/day, pe.Priority, st.prio)
		}
		if want := "priority " + fmtPriority(st.prio); !strings.HasSuffix(pe.Message(s), want) {
			t.Errorf("message %q does not end with %q", pe.Message(s), want)
		}
	}
	// Charging a day at a time gives the seed's sum: 0.75 today, nothing
	// since, is 0.75·D² two days on.
	two := seedDecay.Charge(seedDecay.Charge(u, day, 0, 4), day, 0, 4)
	if !near(two, 0.3675) {
		t.Errorf("charged day by day: %v, want 0.3675", two)
	}
}

func TestDecay(t *testing.T) {
	week := 7 * day
	tests := []struct {
		name    string
		d       Decay
		elapsed int64
		want    float64
	}{
		{"per day, one day", seedDecay, day, 0.7},
		{"per day, half a day", seedDecay, day / 2, math.Sqrt(0.7)},
		{"per day, a hundred days", seedDecay, 100 * day, math.Pow(0.7, 100)},
		{"no decay with factor 1", Decay{Period: day, PerPeriod: 1}, week, 1},
		{"half-life, one half-life", Decay{Period: day, HalfLife: week}, week, 0.5},
		{"half-life, two", Decay{Period: day, HalfLife: week}, 2 * week, 0.25},
		{"no time, no decay", seedDecay, 0, 1},
		{"time backwards, no decay", seedDecay, -day, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.d.Factor(tc.elapsed); math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("Factor = %v, want %v", got, tc.want)
			}
		})
	}
	bad := []struct {
		d    Decay
		want string
	}{
		{Decay{PerPeriod: 0.7}, "period"},
		{Decay{Period: day}, "per-period factor"},
		{Decay{Period: day, PerPeriod: 1.5}, "per-period factor"},
		{Decay{Period: day, PerPeriod: 0.5, HalfLife: day}, "not both"},
		{Decay{Period: day, HalfLife: -1}, "half-life"},
	}
	for _, tc := range bad {
		err := tc.d.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one mentioning %q", tc.d, err, tc.want)
		}
		if f := tc.d.Factor(day); f != 1 {
			t.Errorf("%+v: invalid decay gives factor %v, want 1", tc.d, f)
		}
	}
	if got := UsageShare(24*float64(hour), 4, day); got != 0.25 {
		t.Errorf("UsageShare = %v, want 0.25", got)
	}
	if got := UsageShare(100, 0, day); got != 0 {
		t.Errorf("UsageShare on no capacity = %v, want 0", got)
	}
}
