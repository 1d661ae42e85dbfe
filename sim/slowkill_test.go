package sim

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/scenario"
)

// slowKillSrc: a holds n1's 4 slots from 0 and is killed at 100 (or
// reaches its time limit of 100: LIMIT); b, submitted at 10, waits for
// them. A kill that takes 5 s (slow_kills, SLOW) holds them until 105,
// killing, and b starts then.
const slowKillSrc = `pools:
  - name: default
    policy: fifo
    nodes: [{name: n1, slots: 4}]
jobs:
  - {name: a, submit: 0, slots: 4, duration: 1000LIMITSLOW}
  - {name: b, submit: 10, slots: 4, duration: 50}
`

// TestSlowKills: a kill that takes its time holds the slots of the
// attempt it ends until its end, whether a user's kill or the time
// limit's, and only for the attempt the script names; the job a user
// killed ends at the kill all the same.
func TestSlowKills(t *testing.T) {
	const kill = "events:\n  - {at: 100, kill: a}\n"
	// log is the decisions with a's attempt ending at end, how, and b
	// starting then: a kill line at 100 for a user's kill.
	log := func(end, how string) string {
		out := "0 start a task=0 attempt=1 nodes=n1:4\n"
		if how == "killed" {
			out += "100 kill a\n"
		}
		b := map[string]string{"100": "150", "105": "155"}[end]
		return out + end + " end a task=0 attempt=1 how=" + how + "\n" + end + " start b task=0 attempt=1 nodes=n1:4\n" +
			b + " end b task=0 attempt=1 how=completed\n"
	}
	for _, c := range []struct{ name, limit, slow, events, want string }{
		{"a kill", "", "", kill, log("100", "killed")},
		{"a slow kill", "", ", slow_kills: [{task: 0, after: 5}]", kill, log("105", "killed")},
		{"another attempt's", "", ", slow_kills: [{task: 0, attempt: 2, after: 5}]", kill, log("100", "killed")},
		{"a time limit", ", time_limit: 100", "", "", log("100", "timelimit")},
		{"a slow time limit", ", time_limit: 100", ", slow_kills: [{task: 0, after: 5}]", "", log("105", "timelimit")},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := strings.NewReplacer("LIMIT", c.limit, "SLOW", c.slow).Replace(slowKillSrc) + c.events
			checkReplayLog(t, src, c.want)
		})
	}
}

// killResizeSrc: e starts on 1 of its 4 slots beside b, grows when b
// ends at 50 (a resize: its checkpoint takes 30 s) and is killed at 60,
// its resize in flight. NODES places the growth: on n1 only, nothing of
// the old placement drains; across n1 and n2, a part drains.
const killResizeSrc = `pools:
  - name: default
    policy: fifo
    checkpoint_cost: 30
    nodes: [NODES]
jobs:
  - {name: b, submit: 0, slots: BSLOTS, duration: 50}
  - {name: e, submit: 1, slots: 4, min_slots: 1, duration: 1000SLOW}
events:
  - {at: 60, kill: e}
`

// TestKillResizeCheckpointed: a kill that abandons a resize counts in
// the metrics as a landing does, whether its end came at once or took
// its time (slow_kills): the draining part of the old placement was
// checkpointing since the resize (preemption lost slot-hours), and the
// reservation it lets go of was not; where nothing drains, nothing was.
func TestKillResizeCheckpointed(t *testing.T) {
	lost := func(nodes, bSlots, slow string) float64 {
		src := strings.NewReplacer("NODES", nodes, "BSLOTS", bSlots, "SLOW", slow).Replace(killResizeSrc)
		sc, err := scenario.Parse("s.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		in, err := FromScenario(sc, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(in, Options{Until: -1})
		if err != nil {
			t.Fatal(err)
		}
		if res.Metrics.Resizes != 1 || res.Metrics.Killed != 1 {
			t.Fatalf("%d resizes, %d killed; want e resized once, then killed", res.Metrics.Resizes, res.Metrics.Killed)
		}
		return res.Metrics.PreemptionLostSlotHours
	}
	const slow = ", slow_kills: [{task: 0, after: 5}]"
	for _, c := range []struct {
		name, nodes, bSlots string
		drains              bool
	}{
		{"in place", "{name: n1, slots: 4}", "3", false},
		{"a part drains", "{name: n1, slots: 2}, {name: n2, slots: 4}", "4", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			atOnce, slowly := lost(c.nodes, c.bSlots, ""), lost(c.nodes, c.bSlots, slow)
			if atOnce != slowly || (atOnce > 0) != c.drains {
				t.Errorf("checkpointed %g slot-hours at once, %g slowly; want the same, more than none %t", atOnce, slowly, c.drains)
			}
		})
	}
}
