package sim_test

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

// TestEventBefore: a scripted event may come before a submission of its
// instant (before), as on a live master that took a node's resume and
// then a submission in the same second. Node g is drained from the start
// and resumed at 100, when high (more important) is submitted; w waits
// for it since 10. After the second's submissions (the default) the
// resume finds both waiting and high starts; before high, with a pass
// between (high's after_pass), w starts and high waits. The field
// survives scenario.Marshal and Parse.
func TestEventBefore(t *testing.T) {
	const src = `
pools:
  - name: gpu
    policy: priority
    nodes: [{name: g, slots: 4}]
jobs:
  - {name: w, submit: 10, slots: 4, duration: 100, priority: 50}
  - {name: high, submit: 100, slots: 4, duration: 100, priority: 10%s}
events:
  - {at: 0, drain: g}
  - {at: 100, resume: g%s}
`
	for _, tc := range []struct {
		name, job, event string
		w, high          int64
	}{
		{"after the submissions", "", "", 200, 100},
		{"before, no pass between", "", ", before: high", 200, 100},
		{"before, a pass between", ", after_pass: true", ", before: high", 100, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(strings.Replace(src, "%s", tc.job, 1), "%s", tc.event, 1)
			sc, data := roundTrip(t, "before.yaml", text)
			if got, want := sc.Events[1].Before, strings.TrimPrefix(tc.event, ", before: "); got != want {
				t.Fatalf("before %q after a round trip, want %q:\n%s", got, want, data)
			}
			want := map[string]int64{"w": tc.w, "high": tc.high}
			for name, at := range runToEnd(t, sc) {
				if at != want[name] {
					t.Errorf("%s started at %d, want %d", name, at, want[name])
				}
			}
		})
	}
}

// TestEventBeforeNeverSubmitted: an event made in code before a job the
// workload submits at another time, or never, fails the run rather than
// being dropped.
func TestEventBeforeNeverSubmitted(t *testing.T) {
	for _, tc := range []struct{ name, job, want string }{
		{"another time", "w", `comes before job "w", submitted at`},
		{"never", "zzz", `comes before job "zzz", which the workload never submits`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenario.Parse("before.yaml", []byte(`
pools:
  - name: gpu
    policy: fifo
    nodes: [{name: g, slots: 4}]
jobs:
  - {name: w, submit: 10, slots: 4, duration: 100}
`))
			if err != nil {
				t.Fatal(err)
			}
			in, err := sim.FromScenario(sc, nil)
			if err != nil {
				t.Fatal(err)
			}
			in.Events = append(in.Events, sim.Event{At: 5, Kind: sim.EventNodeDrain, Node: "g", Before: tc.job})
			if _, err := sim.Run(in, sim.Options{Until: -1}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}
