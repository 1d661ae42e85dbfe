package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// slowCheckpoint is holdScript with a checkpoint that takes 2 s, and a
// first line saying which attempts' checkpoints it resumes after: a
// next attempt started before the last one's checkpoint landed shows.
const slowCheckpoint = `echo "attempt $ALLOT_ATTEMPT resumes after [$(tr '\n' ' ' < "$ALLOT_CHECKPOINT_DIR/checkpoints" 2>/dev/null)]"
ckpt() { sleep 2; echo "$ALLOT_ATTEMPT" >> "$ALLOT_CHECKPOINT_DIR/checkpoints"; echo "checkpoint attempt $ALLOT_ATTEMPT"; exit 0; }
trap ckpt TERM
while [ ! -f "$E2E_RELEASE/$ALLOT_JOB_ID-$ALLOT_TASK_INDEX" ]; do
  if [ -f "$ALLOT_PREEMPT_FILE" ]; then ckpt; fi
  sleep 0.2
done
echo "released attempt $ALLOT_ATTEMPT"`

// strayAsked is the master's line asking the stray to checkpoint.
var strayAsked = regexp.MustCompile(`msg="(asking an attempt the master ended, which the agent still runs, to checkpoint)`)

// TestAgentLostStrayCheckpoints (trial F13): the agent of a node running
// a preemptible task is killed -9; the task's process runs on. The
// master loses the node, ends the attempt lost and requeues the task.
// The restarted agent adopts the process and lists it; the master asks
// it to checkpoint, with the pool's grace, rather than kill it, and
// starts the task again only once it has ended: the next attempt, on the
// GPUs the node has free all along too, resumes from the checkpoint the
// first wrote.
func TestAgentLostStrayCheckpoints(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: shortTimeout, agents: []agentSpec{{name: "node-a", pool: "default", gpus: 2}}})
	yes := true
	job := c.holdJob("train", 1)
	job.Entrypoint = slowCheckpoint
	job.Resources.PriorityClass, job.Resources.Preemptible = "LOW", &yes
	id := c.submit("train", job.file(t))
	c.waitLog(id, 0, "attempt 1 resumes after []")

	c.agent("node-a").kill9(t)
	c.waitNode("node-a", "lost")
	c.waitJob(id, "to be requeued, its attempt lost", func(j api.Job) bool {
		ts := j.TaskList[0]
		return ts.State == "queued" && len(ts.Attempts) == 1 && ts.Attempts[0].EndState == "lost"
	})
	if len(attemptProcs(c, id, 1)) == 0 {
		t.Fatal("the task died with its agent")
	}

	p := c.startAgent(agentSpec{name: "node-a", pool: "default", gpus: 2})
	c.waitLogMatch(c.master, strayAsked)
	j := c.waitJob(id, "to run its second attempt", func(j api.Job) bool {
		ts := j.TaskList[0]
		return ts.State == "running" && len(ts.Attempts) == 2
	})
	dir := j.TaskList[0].CheckpointDir
	c.waitLog(id, 0, "attempt 2 resumes after [1 ]")
	if left := attemptProcs(c, id, 1); len(left) != 0 {
		t.Errorf("the first attempt still runs beside the second: %s", describeProcs(left))
	}
	b, err := os.ReadFile(filepath.Join(dir, "checkpoints"))
	if err != nil || strings.TrimSpace(string(b)) != "1" {
		t.Errorf("checkpoints %q (%v), want the first attempt's", b, err)
	}
	if log := p.log(); strings.Contains(log, "grace_s=0") {
		t.Errorf("the agent was told to kill at once:\n%s", tail(log, 4000))
	}
	c.release(id, 0)
	j = c.waitEnded(id)
	if j.State != "completed" || len(j.TaskList[0].Attempts) != 2 {
		t.Errorf("job: %s; want completed by its second attempt", describeJob(j))
	}
	c.poll(cliTimeout, "the first attempt's checkpoint line", func(context.Context) (bool, string) {
		out := c.attemptText(id, 0, 1)
		return slices.Contains(out, "checkpoint attempt 1"), fmt.Sprintf("%q", out)
	})
}
