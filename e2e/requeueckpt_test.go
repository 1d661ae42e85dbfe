package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestRequeueSaysWhetherItCheckpointed: with a real agent, a requeued
// task that wrote into $ALLOT_CHECKPOINT_DIR is said to resume from its
// checkpoint, one that wrote nothing to start over (trial 2026-11-29c
// C5), as the agent's exit report said (api.Report.Checkpoint, sent as
// the master's registration reply accepts it).
func TestRequeueSaysWhetherItCheckpointed(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: onePool, agents: []agentSpec{{name: "node-1", pool: "default", gpus: 2}}})
	const loop = `trap 'exit 0' TERM; echo ready; while :; do sleep 0.05; done`
	for _, tc := range []struct {
		name, write, waits, explain string
	}{
		{"writes", `echo step > "$ALLOT_CHECKPOINT_DIR/ckpt"; `, ", waiting to resume from its checkpoint",
			"(attempt 1), and resumes from its checkpoint."},
		{"writes-none", ``, ", waiting to start over: it wrote no checkpoint",
			"(attempt 1), and starts over: it wrote no checkpoint."},
	} {
		id := c.submit(tc.name, "name: "+tc.name+"\nresources: {slots: 1}\nentrypoint: >-\n  "+tc.write+loop+"\n")
		c.waitLog(id, 0, "ready")
		c.cliOK("job", "requeue", "--hold", strconv.FormatInt(id, 10))
		j := c.waitJob(id, "requeued, held", func(j api.Job) bool {
			return len(j.TaskList) == 1 && len(j.TaskList[0].Attempts) == 1 && j.TaskList[0].Attempts[0].EndedAt != nil
		})
		var events api.JobEvents
		c.cliJSON(&events, "job", "events", strconv.FormatInt(id, 10))
		waits := false
		for _, e := range events.Events {
			waits = waits || e.To == "queued" && strings.HasSuffix(e.Reason, tc.waits)
		}
		if !waits {
			t.Errorf("%s: events %+v, want the task waiting with %q", tc.name, events.Events, tc.waits)
		}
		x, err := c.api.Explain(t.Context(), id)
		if err != nil || !strings.Contains(x.Summary, tc.explain) {
			t.Errorf("%s: explain %q (%v), want %q; job %s", tc.name, x.Summary, err, tc.explain, describeJob(j))
		}
	}
}
