package master

import (
	"math"
	"time"
)

// A pass that reads the clock past the second its submission came in
// (trial 2026-11-29i I24): b, submitted at 9.993, is started by the pass
// its submission brought about at 10.001, so the live log says 10, and
// its time limit ends it at 70. The export gives the job to the replay's
// scheduler in the second of that pass (first_pass, whatif_firstpass.go),
// its submission staying at 9 for its queue order and age; before, the
// replay started it at 9 and ended it at 69. c, submitted after that
// pass in its second, waits for b's slots in both.

func latePassCases() []replayCase {
	return []replayCase{
		{name: "fifo-pass-next-second", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 4, submit: 0, run: 300},
			{name: "b", slots: 2, submit: 9.993, passLate: 0.008, run: 100, extra: `, "time_limit": 60`},
			{name: "c", slots: 2, submit: 10.5, run: 50},
		}},
	}
}

// latePass moves the clock on by j's passLate, after its submission: the
// instant's pass, and the attempts it starts, come then.
func (d *replayDriver) latePass(j rjob) {
	if j.passLate > 0 {
		d.h.clock.Advance(time.Duration(math.Round(j.passLate * 1e9)))
		d.at = d.now()
	}
}
