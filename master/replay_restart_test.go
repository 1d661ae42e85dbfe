package master

import (
	"fmt"
	"strings"
	"testing"
)

// TestReplayRestart replays runs in which the master restarts mid-run,
// on its store, between two instants: a restart must not change a
// decision, so the live log still equals the simulation's, which has no
// restart. The restarts fall where the order the master keeps in memory
// decides: among equal candidates to preempt or reclaim from (the launch
// order), which preempted task resumes first, and the reservations that
// conservative backfilling carries from pass to pass.
func TestReplayRestart(t *testing.T) {
	for _, c := range restartCases() {
		if raceEnabled && (strings.HasPrefix(c.name, "random") || strings.HasSuffix(c.name, "-restarts")) {
			continue // run without the race detector (race_test.go)
		}
		t.Run(c.name, func(t *testing.T) { checkReplay(t, c) })
		c.tick, c.eager = 5, true
		t.Run(c.name+"-live", func(t *testing.T) { checkReplay(t, c) })
	}
}

// restartCases are replay cases under priority with preemption, quota
// reclaim and conservative backfilling, with restarts now and then, and
// some cases (of the policies above, fair share's resumes and a move's
// continued attempt) with a restart before every instant.
func restartCases() []replayCase {
	every := []float64{5, 60, 100, 150, 200, 210, 250, 300, 400, 600, 900}
	var out []replayCase
	for _, c := range replayCases() {
		switch c.name {
		case "priority", "quota", "conservative":
			c.name += "-restart"
			c.restarts = every
			out = append(out, c)
		}
	}
	for _, seed := range []uint64{13, 14} {
		for _, c := range randomCases(seed) {
			for _, policy := range []string{"-priority", "-quota", "-conservative"} {
				if strings.HasSuffix(c.name, policy) {
					c.name += "-restart"
					c.restarts = randomRestarts(c)
					out = append(out, c)
				}
			}
		}
	}
	// The launch order breaks the tie between b and a: equal priority
	// once b is lowered, and started together, b first as it ranked
	// first then; h preempts one of them.
	for _, size := range []int{1} {
		out = append(out, replayCase{name: fmt.Sprintf("priority-tie%d-restart", size), restarts: []float64{60},
			config: "pools:\n  - {name: default, policy: priority, preemption: true}\n", nodes: replayNodes, jobs: []rjob{
				{name: "a", slots: size, submit: 0, run: 1000, extra: lowPrio},
				{name: "b", slots: size, submit: 0, run: 1000, extra: `, "priority": 70, "preemptible": true`,
					changes: []rchange{{at: 50, priority: 80}}},
				{name: "c", slots: 7 - 2*size, submit: 0, run: 1000, extra: `, "priority": 30`},
				{name: "h", slots: size, submit: 100, run: 100, extra: `, "priority": 10`},
			}})
	}
	// A restart while a lost gang's part on n1 checkpoints (from 100, the
	// loss of n2, to 120 or 107.5): the restarted master holds it again
	// and records its end (left_ended, master/lostgangend.go), which the
	// simulator holds g and n1 until (leftTook).
	for _, c := range replayCases() {
		switch c.name {
		case "priority-node-loss-gang-checkpoints-slow":
			c.name, c.restarts = c.name+"-restart", []float64{110}
			out = append(out, c)
		case "fifo-node-loss-gang-checkpoints-slow":
			c.name, c.restarts = c.name+"-restart", []float64{105}
			out = append(out, c)
		}
	}
	always := map[string]bool{"random13-conservative": true, "random14-quota": true, "random14-priority": true,
		"random38-fair-share": true, "backfill-move-limits": true, "priority-node-loss": true}
	var cases []replayCase
	for _, seed := range []uint64{13, 14, 38} {
		cases = append(cases, randomCases(seed)...)
	}
	for _, c := range append(cases, replayCases()...) {
		if always[c.name] {
			c.name += "-restarts"
			c.restarts = everyInstant
			out = append(out, c)
		}
	}
	return out
}

// everyInstant restarts the master before every instant of a run.
var everyInstant = func() []float64 {
	out := make([]float64, 0, 3000)
	for s := 1.0; s <= 3000; s++ {
		out = append(out, s)
	}
	return out
}()

// randomRestarts restarts the master at every third submission.
func randomRestarts(c replayCase) []float64 {
	var out []float64
	for i, j := range c.jobs {
		if i%3 == 2 && (len(out) == 0 || out[len(out)-1] < j.submit) {
			out = append(out, j.submit)
		}
	}
	return out
}
