package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// rankCheckpoint is holdScript for a gang's ranks, each saying when it
// checkpoints (its preempt file or SIGTERM) and exiting then.
const rankCheckpoint = `echo "rank $ALLOT_NODE_RANK attempt $ALLOT_ATTEMPT runs"
ckpt() { echo "rank $ALLOT_NODE_RANK checkpoint attempt $ALLOT_ATTEMPT"; exit 0; }
trap ckpt TERM
while [ ! -f "$E2E_RELEASE/$ALLOT_JOB_ID-$ALLOT_TASK_INDEX" ]; do
  if [ -f "$ALLOT_PREEMPT_FILE" ]; then ckpt; fi
  sleep 0.2
done
echo "released rank $ALLOT_NODE_RANK attempt $ALLOT_ATTEMPT"`

// lostGangAsked is the master's line asking a lost gang's part on a
// node still up to checkpoint.
var lostGangAsked = regexp.MustCompile(`msg="(asking the part of a lost gang on a node still up to checkpoint)`)

// TestLostGangCheckpoints (trial 2026-11-29b B18): a preemptible gang
// over node-a and node-b; node-b's agent is killed -9 and its node lost.
// The rank on node-a, whose agent is up, is asked to checkpoint with the
// pool's grace (the preempt file and SIGTERM), not killed at once, so
// it writes its checkpoint; the task waits to resume.
func TestLostGangCheckpoints(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: shortTimeout, agents: []agentSpec{
		{name: "node-a", pool: "default", gpus: 2}, {name: "node-b", pool: "default", gpus: 2}}})
	yes := true
	job := c.holdJob("gang", 4)
	job.Entrypoint = rankCheckpoint
	job.Resources.PriorityClass, job.Resources.Preemptible = "LOW", &yes
	id := c.submit("gang", job.file(t))
	c.waitLog(id, 0, "rank 0 attempt 1 runs")
	c.waitLog(id, 0, "rank 1 attempt 1 runs")

	c.agent("node-b").kill9(t)
	c.waitNode("node-b", "lost")
	c.waitLogMatch(c.master, lostGangAsked)
	// Only node-a's rank can: node-b's has no agent, and no fence.
	c.waitLog(id, 0, "checkpoint attempt 1")
	alog := c.agent("node-a").log()
	if strings.Contains(alog, "command=kill") || !strings.Contains(alog, "command=preempt") {
		t.Errorf("node-a's agent did not get a checkpoint request, or was told to kill:\n%s", tail(alog, 4000))
	}
	c.waitJob(id, "to wait to resume, its attempt lost", func(j api.Job) bool {
		ts := j.TaskList[0]
		return ts.State == "queued" && len(ts.Attempts) == 1 && ts.Attempts[0].EndState == "lost"
	})
	c.release(id, 0) // node-b's rank, which nothing stops (fence: false)
	c.poll(waitTimeout, "the ranks to exit", func(context.Context) (bool, string) {
		left := attemptProcs(c, id, 1)
		return len(left) == 0, describeProcs(left)
	})
}
