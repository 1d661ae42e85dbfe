package e2e

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// shortTimeout loses a silent agent's node after 5 s. It is longer than
// the 3 s the brief of this test suggests because a sync can be late by
// more than that on a loaded machine running race-enabled binaries, and a
// node lost by mistake would fail the test. Its fence is off: the tests
// that use it follow what the master and the next agent do with tasks a
// dead agent left running, which, with the fence on, their task shims
// would have stopped (TestDeadAgentShimsFence).
const shortTimeout = `
agent_timeout: 5s
lost_node_grace: 3s
fence: false
pools:
  - {name: default, policy: priority, preemption: true, backfill: true, grace: 5s}
`

// sleeper prints its attempt and waits.
func sleeper(name string, preemptible bool) string {
	return fmt.Sprintf(`{name: %s, resources: {slots: 2, preemptible: %t},
  entrypoint: 'echo "%s attempt $ALLOT_ATTEMPT on [$CUDA_VISIBLE_DEVICES]"; exec sleep 600'}`, name, preemptible, name)
}

// chatterer prints its attempt, then a line every 0.2 s: output that
// goes on after its agent is gone.
func chatterer(name string, preemptible bool) string {
	return fmt.Sprintf(`{name: %s, resources: {slots: 2, preemptible: %t},
  entrypoint: 'echo "%s attempt $ALLOT_ATTEMPT on [$CUDA_VISIBLE_DEVICES]"; while :; do sleep 0.2; echo tick; done'}`, name, preemptible, name)
}

// TestAgentCrash kills -9 the agent of a node that runs a preemptible
// and a non-preemptible task. Once the master has lost the node, the
// preemptible task is requeued and runs on the other node of the pool,
// and the other, once lost_node_grace has passed without the node coming
// back, fails with a reason naming the lost node. The tasks the
// dead agent left behind run on, printing (their task shims drain the
// output pipes the dead agent no longer reads), not killed by SIGPIPE,
// until the next agent on its work directory adopts them and lists them
// at registration: the master, which has ended them, answers with kills.
func TestAgentCrash(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: shortTimeout, agents: []agentSpec{{name: "node-a", pool: "default", gpus: 4}}})
	pre := c.submit("pre", chatterer("pre", true))
	fixed := c.submit("fixed", chatterer("fixed", false))
	c.waitLog(pre, 0, "pre attempt 1")
	c.waitLog(fixed, 0, "fixed attempt 1")
	for _, id := range []int64{pre, fixed} {
		if node := placedOn(c.show(id)); node != "node-a" {
			t.Fatalf("job %d runs on %q, want node-a", id, node)
		}
	}
	c.startAgent(agentSpec{name: "node-b", pool: "default", gpus: 2})
	c.waitNode("node-b", "up")

	orphans := map[int64][]int{}
	for _, id := range []int64{pre, fixed} {
		orphans[id] = attemptProcs(c, id, 1)
		if len(orphans[id]) == 0 {
			t.Fatalf("no process of job %d's first attempt found", id)
		}
	}
	c.agent("node-a").kill9(t)
	c.waitNode("node-a", "lost")

	f := c.waitEnded(fixed)
	ft := f.TaskList[0]
	if f.State != "failed" || ft.State != "failed" || len(ft.Attempts) != 1 || ft.Attempts[0].EndState != "lost" {
		t.Errorf("non-preemptible job: %s; want failed with its attempt lost", describeJob(f))
	}
	if r := ft.Attempts[0].Reason + " " + ft.Reason; !strings.Contains(r, "node-a") {
		t.Errorf("the lost attempt's reasons %q do not name node-a", r)
	}
	p := c.waitJob(pre, "to run again on node-b", func(j api.Job) bool {
		return len(j.TaskList[0].Attempts) == 2 && placedOn(j) == "node-b" && j.TaskList[0].State == "running"
	})
	if a := p.TaskList[0].Attempts[0]; a.EndState != "lost" || !strings.Contains(a.Reason, "node-a") {
		t.Errorf("preemptible job's first attempt ended %q (%s), want lost naming node-a", a.EndState, a.Reason)
	}
	c.waitLog(pre, 0, "pre attempt 2 on [0,1]")
	var show api.Job
	c.cliJSON(&show, "job", "show", strconv.FormatInt(fixed, 10))
	if !strings.Contains(show.TaskList[0].Attempts[0].Reason, "node-a") {
		t.Errorf("allot job show: attempt reason %q", show.TaskList[0].Attempts[0].Reason)
	}

	// The dead agent's tasks outlived it, printing all along; its
	// successor kills them at the master's word.
	for _, id := range []int64{pre, fixed} {
		if len(attemptProcs(c, id, 1)) == 0 {
			t.Errorf("job %d's first attempt died with its agent, before the next agent started", id)
		}
	}
	c.startAgent(agentSpec{name: "node-a", pool: "default", gpus: 4})
	c.waitNode("node-a", "up")
	c.poll(waitTimeout, "the first attempts' processes to be killed", func(context.Context) (bool, string) {
		left := append(attemptProcs(c, pre, 1), attemptProcs(c, fixed, 1)...)
		return len(left) == 0, describeProcs(left)
	})
	if len(attemptProcs(c, pre, 2)) == 0 {
		t.Errorf("the restarted node-a killed the preemptible job's second attempt on node-b too")
	}
	c.cliOK("job", "kill", strconv.FormatInt(pre, 10))
	c.waitEnded(pre)
}

// placedOn names the node of the job's first task's last attempt.
func placedOn(j api.Job) string {
	if len(j.TaskList) == 0 || len(j.TaskList[0].Attempts) == 0 {
		return ""
	}
	a := j.TaskList[0].Attempts[len(j.TaskList[0].Attempts)-1]
	if len(a.Placement) != 1 {
		return fmt.Sprint(a.Placement)
	}
	return a.Placement[0].Node
}

// attemptProcs lists the live processes of one attempt of a job's task 0.
func attemptProcs(c *cluster, job int64, attempt int) []int {
	return taskProcs(c, job, 0, attempt)
}

// taskProcs lists the live processes of one attempt of a task.
func taskProcs(c *cluster, job int64, task, attempt int) []int {
	return findProcs(markerEnv+"="+c.marker, "ALLOT_JOB_ID="+strconv.FormatInt(job, 10),
		"ALLOT_TASK_INDEX="+strconv.Itoa(task), "ALLOT_ATTEMPT="+strconv.Itoa(attempt))
}

// adoptedRegistration is the restarted agent's registration, listing the
// attempt it adopted; endedDelivered is its log line once it delivered
// the output file of the attempt that ended while no agent ran.
var (
	adoptedRegistration = regexp.MustCompile(`msg="registered with the master".* (running=1)`)
	endedDelivered      = regexp.MustCompile(`msg="(delivered the output of an attempt that ended while no agent ran)"`)
)

// TestAgentRestartAdopts kills -9 the agent of a node that runs a task of
// a job that is not preemptible, and starts it again on the same work
// directory, before the master loses the node. When the task still runs,
// the new agent adopts it, and it runs on; when it exited 0 meanwhile,
// the new agent reports that from the exit file its shim left. Either
// way the job completes with its one attempt; no second run, nothing
// lost. The output written after the old agent died reaches the master
// from the shim's output file, and a line of the agent's says so.
func TestAgentRestartAdopts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// endedFirst: the task is released, and gone, before the
		// agent starts again.
		endedFirst bool
	}{
		{"adopted while it runs", false},
		{"ended while no agent ran: reported, its output delivered", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCluster(t, clusterSpec{config: `
agent_timeout: 60s
pools:
  - {name: default, policy: priority, preemption: true, backfill: true, grace: 5s}
`, agents: []agentSpec{{name: "node-a", pool: "default", gpus: 4}}})
			job := c.holdJob("fixed", 2)
			no := false
			job.Resources.Preemptible = &no
			id := c.submit("fixed", job.file(t))
			c.waitLog(id, 0, "task 0 attempt 1 restart 0 on [")
			if procs := attemptProcs(c, id, 1); len(procs) == 0 {
				t.Fatal("no process of the attempt found")
			}

			c.agent("node-a").kill9(t)
			if left := attemptProcs(c, id, 1); len(left) == 0 {
				t.Fatal("the task died with its agent")
			}
			if tt.endedFirst {
				c.release(id, 0)
				c.poll(cliTimeout, "the task's end with no agent", func(context.Context) (bool, string) {
					left := attemptProcs(c, id, 1)
					return len(left) == 0, fmt.Sprintf("%d processes left", len(left))
				})
			}
			p := c.startAgent(agentSpec{name: "node-a", pool: "default", gpus: 4})
			if tt.endedFirst {
				c.waitLogMatch(p, endedDelivered)
			} else {
				c.waitLogMatch(p, adoptedRegistration)
				if left := attemptProcs(c, id, 1); len(left) == 0 {
					t.Fatalf("the restarted agent did not keep the task running:\n%s", tail(p.log(), 4000))
				}
				c.release(id, 0)
			}
			j := c.waitEnded(id)
			if j.State != "completed" || len(j.TaskList[0].Attempts) != 1 || j.TaskList[0].Attempts[0].EndState != "completed" {
				t.Errorf("job: %s; want completed by its one attempt", describeJob(j))
			}
			c.poll(cliTimeout, "the line the task printed after its agent's kill -9", func(context.Context) (bool, string) {
				out := c.attemptText(id, 0, 1)
				return slices.Contains(out, "released attempt 1"), fmt.Sprintf("%q", out)
			})
			agentLine := false
			for _, l := range c.logLines(id, 0) {
				agentLine = agentLine || (l.Stream == "stderr" && strings.HasPrefix(l.Text, "[allot agent]"))
			}
			if !agentLine {
				t.Errorf("no line of the agent's in the task's log saying where the output since the restart comes from")
			}
		})
	}
}
