package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/allot-sched/allot/api"
)

// gangStopConfig gives the pool a checkpoint grace the test can tell
// from a kill's (grace_s=0) in the agents' logs.
const gangStopConfig = "pools:\n  - {name: default, policy: priority, grace: 20s}\n"

// gangHold is holdScript with each rank naming itself in its lines.
const gangHold = `echo "rank $ALLOT_NODE_RANK attempt $ALLOT_ATTEMPT"
ckpt() { echo "rank $ALLOT_NODE_RANK checkpoint attempt $ALLOT_ATTEMPT"; exit 0; }
trap ckpt TERM
while [ ! -f "$E2E_RELEASE/$ALLOT_JOB_ID-$ALLOT_TASK_INDEX" ]; do
  if [ -f "$ALLOT_PREEMPT_FILE" ]; then ckpt; fi
  sleep 0.2
done
echo "rank $ALLOT_NODE_RANK released attempt $ALLOT_ATTEMPT"`

// gangPreempted is the other node's agent asked to checkpoint the gang's
// part with the pool's grace.
var gangPreempted = regexp.MustCompile(`msg="stopping attempt".* node=node-b .*command=preempt.* grace_s=20`)

// TestAgentStopGang (trial n, F13): SIGTERM to the agent of one node of a
// running 2-node gang. The agent (--on-exit kill, the default) preempts
// its rank, which saves its checkpoint, reports it preempted and leaves.
// The master has the rank on the other node checkpoint too, with the
// pool's grace rather than a kill, ends the attempt preempted, not lost,
// and requeues the job, which runs again once the agent is back.
func TestAgentStopGang(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: gangStopConfig, agents: []agentSpec{
		{name: "node-a", pool: "default", gpus: 2},
		{name: "node-b", pool: "default", gpus: 2},
	}})
	yes := true
	job := c.holdJob("gang", 4)
	job.Entrypoint, job.Resources.Preemptible = gangHold, &yes
	id := c.submit("gang", job.file(t))
	c.waitLog(id, 0, "rank 0 attempt 1")
	c.waitLog(id, 0, "rank 1 attempt 1")
	j := c.show(id)
	if a := j.TaskList[0].Attempts[0]; len(a.Placement) != 2 || a.Placement[0].Node != "node-a" {
		t.Fatalf("placement %+v, want rank 0 on node-a and rank 1 on node-b", a.Placement)
	}

	a := c.agent("node-a")
	a.setStopped()
	if code, err := a.stop(syscall.SIGTERM, stopTimeout); err != nil || code != 0 {
		t.Fatalf("the agent exited %d (%v) after SIGTERM, want 0:\n%s", code, err, tail(a.log(), 4000))
	}
	c.waitNode("node-a", "left")
	j = c.waitJob(id, "to be requeued, its attempt ended", func(j api.Job) bool {
		ts := j.TaskList[0]
		return ts.State == "queued" && len(ts.Attempts) == 1 && ts.Attempts[0].EndState != ""
	})
	if att := j.TaskList[0].Attempts[0]; att.EndState != "preempted" {
		t.Errorf("the attempt ended %q (%s), want preempted: its agent stopped it cleanly", att.EndState, att.Reason)
	}
	c.waitLog(id, 0, "rank 0 checkpoint attempt 1")
	c.waitLog(id, 0, "rank 1 checkpoint attempt 1")
	b := c.agent("node-b").log()
	if !gangPreempted.MatchString(b) || strings.Contains(b, "command=kill") {
		t.Errorf("node-b's agent was not asked to checkpoint the gang's rank with the grace of 20s:\n%s", tail(b, 4000))
	}
	if m := c.master.log(); strings.Contains(m, "attempt ended on no agent's word") {
		t.Errorf("the master ended the attempt on no agent's word:\n%s", tail(m, 4000))
	}

	c.startAgent(agentSpec{name: "node-a", pool: "default", gpus: 2})
	c.waitNode("node-a", "up")
	c.waitLog(id, 0, "rank 0 attempt 2")
	c.waitLog(id, 0, "rank 1 attempt 2")
	c.release(id, 0)
	if j := c.waitEnded(id); j.State != "completed" || len(j.TaskList[0].Attempts) != 2 {
		t.Fatalf("job %d: %s; want completed by its second attempt", id, describeJob(j))
	}
	if out := c.cliOK("job", "show", strconv.FormatInt(id, 10)); strings.Contains(out, "lost") {
		t.Errorf("allot job show says lost:\n%s", out)
	}
}
