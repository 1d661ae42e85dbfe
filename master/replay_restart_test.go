package master

import (
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
		t.Run(c.name, func(t *testing.T) { checkReplay(t, c) })
		c.tick, c.eager = 5, true
		t.Run(c.name+"-live", func(t *testing.T) { checkReplay(t, c) })
	}
}

// restartCases are replay cases under priority with preemption, quota
// reclaim and conservative backfilling, with restarts.
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
	return out
}

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

func TestReplayRestartProbe(t *testing.T) {
	var all []float64
	for s := 1.0; s < 5000; s++ {
		all = append(all, s)
	}
	var cases []replayCase
	for _, seed := range []uint64{13, 14, 15, 16, 17, 18} {
		cases = append(cases, randomCases(seed)...)
		cases = append(cases, randomFeatureCases(seed, 0)...)
	}
	for _, c := range randomFeatureCases(16, 30) {
		c.name += "-checkpoint"
		cases = append(cases, c)
	}
	cases = append(cases, replayCases()...)
	for _, c := range cases {
		c.restarts = all
		if !c.timed {
			t.Run(c.name, func(t *testing.T) { checkReplay(t, c) })
		}
		c.tick, c.eager = 5, true
		if c.timed {
			c.tick = 1
		}
		t.Run(c.name+"-live", func(t *testing.T) { checkReplay(t, c) })
	}
}
