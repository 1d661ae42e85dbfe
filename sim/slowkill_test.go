package sim

import (
	"strings"
	"testing"
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
