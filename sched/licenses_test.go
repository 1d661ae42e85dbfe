package sched

import (
	"strings"
	"testing"
)

func TestLicenseReasons(t *testing.T) {
	tests := []struct {
		name string
		// build adds jobs to a FIFO pool of two 8-slot nodes with the
		// license "matlab" (total 4) and returns the job to check.
		build   func(b *cluster) int
		reason  Reason
		message string
	}{
		{"waits until its licenses are free", func(b *cluster) int {
			hold := b.job("hold", lic(0, 2), waiting(0))
			b.fill(hold, "p-1", 2, 0)
			return b.job("j", lic(0, 2))
		}, ReasonLicense, "waiting for license matlab: needs 2, 0 of 4 free"},
		{"two jobs of one pass do not share licenses", func(b *cluster) int {
			b.job("first", lic(0, 3))
			return b.job("j", lic(0, 3))
		}, ReasonLicense, "waiting for license matlab: needs 3, 1 of 4 free"},
		{"several tasks of one job each hold them", func(b *cluster) int {
			return b.job("j", lic(0, 3), waiting(2))
		}, ReasonLicense, "waiting for license matlab: needs 3, 1 of 4 free"},
		{"more than exist never runs", func(b *cluster) int {
			return b.job("j", lic(0, 5))
		}, ReasonLicense, "needs 5 of license matlab per task, but only 4 exist"},
		{"a lowered total counts as none free", func(b *cluster) int {
			hold := b.job("hold", lic(0, 3), waiting(0))
			b.fill(hold, "p-1", 2, 0) // holds 6 of 4
			return b.job("j", lic(0, 1))
		}, ReasonLicense, "waiting for license matlab: needs 1, 0 of 4 free"},
		{"holders in another pool count", func(b *cluster) int {
			b.pool("q", PolicyFIFO).nodes("q", 1, 8, "")
			hold := b.job("hold", lic(0, 4), waiting(0), inPool("q"))
			b.fill(hold, "q-1", 1, 0)
			return b.job("j", lic(0, 1), inPool("p"))
		}, ReasonLicense, "waiting for license matlab: needs 1, 0 of 4 free"},
		{"a checkpointing holder still holds", func(b *cluster) int {
			hold := b.job("hold", lic(0, 4), waiting(0), preemptible())
			b.running(hold, on("p-1", 1), preempting())
			return b.job("j", lic(0, 1))
		}, ReasonLicense, "waiting for license matlab: needs 1, 0 of 4 free"},
		{"a zero-slot task waits too", func(b *cluster) int {
			b.job("first", lic(0, 4), slots(0))
			return b.job("j", lic(0, 1), slots(0))
		}, ReasonLicense, "waiting for license matlab: needs 1, 0 of 4 free"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newCluster(t).pool("p", PolicyFIFO).nodes("p", 2, 8, "")
			b.license("matlab", 4)
			j := tc.build(b)
			s := b.snapshot()
			p := mustSchedule(t, s)
			if tc.name == "several tasks of one job each hold them" {
				if n := len(startsOf(&p, j)); n != 1 {
					t.Fatalf("%d tasks started, want 1\n%s", n, fmtPlan(s, &p))
				}
			}
			pe := mustPending(t, s, &p, j, tc.reason)
			if got := pe.Message(s); got != tc.message {
				t.Errorf("message %q, want %q", got, tc.message)
			}
			if bad := licenseProblems(s, &p); len(bad) > 0 {
				t.Error(strings.Join(bad, "\n"))
			}
		})
	}
}

// TestLicenseFIFO: FIFO blocks behind a head that waits for a license, as
// for any resource; a head that can never have enough blocks nobody.
func TestLicenseFIFO(t *testing.T) {
	for _, tc := range []struct {
		name    string
		need    int
		nextRun bool
	}{{"starved head blocks", 2, false}, {"impossible head does not", 9, true}} {
		t.Run(tc.name, func(t *testing.T) {
			b := newCluster(t).pool("p", PolicyFIFO).nodes("p", 1, 8, "")
			b.license("matlab", 4)
			hold := b.job("hold", lic(0, 3), waiting(0))
			b.fill(hold, "p-1", 1, 0)
			head := b.job("head", lic(0, tc.need), submit(1))
			next := b.job("next", submit(2))
			s := b.snapshot()
			p := mustSchedule(t, s)
			mustPending(t, s, &p, head, ReasonLicense)
			if got := len(startsOf(&p, next)) == 1; got != tc.nextRun {
				t.Fatalf("next started %v, want %v\n%s", got, tc.nextRun, fmtPlan(s, &p))
			}
			if !tc.nextRun {
				if pe := mustPending(t, s, &p, next, ReasonBehind); pe.Blocker != head {
					t.Errorf("blocker %d, want head", pe.Blocker)
				}
			}
		})
	}
}

// TestLicensePreemptionFreesNone: a victim keeps its licenses until it has
// stopped, so preempting it cannot help a job short of licenses, and no
// victim is taken.
func TestLicensePreemptionFreesNone(t *testing.T) {
	b := newCluster(t).pool("p", PolicyPriority, withPreemption()).nodes("p", 1, 2, "")
	b.license("matlab", 1)
	low := b.job("low", prio(50), lic(0, 1), waiting(0), preemptible())
	b.fill(low, "p-1", 1, 0)
	filler := b.job("filler", prio(50), waiting(0), preemptible())
	b.fill(filler, "p-1", 1, 0)
	high := b.job("high", prio(1), lic(0, 1))
	s := b.snapshot()
	p := mustSchedule(t, s)
	if len(p.Preemptions) != 0 {
		t.Fatalf("preempted for a job short of a license\n%s", fmtPlan(s, &p))
	}
	mustPending(t, s, &p, high, ReasonLicense)
}

// TestLicensePriorityBackfill: lower-priority backfill may use idle slots
// but never licenses the blocked job needs.
func TestLicensePriorityBackfill(t *testing.T) {
	b := newCluster(t).pool("p", PolicyPriority, withBackfill()).nodes("p", 1, 8, "")
	b.license("matlab", 4)
	run := b.job("run", prio(1), waiting(0))
	b.running(run, on("p-1", 4))
	blocked := b.job("blocked", prio(2), slots(8), lic(0, 2))
	greedy := b.job("greedy", prio(5), lic(0, 3), preemptible())
	modest := b.job("modest", prio(6), lic(0, 2), preemptible())
	plain := b.job("plain", prio(7), preemptible())
	s := b.snapshot()
	p := mustSchedule(t, s)
	mustPending(t, s, &p, blocked, ReasonNoCapacity)
	if pe := mustPending(t, s, &p, greedy, ReasonBehind); pe.Blocker != blocked {
		t.Errorf("greedy blocked by %d", pe.Blocker)
	}
	if len(startsOf(&p, modest)) != 1 || len(startsOf(&p, plain)) != 1 {
		t.Fatalf("modest and plain should backfill\n%s", fmtPlan(s, &p))
	}
}

// TestLicenseEASY: matlab has 4 licenses; a running task holds 2 until
// t=1100. The head needs 3: it waits for the license, reserved for 1100,
// when 4 will be free. A long job taking 1 leaves the head 3 then; a
// second long one would not; a short one ends before 1100.
func TestLicenseEASY(t *testing.T) {
	for _, other := range []bool{false, true} {
		name := "holder in the pool"
		if other {
			name = "holder in another pool"
		}
		t.Run(name, func(t *testing.T) {
			b := newCluster(t).now(1000).pool("p", PolicyBackfill).nodes("p", 4, 8, "")
			b.pool("q", PolicyFIFO).nodes("q", 1, 8, "")
			b.license("matlab", 4)
			where, node := "p", "p-1"
			if other {
				where, node = "q", "q-1"
			}
			hold := b.job("hold", lic(0, 2), waiting(0), timeLimit(200), inPool(where))
			b.running(hold, start(900), on(node, 1))
			head := b.job("head", lic(0, 3), timeLimit(100), submit(0), inPool("p"))
			long1 := b.job("long1", lic(0, 1), timeLimit(500), submit(1), inPool("p"))
			long2 := b.job("long2", lic(0, 1), timeLimit(500), submit(2), inPool("p"))
			short := b.job("short", lic(0, 1), timeLimit(50), submit(3), inPool("p"))
			s := b.snapshot()
			p := mustSchedule(t, s)
			pe := mustPending(t, s, &p, head, ReasonLicense)
			if pe.At != 1100 || !strings.Contains(pe.Message(s), "reserved to start in "+HumanDuration(1100-s.Now)) {
				t.Errorf("head: at %d, %q", pe.At, pe.Message(s))
			}
			if len(startsOf(&p, long1)) != 1 || len(startsOf(&p, short)) != 1 {
				t.Fatalf("long1 and short should backfill\n%s", fmtPlan(s, &p))
			}
			mustPending(t, s, &p, long2, ReasonWouldDelay)
		})
	}
}

// TestLicenseConservative: 2 licenses, both held until t=1100. j1 needs 1
// for 100 s and is reserved at 1100; j2 needs none and starts; j3 needs 2
// for 50 s, and with j1 holding one until 1200 it is reserved at 1200.
func TestLicenseConservative(t *testing.T) {
	b := newCluster(t).now(1000).pool("p", PolicyBackfill, withReservations(ReserveConservative)).nodes("p", 4, 8, "")
	b.license("matlab", 2)
	hold := b.job("hold", lic(0, 2), waiting(0), timeLimit(200))
	b.running(hold, start(900), on("p-1", 1))
	j1 := b.job("j1", lic(0, 1), timeLimit(100), submit(1))
	j2 := b.job("j2", timeLimit(100), submit(2))
	j3 := b.job("j3", lic(0, 2), timeLimit(50), submit(3))
	s := b.snapshot()
	p := mustSchedule(t, s)
	if pe := mustPending(t, s, &p, j1, ReasonReserved); pe.At != 1100 {
		t.Errorf("j1 reserved at %d, want 1100", pe.At)
	}
	if len(startsOf(&p, j2)) != 1 {
		t.Fatalf("j2 should start\n%s", fmtPlan(s, &p))
	}
	if pe := mustPending(t, s, &p, j3, ReasonReserved); pe.At != 1200 {
		t.Errorf("j3 reserved at %d, want 1200", pe.At)
	}
}

// TestLicenseOtherPolicies: fair share and quota report the license, not
// their own reasons, for a job short of one.
func TestLicenseOtherPolicies(t *testing.T) {
	for _, pol := range []Policy{PolicyFairShare, PolicyQuota, PolicyMultifactor} {
		t.Run(string(pol), func(t *testing.T) {
			b := newCluster(t).pool("p", pol, withMultifactor(Multifactor{Age: 1, MaxAge: 100})).nodes("p", 1, 8, "")
			b.s.Projects = []Project{{Name: "team", Parent: -1, Quota: 8, OverQuotaWeight: 1}}
			b.license("matlab", 1)
			hold := b.job("hold", lic(0, 1), waiting(0))
			b.running(hold, on("p-1", 1))
			j := b.job("j", lic(0, 1), waiting(3))
			s := b.snapshot()
			p := mustSchedule(t, s)
			mustPending(t, s, &p, j, ReasonLicense)
			if len(p.Starts)+len(p.Preemptions) != 0 {
				t.Fatalf("unexpected plan\n%s", fmtPlan(s, &p))
			}
		})
	}
}

// licenseProblems checks that a plan never takes more of a license than is
// free: what allocations hold plus what the plan starts stays within the
// total, and a license already over its total gets no new holder.
func licenseProblems(s *Snapshot, p *Plan) []string {
	var bad []string
	held := make([]int, len(s.Licenses))
	for _, a := range s.Allocs {
		if a.Moving {
			continue // a moved task holds its licenses once, with its new placement
		}
		for _, u := range s.Jobs[a.Job].Licenses {
			held[u.License] += u.Count
		}
	}
	taken := make([]int, len(s.Licenses))
	for _, st := range p.Starts {
		for _, u := range s.Jobs[st.Job].Licenses {
			taken[u.License] += u.Count
		}
	}
	for l, lc := range s.Licenses {
		if taken[l] > 0 && held[l]+taken[l] > lc.Total {
			bad = append(bad, "license "+lc.Name+" over-committed by the plan")
		}
	}
	return bad
}

func TestGPUTypeReasons(t *testing.T) {
	b := newCluster(t).pool("p", PolicyFIFO).nodes("p", 1, 8, "h100").nodes("p", 1, 8, "a100")
	run := b.job("run", gpuType("h100"), waiting(0))
	b.running(run, on("p-1", 7))
	missing := b.job("missing", gpuType("v100"), submit(1))
	busy := b.job("busy", gpuType("h100"), slots(2), submit(2))
	s := b.snapshot()
	p := mustSchedule(t, s)
	pe := mustPending(t, s, &p, missing, ReasonGPUType)
	if got, want := pe.Message(s), "no node of type v100 in pool p"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	// Read against a snapshot without the job, the reason cannot name the
	// type and says so in words.
	unknown := pe
	unknown.Job = -1
	if got, want := unknown.Message(s), "no node of the requested GPU type in its pool"; got != want {
		t.Errorf("message without the job %q, want %q", got, want)
	}
	// Eight a100 slots are free, but only one h100 slot.
	pe = mustPending(t, s, &p, busy, ReasonNoCapacity)
	if got, want := pe.Message(s), "needs 2 h100 slots per task, 1 h100 slot is free in the pool"; pe.Free != 1 || got != want {
		t.Errorf("free %d, message %q, want %q", pe.Free, got, want)
	}
}
