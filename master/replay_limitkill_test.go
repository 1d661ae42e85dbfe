package master

import (
	"testing"

	"github.com/allot-sched/allot/scenario"
)

// Time limits' kills that the master made after the second its limit
// came in, and a user's kill during a time limit's slow kill.

// limitKillCases: a (time_limit 15) starts at 10.7 on n1 and reaches
// its limit at 25.7, in second 25 as the replay's limit ends it; b waits
// for n1. The master's check runs 0.8 s late (at 26.5, as a tick after
// the limit would), in second 26: the export counts the kill from second
// 25 so that the replay ends a, and starts b, in second 26 as live
// (fifo-late-time-limit), and in second 31 where a's node is silent for
// 5 s from the kill (fifo-late-slow-time-limit: the live end is the
// kill's at 26.5 plus 5). Counted from the master's kill, the replay
// ended a a second early. In fifo-slow-time-limit-then-kill a user kills
// a at 102, while its time limit's kill (at 100, its node silent for 5
// s, then 5 more from the user's kill) is under way: live the task keeps
// the limit's cause and ends timelimit at 107, its job killed (the
// master's killTask leaves a killing task alone), and so does the
// replay (the task's lifecycle.Stop keeps the first kill, LimitKill),
// which ended it killed.
func limitKillCases() []replayCase {
	fifo := "pools:\n  - {name: default, policy: fifo}\n"
	b := rjob{name: "b", slots: 4, submit: 12, run: 100}
	return []replayCase{
		{name: "fifo-late-time-limit", config: fifo, nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 4, submit: 10.7, run: 1000, extra: `, "time_limit": 15`, limitLate: 0.8}, b,
		}},
		{name: "fifo-late-slow-time-limit", config: fifo, nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 4, submit: 10.7, run: 1000, extra: `, "time_limit": 15`, limitLate: 0.8, killSilent: 5}, b,
		}},
		{name: "fifo-slow-time-limit-then-kill", config: fifo, nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 4, submit: 0, run: 1000, extra: `, "time_limit": 100`, killSilent: 5, kill: 102},
			slowKillJobs[1], slowKillJobs[2],
		}},
	}
}

// TestReplayLimitKills: the cases replay byte for byte, batched and
// live, and differ without the export's slow_kills, which carry the
// late kill (and the slow one) to the replay.
func TestReplayLimitKills(t *testing.T) {
	checkBatchedAndLive(t, limitKillCases())
	checkUnexported(t, limitKillCases(), "slow_kills", 1, func(j *scenario.Job) int {
		n := len(j.SlowKills)
		j.SlowKills = nil
		return n
	})
}
