package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// lateExitConfig loses a silent agent's node after 5 s and holds its
// non-preemptible tasks 10 s more: time enough for the test's task to
// exit within the grace, however loaded the machine.
const lateExitConfig = `
agent_timeout: 5s
lost_node_grace: 10s
pools:
  - {name: default, policy: priority, preemption: true, backfill: true, grace: 5s}
`

// TestLateExitAfterLoss kills -9 the agent of a node that runs a
// non-preemptible task, lets the task exit 0 while the node is lost and
// its task held, and restarts the agent only after the grace failed the
// task: the restarted agent reports the exit its task shim recorded,
// and the master ends the task and its job completed, as the exit came
// before it gave up on the task, the attempt charged until the exit, the
// job ended then.
func TestLateExitAfterLoss(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: lateExitConfig, agents: []agentSpec{{name: "node-a", pool: "default", gpus: 2}}})
	gate := filepath.Join(c.dir, "gate-once")
	id := c.submit("once", fmt.Sprintf(`{name: once, resources: {slots: 2, preemptible: false},
  entrypoint: 'echo "once attempt $ALLOT_ATTEMPT"; while [ ! -e %s ]; do sleep 0.1; done; exit 0'}`, gate))
	c.waitLog(id, 0, "once attempt 1")
	c.agent("node-a").kill9(t)
	c.waitNode("node-a", "lost")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c.poll(waitTimeout, "the task to exit", func(context.Context) (bool, string) {
		left := attemptProcs(c, id, 1)
		return len(left) == 0, describeProcs(left)
	})
	if j := c.waitEnded(id); j.State != "failed" {
		t.Fatalf("job after the grace: %s; want failed as lost", describeJob(j))
	}
	c.startAgent(agentSpec{name: "node-a", pool: "default", gpus: 2})
	j := c.waitJob(id, "to be completed", func(j api.Job) bool { return j.State == "completed" })
	task := j.TaskList[0]
	if a := task.Attempts[0]; task.State != "completed" || a.EndState != "completed" || a.ExitedAt == nil ||
		a.EndedAt == nil || !a.ExitedAt.Before(*a.EndedAt) || !strings.Contains(task.Reason, "while its node node-a was lost") ||
		j.EndedAt == nil || !j.EndedAt.Equal(*a.ExitedAt) {
		t.Fatalf("job %+v, task %+v; want completed, ended at its exit, before the master's end, its reason saying why", j, task)
	}
}

// TestLateExitGangAfterLoss: a two-node, non-preemptible task whose
// node-b agent is killed -9: both ranks exit 0 while node-b is lost and
// the task held, node-a's reported at once, node-b's by its restarted
// agent after the grace failed the task; the master then ends the task
// and its job completed, the attempt charged until the last rank's exit.
func TestLateExitGangAfterLoss(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: lateExitConfig, agents: []agentSpec{
		{name: "node-a", pool: "default", gpus: 2}, {name: "node-b", pool: "default", gpus: 2}}})
	gate := filepath.Join(c.dir, "gate-gang")
	id := c.submit("gang", fmt.Sprintf(`{name: gang, resources: {slots: 4, preemptible: false},
  entrypoint: 'echo "gang rank $ALLOT_NODE_RANK attempt $ALLOT_ATTEMPT"; while [ ! -e %s ]; do sleep 0.1; done; exit 0'}`, gate))
	c.waitLog(id, 0, "gang rank 0 attempt 1")
	c.waitLog(id, 0, "gang rank 1 attempt 1")
	c.agent("node-b").kill9(t)
	c.waitNode("node-b", "lost")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c.poll(waitTimeout, "both ranks to exit", func(context.Context) (bool, string) {
		left := attemptProcs(c, id, 1)
		return len(left) == 0, describeProcs(left)
	})
	if j := c.waitEnded(id); j.State != "failed" {
		t.Fatalf("job after the grace: %s; want failed as lost", describeJob(j))
	}
	c.startAgent(agentSpec{name: "node-b", pool: "default", gpus: 2})
	j := c.waitJob(id, "to be completed", func(j api.Job) bool { return j.State == "completed" })
	task := j.TaskList[0]
	if a := task.Attempts[0]; task.State != "completed" || a.EndState != "completed" || a.ExitedAt == nil ||
		a.EndedAt == nil || !a.ExitedAt.Before(*a.EndedAt) || !strings.Contains(task.Reason, "every part completed") ||
		j.EndedAt == nil || !j.EndedAt.Equal(*a.ExitedAt) {
		t.Fatalf("job %+v, task %+v; want completed at the last rank's exit, before the master's end, its reason saying why", j, task)
	}
}
