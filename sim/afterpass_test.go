package sim_test

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

// afterPassScenario: two jobs in the same second on a 4-slot node, the
// second more important and too large to run beside the first.
const afterPassScenario = `
pools:
  - name: gpu
    policy: priority
    nodes: [{name: g, slots: 4}]
jobs:
  - {name: low, submit: 10, slots: 2, duration: 100, priority: 50}
  - {name: high, submit: 10, slots: 4, duration: 100, priority: 10%s}
`

// TestAfterPass: without after_pass the second's jobs are submitted
// together and the more important one starts first; with it the instant
// settles before the second job, so the first has started, as on a live
// master that ran a pass between the two submissions. The field survives
// scenario.Marshal and Parse.
func TestAfterPass(t *testing.T) {
	for _, tc := range []struct {
		name, extra  string
		first, other string
	}{
		{"together", "", "high", "low"},
		{"after a pass", ", after_pass: true", "low", "high"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, data := roundTrip(t, "after.yaml", strings.Replace(afterPassScenario, "%s", tc.extra, 1))
			if got := sc.Jobs[1].AfterPass; got != (tc.extra != "") {
				t.Fatalf("after_pass %v after a round trip:\n%s", got, data)
			}
			if start := runToEnd(t, sc); start[tc.first] != 10 || start[tc.other] != 110 {
				t.Errorf("starts %v, want %s at 10 and %s at 110", start, tc.first, tc.other)
			}
		})
	}
}

// TestAfterPassAlone: after_pass on a job alone in its second is no
// mistake. The ends due in that second come before it, and with the flag
// their pass runs before the job is submitted: the job already waiting
// gets the freed slots, as on a live master that heard of the end before
// the submission, which the what-if export marks so.
func TestAfterPassAlone(t *testing.T) {
	const src = `
pools:
  - name: gpu
    policy: priority
    nodes: [{name: g, slots: 4}]
jobs:
  - {name: first, submit: 0, slots: 4, duration: 100, priority: 50}
  - {name: waiting, submit: 10, slots: 4, duration: 100, priority: 50}
  - {name: lone, submit: 100, slots: 4, duration: 100, priority: 10%s}
`
	for _, tc := range []struct {
		name, extra string
		at100       string
	}{
		{"without the flag the more important job takes the freed slots", "", "lone"},
		{"with it the waiting job has them first", ", after_pass: true", "waiting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, _ := roundTrip(t, "alone.yaml", strings.Replace(src, "%s", tc.extra, 1))
			for name, at := range runToEnd(t, sc) {
				if (name == tc.at100) != (at == 100) && name != "first" {
					t.Errorf("%s started at %d; want %s at 100", name, at, tc.at100)
				}
			}
		})
	}
}

// TestAfterPassEvent: a scripted event with after_pass comes after the
// passes of its second so far, as on a live master that ran a pass
// between it and the event before it. Two nodes drained in one second:
// a's drain leaves wide (5 slots) 4 to reserve, so short may backfill on
// b, and does when a pass runs before b's drain; drained together, both
// are drained before short is considered, and it waits for the resume
// and wide. The field survives scenario.Marshal and Parse.
func TestAfterPassEvent(t *testing.T) {
	const src = `
pools:
  - name: gpu
    policy: backfill
    nodes: [{name: a, slots: 4}, {name: b, slots: 1}]
jobs:
  - {name: long, submit: 0, slots: 3, duration: 1000, time_limit: 1000}
  - {name: wide, submit: 10, slots: 5, duration: 100, time_limit: 200}
  - {name: short, submit: 20, slots: 1, duration: 300, time_limit: 2000}
events:
  - {at: 100, drain: a}
  - {at: 100, drain: b%s}
  - {at: 2000, resume: a}
  - {at: 2000, resume: b}
`
	for _, tc := range []struct {
		name, extra string
		short       int64
	}{
		{"drained together", "", 2100},
		{"a pass between", ", after_pass: true", 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, data := roundTrip(t, "drains.yaml", strings.Replace(src, "%s", tc.extra, 1))
			if got := sc.Events[1].AfterPass; got != (tc.extra != "") {
				t.Fatalf("after_pass %v after a round trip:\n%s", got, data)
			}
			if at := runToEnd(t, sc)["short"]; at != tc.short {
				t.Errorf("short started at %d, want %d", at, tc.short)
			}
		})
	}
}

// roundTrip parses src as a scenario, writes it out and parses it again,
// so that a test sees what survives scenario.Marshal, and returns the
// scenario read back with the text it was read from.
func roundTrip(t *testing.T, name, src string) (*scenario.Scenario, []byte) {
	t.Helper()
	sc, err := scenario.Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	data, err := scenario.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	if sc, err = scenario.Parse("again.yaml", data); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return sc, data
}

// runToEnd runs sc to its end and returns when each job started (-1:
// never).
func runToEnd(t *testing.T, sc *scenario.Scenario) map[string]int64 {
	t.Helper()
	in, err := sim.FromScenario(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(in, sim.Options{Until: -1})
	if err != nil {
		t.Fatal(err)
	}
	start := map[string]int64{}
	for _, j := range res.Jobs {
		start[j.Name] = -1
		if j.Start != nil {
			start[j.Name] = *j.Start
		}
	}
	return start
}
