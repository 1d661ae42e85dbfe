package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// sameHostConfig holds a non-preemptible task through its node's loss for
// a minute; the fence is on, so that the orphan's shim would stop it
// only at the grace's end.
const sameHostConfig = `
agent_timeout: 5s
lost_node_grace: 60s
pools:
  - {name: default, policy: priority, preemption: true, backfill: true, grace: 5s}
`

// TestTakeoverSameHostStopsStrays (trial 2026-11-29b B13): node h1's agent
// is killed -9 while a non-preemptible task runs there, the master loses
// the node and holds the task for lost_node_grace, and an agent on the same
// machine, started on a new work directory with a join token, takes h1
// over. The takeover ends the held attempt; the new agent finds the old
// work directory's shim in /proc and stops it before its first sync, so
// that nothing it starts shares the GPUs with it (before, it ran on until
// its shim's fence at the grace's end). The attempt's reason says when
// that fence would have stopped it.
func TestTakeoverSameHostStopsStrays(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: sameHostConfig, agents: []agentSpec{{name: "h1", pool: "default", gpus: 2}}})
	id := c.submit("notebook", `{name: notebook, resources: {slots: 1, preemptible: false},
  entrypoint: 'echo "attempt $ALLOT_ATTEMPT runs"; while :; do sleep 0.2; done'}`)
	c.waitLog(id, 0, "attempt 1 runs")

	c.agent("h1").kill9(t)
	c.waitNode("h1", "lost")
	if len(attemptProcs(c, id, 1)) == 0 {
		t.Fatal("the task died with its agent")
	}
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	jt, err := c.api.Identity().CreateToken(ctx, api.NewToken{Kind: api.TokenJoin, Note: "h1 on a new work dir"})
	if err != nil {
		t.Fatal(err)
	}
	fresh := c.startNamedAgent("agent-h1-new", "h1", "h1-new", jt.Secret)
	c.waitJob(id, "its attempt ended by the takeover", func(j api.Job) bool {
		ts := j.TaskList[0]
		return len(ts.Attempts) == 1 && ts.Attempts[0].EndState == "lost"
	})
	c.poll(waitTimeout, "the held attempt's processes to stop", func(context.Context) (bool, string) {
		left := attemptProcs(c, id, 1)
		return len(left) == 0, describeProcs(left)
	})
	if log := fresh.log(); !strings.Contains(log, "stopped the task processes that an earlier agent of node h1 left running") ||
		!strings.Contains(log, fmt.Sprintf("tasks=[%d/0/1]", id)) {
		t.Errorf("the new agent's log does not say what it stopped:\n%s", tail(log, 4000))
	}
	a := c.show(id).TaskList[0].Attempts[0]
	for _, want := range []string{"was taken over at ", "its task shim's fence stops it at ", "the new agent stops it at once when on the same host"} {
		if !strings.Contains(a.Reason, want) {
			t.Errorf("attempt reason %q, want it to say %q", a.Reason, want)
		}
	}
}
