package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// outagePool keeps the defaults that matter here: agent_timeout 30s and
// 10 s long polls, so that the agent's fence asks a task the master
// would requeue to stop 21 s after the last reply (docs/reliability.md,
// "Fencing"). The test cannot shorten them: a shorter agent timeout
// leaves the fence no time before the loss, and the sync wait and the
// agent's backoff have no flag.
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
func TestMasterOutageKeepsTasks(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: outagePool, agents: []agentSpec{{name: "n2", pool: "default", gpus: 2}}})
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
	// Its running report was just answered: the agent's last contact,
	// from which its fence counts, is the kill's moment.
	killed := time.Now()
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
