package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// outagePool keeps the defaults that matter here: agent_timeout 30s and
// 10 s long polls, so that the agent's fence asks a task the master
// would requeue to stop 21 s after its last contact with the master
// (docs/reliability.md, "Fencing"). The test cannot shorten them: a
// shorter agent timeout leaves the fence no time before the loss, and
// the sync wait and the agent's backoff have no flag.
const outagePool = `
pools:
  - {name: default, policy: priority, preemption: true, grace: 10s}
`

// masterOutage is how long the master is down: as in trial
// 2026-11-27i, where three of four such restarts stopped preemptible work.
const masterOutage = 12 * time.Second

// TestMasterOutageKeepsTasks kills -9 the master while a preemptible
// task runs and starts it again 12 s later, well within the fence's
// 21 s. The task must run on through the outage: the agent tries the
// master before its fence would stop anything (its backoff, grown to
// 16 s, would sleep past the fence: node n2's retries, seeded by its
// name, come 11 s and 26 s after the kill), the restarted master's 404
// says it still holds the node, and the agent registers at once. The
// restarted master takes the attempt back as it runs (running=1,
// unsettled=0), and it completes on its one attempt.
//
// The kill comes right after a reply, or 9 s into an idle long poll
// (trial 2026-11-27j, finding A): there the last reply is 21 s before
// the master is back, and only the heartbeats the master sends while it
// holds the poll (api.SyncHeartbeatHeader), which the fence counts as
// contact, keep the fence from stopping the task as the master returns.
func TestMasterOutageKeepsTasks(t *testing.T) {
	t.Parallel()
	for _, inPoll := range []time.Duration{0, 9 * time.Second} {
		name := "after a reply"
		if inPoll > 0 {
			name = fmt.Sprintf("%s into an idle long poll", inPoll)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			masterOutageKeepsTasks(t, inPoll)
		})
	}
}

func masterOutageKeepsTasks(t *testing.T, inPoll time.Duration) {
	c := newCluster(t, clusterSpec{config: outagePool, agents: []agentSpec{{name: "n2", pool: "default", gpus: 2}},
		masterArgs: []string{"--log-level", "debug"}}) // each sync's end: idlePollStart
	yes := true
	spec := c.holdJob("sweep", 1)
	spec.Resources.Preemptible = &yes
	id := c.submit("sweep", spec.file(t))
	c.waitLog(id, 0, "task 0 attempt 1")
	c.waitJob(id, "running", func(j api.Job) bool { return j.State == "running" })
	leader := attemptLeader(c, id, 0, 1)
	if leader == 0 {
		t.Fatal("no process of the attempt was found")
	}
	// After a reply: its running report was just answered, the agent's
	// last contact. In a poll: the one that began as the last held one
	// ended, with nothing to say.
	killed := time.Now()
	if inPoll > 0 {
		killed = c.idlePollStart("n2").Add(inPoll)
		if d := time.Until(killed); d < 0 {
			t.Fatalf("the idle poll was seen %s too late", -d)
		}
		time.Sleep(time.Until(killed))
	}
	c.master.kill9(t)
	time.Sleep(time.Until(killed.Add(masterOutage)))
	c.restartMaster("master-2")
	c.waitRegistered(map[string]int{"n2": 1})
	t.Logf("n2 registered %s after the kill", time.Since(killed).Round(100*time.Millisecond))

	// Past the fence's stop had it counted from the kill (21 s), and
	// its grace (to 27 s).
	if !sleepCtx(context.Background(), time.Until(killed.Add(28*time.Second))) {
		t.Fatal("interrupted")
	}
	if log := c.agent("n2").log(); strings.Contains(log, "fence: stopping") {
		t.Errorf("the agent's fence stopped a task in a %s master outage:\n%s", masterOutage, tail(log, 4000))
	}
	if got := attemptLeader(c, id, 0, 1); got != leader {
		t.Errorf("the attempt's process group leader is %d after the outage, was %d", got, leader)
	}
	j := c.show(id)
	if task := j.TaskList[0]; task.State != "running" || len(task.Attempts) != 1 {
		t.Fatalf("after the outage: %s; want running on its first attempt", describeJob(j))
	}
	c.release(id, 0)
	j = c.waitEnded(id)
	if task := j.TaskList[0]; j.State != "completed" || len(task.Attempts) != 1 || task.Attempts[0].EndState != "completed" {
		t.Errorf("want completed on its one attempt: %s", describeJob(j))
	}
	c.checkHeld(id, 0, 1, 0, "released")
}

// syncEnded matches the master's debug line for the end of a sync of a
// node (the master's clock is the test's: one machine).
var syncEnded = regexp.MustCompile(`time=(\S+) level=DEBUG msg="http request" method=POST path=/api/v1/agents/(\S+)/sync status=200`)

// idlePollStart waits until a long poll of node's agent is held to its
// end with nothing to say (two of the node's syncs that end 9 s or more
// apart, none between) and returns when it ended: the agent's next
// long poll began then, as an agent that was sent no command polls
// again at once.
func (c *cluster) idlePollStart(node string) time.Time {
	c.t.Helper()
	var at time.Time
	c.poll(waitTimeout, "an idle long poll of "+node, func(context.Context) (bool, string) {
		var prev time.Time
		for _, m := range syncEnded.FindAllStringSubmatch(c.master.log(), -1) {
			end, err := time.Parse(time.RFC3339Nano, m[1])
			if m[2] != node || err != nil {
				continue
			}
			if !prev.IsZero() && end.Sub(prev) >= 9*time.Second && time.Since(end) < time.Second {
				at = end
				return true, ""
			}
			prev = end
		}
		return false, fmt.Sprintf("the last sync of %s ended at %s", node, prev.Format(time.TimeOnly))
	})
	return at
}
