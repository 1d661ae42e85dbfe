package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// fencedConfig loses a silent node after 5 s, with the fence on (the
// default): too short a timeout for the fence to leave the task a grace
// before the loss, so it is stopped at the fence's floor, just after it.
const fencedConfig = `
agent_timeout: 5s
lost_node_grace: 3s
pools:
  - {name: default, policy: priority, preemption: true, backfill: true, grace: 5s}
`

// TestDeadAgentShimsFence: node-a's agent is killed -9 while a
// preemptible task runs there and never comes back. The master loses the
// node and runs the task's next attempt on node-b; the first attempt does
// not run on beside it: its task shim, finding the agent gone, applies the
// fence the agent last heard (fence.json) and stops it, saying so in its
// exit file. Before the shims fenced, it ran until an agent on node-a
// registered again (docs/reliability.md, "Fencing").
func TestDeadAgentShimsFence(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: fencedConfig, agents: []agentSpec{{name: "node-a", pool: "default", gpus: 2}}})
	id := c.submit("fenced", `{name: fenced, resources: {slots: 2, preemptible: true},
  entrypoint: 'echo "fenced attempt $ALLOT_ATTEMPT"; while :; do sleep 0.1; done'}`)
	c.waitLog(id, 0, "fenced attempt 1")
	c.startAgent(agentSpec{name: "node-b", pool: "default", gpus: 2})
	c.waitNode("node-b", "up")

	c.agent("node-a").kill9(t)
	c.waitNode("node-a", "lost")
	c.waitJob(id, "to run again on node-b", func(j api.Job) bool {
		return len(j.TaskList[0].Attempts) == 2 && placedOn(j) == "node-b" && j.TaskList[0].State == "running"
	})
	c.poll(waitTimeout, "the first attempt, whose agent is gone, to stop", func(context.Context) (bool, string) {
		left := attemptProcs(c, id, 1)
		return len(left) == 0, describeProcs(left)
	})
	exitFile := filepath.Join(c.dir, "agents", "node-a", "jobs", strconv.FormatInt(id, 10), "0", agent.StateDir, agent.ExitFileName(1, 0))
	st, ok, err := agent.ReadExitFile(exitFile)
	if err != nil || !ok || !strings.Contains(st.Fenced, "task shim's fence") {
		t.Fatalf("exit file %s: %+v (ok %v, err %v); want one saying the task shim's fence stopped it", exitFile, st, ok, err)
	}
	if len(attemptProcs(c, id, 2)) == 0 {
		t.Errorf("the second attempt on node-b is not running")
	}
	c.cliOK("job", "kill", fmt.Sprint(id))
	c.waitEnded(id)
}
