package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

// takeoverConfig loses a silent node after 5 s and gives a preempted task
// 5 s to checkpoint. Its fence is off, so that the orphan of the killed
// agent runs on, as where a fence cannot act (shortTimeout).
const takeoverConfig = `
agent_timeout: 5s
fence: false
pools:
  - {name: default, policy: priority, preemption: true, backfill: true, grace: 5s}
`

// disownedLine is what an agent whose node credential was revoked logs.
const disownedLine = "the master revoked this node's credential"

// TestTakeoverStopsOrphan (trial 2026-11-28o F13): node h1's agent is
// killed -9 while a preemptible task runs there, the master loses the
// node, and a new machine joins as h1 with a new join token (the way to
// replace a dead one), which revokes the old host's credential and runs
// the task's next attempt. The old agent, restarted on its work
// directory as systemd would, adopts the orphaned attempt, is refused as
// revoked, and kills it at once (its TERM trap does not run: the new
// attempt resumed from the checkpoint directory, which the orphan must
// not write again): no two copies of the task run from then on, the new attempt
// runs on, and the refused agent leaves a bounded trace in the audit log.
func TestTakeoverStopsOrphan(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: takeoverConfig, agents: []agentSpec{{name: "h1", pool: "default", gpus: 2}}})
	marks := filepath.Join(c.dir, "marks")
	if err := os.MkdirAll(marks, 0o755); err != nil {
		t.Fatal(err)
	}
	id := c.submit("orphan", fmt.Sprintf(`{name: orphan, resources: {slots: 1, preemptible: true},
  entrypoint: 'ckpt() { echo checkpoint > %[1]s/ckpt-$ALLOT_ATTEMPT; exit 0; }; trap ckpt TERM; echo "attempt $ALLOT_ATTEMPT runs";
    while :; do if [ -f "$ALLOT_PREEMPT_FILE" ]; then ckpt; fi; sleep 0.2; done'}`, marks))
	c.waitLog(id, 0, "attempt 1 runs")

	c.agent("h1").kill9(t)
	c.waitNode("h1", "lost")
	c.waitJob(id, "its attempt lost", func(j api.Job) bool {
		ts := j.TaskList[0]
		return len(ts.Attempts) == 1 && ts.Attempts[0].EndState == "lost"
	})
	if len(attemptProcs(c, id, 1)) == 0 {
		t.Fatal("the task died with its agent")
	}

	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	jt, err := c.api.Identity().CreateToken(ctx, api.NewToken{Kind: api.TokenJoin, Note: "replace h1"})
	if err != nil {
		t.Fatal(err)
	}
	// The new machine is another host: its agent cannot stop the orphan
	// here, as on one host it would (TestTakeoverSameHostStopsStrays).
	// Reaching the master by another address (localhost, not 127.0.0.1)
	// makes it unable to tell the orphan's shims for its node's, so it
	// only warns of them, and the old agent's own stop is what is tested.
	newAgent := c.startNamedAgentAt("agent-h1-new", "h1", "h1-new", jt.Secret, strings.Replace(c.url, "127.0.0.1", "localhost", 1))
	c.waitJob(id, "its second attempt on the new h1", func(j api.Job) bool {
		ts := j.TaskList[0]
		return ts.State == "running" && len(ts.Attempts) == 2
	})
	c.waitLog(id, 0, "attempt 2 runs")
	if !strings.Contains(newAgent.log(), "cannot tell whether they are node h1's") {
		t.Errorf("the new agent did not warn of the orphan's shims it cannot place:\n%s", tail(newAgent.log(), 4000))
	}
	last, err := c.api.Identity().Audit(ctx, client.AuditQuery{Last: 1})
	if err != nil || len(last) != 1 {
		t.Fatalf("audit: %v, %d entries", err, len(last))
	}

	// The old host's agent comes back on its work directory, with the
	// join token it was installed with.
	old := c.startNamedAgent("agent-h1-old", "h1", "h1", c.join)
	c.poll(waitTimeout, "the orphaned attempt to stop", func(context.Context) (bool, string) {
		left := attemptProcs(c, id, 1)
		return len(left) == 0, describeProcs(left)
	})
	if _, err := os.Stat(filepath.Join(marks, "ckpt-1")); err == nil {
		t.Errorf("the orphaned attempt checkpointed, want it killed at once\n%s", tail(old.log(), 4000))
	}
	if n := strings.Count(old.log(), disownedLine); n != 1 {
		t.Errorf("the old agent logged %q %d times, want once:\n%s", disownedLine, n, tail(old.log(), 4000))
	}
	if len(attemptProcs(c, id, 2)) == 0 {
		t.Errorf("the second attempt no longer runs: %s", describeJob(c.show(id)))
	}
	if j := c.show(id); j.State != "running" || len(j.TaskList[0].Attempts) != 2 {
		t.Errorf("job after the old agent's return: %s; want its second attempt running", describeJob(j))
	}
	if _, err := os.Stat(filepath.Join(marks, "ckpt-2")); err == nil {
		t.Error("the second attempt was asked to checkpoint")
	}
	refused := func() []api.AuditEntry {
		all, err := c.api.Identity().Audit(ctx, client.AuditQuery{After: last[0].Seq, Limit: 10000})
		if err != nil {
			t.Fatal(err)
		}
		var out []api.AuditEntry
		for _, e := range all {
			if e.Status >= 400 && strings.Contains(e.Action, "/agents/") {
				out = append(out, e)
			}
		}
		return out
	}
	before := refused()
	time.Sleep(5 * time.Second) // a retry loop of the refused agent would show
	after := refused()
	if len(after) > 4 || len(after) != len(before) {
		t.Errorf("refused agent requests in the audit log: %d, then %d 5 s later; want a few, then none:\n%+v", len(before), len(after), after)
	}
}

// startNamedAgent starts an agent process (its log NAME.log) for node with the
// work directory agents/dir and the join token, beside the cluster's.
func (c *cluster) startNamedAgent(name, node, dir, join string) *proc {
	c.t.Helper()
	return c.startNamedAgentAt(name, node, dir, join, c.url)
}

// startNamedAgentAt is startNamedAgent with the master at url.
func (c *cluster) startNamedAgentAt(name, node, dir, join, url string) *proc {
	c.t.Helper()
	return c.startEnv(name, c.dir, []string{"ALLOT_JOIN_TOKEN=" + join}, "agent", "--master", url, "--name", node,
		"--pool", "default", "--fake-gpus", "2", "--gpu-type", "h100",
		"--work-dir", filepath.Join(c.dir, "agents", dir), "--exit-grace", "2s")
}
