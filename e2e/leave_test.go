package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestAgentLeave stops, with one Ctrl-C, the agent of a node that runs a
// preemptible task. The agent says goodbye: the node reads left (not
// lost after the agent timeout, 30 s by default), the task's attempt
// ends preempted, and the requeued task runs on the other node of the
// pool, never again on the node that left. Started again, the agent
// brings its node back up.
func TestAgentLeave(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: "pools:\n  - {name: default, policy: priority}\n",
		agents: []agentSpec{{name: "node-a", pool: "default", gpus: 2}}})
	pre := c.submit("pre", sleeper("pre", true))
	c.waitLog(pre, 0, "pre attempt 1")
	if node := placedOn(c.show(pre)); node != "node-a" {
		t.Fatalf("job %d runs on %q, want node-a", pre, node)
	}
	c.startAgent(agentSpec{name: "node-b", pool: "default", gpus: 2})
	c.waitNode("node-b", "up")

	if code := c.agent("node-a").interrupt(t); code != 0 {
		t.Fatalf("the agent exited %d after SIGINT, want 0:\n%s", code, tail(c.agent("node-a").log(), 4000))
	}
	c.waitNode("node-a", "left")
	p := c.waitJob(pre, "to run again on node-b", func(j api.Job) bool {
		return len(j.TaskList[0].Attempts) == 2 && j.TaskList[0].State == "running"
	})
	if node := placedOn(p); node != "node-b" {
		t.Errorf("the requeued task runs on %q, want node-b: %s", node, describeJob(p))
	}
	if a := p.TaskList[0].Attempts[0]; a.EndState != "preempted" {
		t.Errorf("the first attempt ended %q (%s), want preempted", a.EndState, a.Reason)
	}
	if log := c.agent("node-a").log(); strings.Count(log, "attempt started") > 1 {
		t.Errorf("the agent that left started more than the first attempt:\n%s", tail(log, 4000))
	}
	c.waitLog(pre, 0, "pre attempt 2 on [0,1]")

	c.startAgent(agentSpec{name: "node-a", pool: "default", gpus: 2})
	c.waitNode("node-a", "up")
	c.cliOK("job", "kill", strconv.FormatInt(pre, 10))
	c.waitEnded(pre)
}
