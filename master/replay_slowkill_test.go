package master

import (
	"math"
	"strconv"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/scenario"
)

// Kills that take their time: the node of a killed task is silent for a
// few seconds (rjob.killSilent), so its agent gets the kill command, and
// the master hears of the attempt's end, only then; meanwhile the master
// holds the task's GPUs, killing, and a job waiting for them waits on.

// slowKillJobs: a holds n1's 4 GPUs from 0 and is killed at 100, its
// node silent for 5 s, so the master frees them at 105; b, submitted at
// 10, waits for them and starts at 105 live. A replay that freed them at
// the kill would start b at 100. c runs on n2 throughout, so that the
// cluster is not idle.
var slowKillJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 1000, kill: 100, killSilent: 5},
	{name: "c", slots: 2, submit: 0, run: 400},
	{name: "b", slots: 4, submit: 10, run: 100},
}

func slowKillCases() []replayCase {
	fifo := "pools:\n  - {name: default, policy: fifo}\n"
	return []replayCase{
		{name: "fifo-slow-kill", config: fifo, nodes: replayNodes, jobs: slowKillJobs},
		// The same by a's time limit of 100 s: a runs, killing, until
		// 105, and ends killed by its limit then.
		{name: "fifo-slow-time-limit", config: fifo, nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 4, submit: 0, run: 1000, extra: `, "time_limit": 100`, killSilent: 5},
			slowKillJobs[1], slowKillJobs[2],
		}},
		// A user's kill at 100 of a whose time limit (103) falls while
		// its node is silent: live it ends killed at 105, not by its
		// limit, and so does the replay (its end was due at the limit,
		// which does not make the kill a time limit's).
		{name: "fifo-slow-kill-before-limit", config: fifo, nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 4, submit: 0, run: 1000, kill: 100, extra: `, "time_limit": 103`, killSilent: 5},
			slowKillJobs[1], slowKillJobs[2],
		}},
		// A job of two trials on n1, both killed at 100: one node is
		// silent for 3 s, so both end at 103, and b, which needs all of
		// n1, starts then.
		{name: "fifo-slow-kill-two-tasks", config: fifo, nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 2, tasks: 2, submit: 0, run: 1000, kill: 100, killSilent: 3},
			slowKillJobs[1], slowKillJobs[2],
		}},
		// Usage: the master charges a killing attempt until its end.
		// a1 (project a) holds n1's 4 GPUs from 0 and is killed at 100,
		// its node silent for 200 s (under an agent_timeout of 10m); b1
		// (b) holds n2's 3 from 0 to 200. a2 and b2 wait for 3 GPUs from
		// 10: at 200, when n2 frees, a has used 800 GPU-seconds (charged
		// until now while killing) and b 600, and b2 starts; a2 starts on
		// n1 at 300, at the kill's end. A replay that charged a1 until
		// the kill only (400) would start a2 at 200.
		{name: "multifactor-slow-kill", config: lateExitConfig + "agent_timeout: 10m\n",
			nodes: []rnode{{"n1", 4}, {"n2", 3}}, jobs: []rjob{
				{name: "a1", slots: 4, submit: 0, run: 1000, kill: 100, killSilent: 200, project: "a"},
				{name: "b1", slots: 3, submit: 0, run: 200, project: "b"},
				{name: "a2", slots: 3, submit: 10, run: 100, project: "a"},
				{name: "b2", slots: 3, submit: 10, run: 100, project: "b"},
			}},
	}
}

// TestReplaySlowKill: a kill its silent node made the master wait for
// replays byte for byte, batched and live, and the replay differs
// without the export's slow_kills, which it writes for it.
func TestReplaySlowKill(t *testing.T) {
	checkBatchedAndLive(t, slowKillCases())
	checkUnexported(t, slowKillCases(), "slow_kills", 1, func(j *scenario.Job) int {
		n := len(j.SlowKills)
		j.SlowKills = nil
		return n
	})
}

// silence silences, from now for its job's killSilent, the agents that
// run case job i's attempts (all of them, or the one of id), as its kill
// is made: they sync again only then (up). It reports whether it
// silenced one.
func (d *replayDriver) silence(i int, id *agent.TaskID, now float64) bool {
	quiet := d.c.jobs[i].killSilent
	if quiet <= 0 {
		return false
	}
	jid, silenced := strconv.FormatInt(d.ids[i], 10), false
	for k, ag := range d.agents {
		for _, r := range ag.Running() {
			if r.JobID == jid && (id == nil || r == *id) {
				d.quietUntil[k], silenced = max(d.quietUntil[k], now+quiet), true
			}
		}
	}
	return silenced
}

// silenceLimited silences the agents of the attempts whose time limit
// ends them now (instant's rule), for their job's killSilent. The
// limit of one silenced is done with: it ends when its agents report the
// kill's end.
func (d *replayDriver) silenceLimited(now float64) {
	for id, a := range d.att {
		if a.exited || a.asked || a.limit > now+1e-9 || a.due <= a.limit {
			continue
		}
		jid, _ := strconv.ParseInt(id.JobID, 10, 64)
		if d.silence(d.byID[jid], &id, now) {
			a.limit = math.Inf(1)
		}
	}
}

// nextHeard is when the next agent silenced by a kill syncs again, +Inf
// for none.
func (d *replayDriver) nextHeard() float64 {
	next, now := math.Inf(1), d.now()
	for _, at := range d.quietUntil {
		if at > now+1e-9 {
			next = min(next, at)
		}
	}
	return next
}
