package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store/pgtest"
)

// limitInOutage is the job's time limit, and outageFrom and outageUntil
// when PostgreSQL is stopped, counted from the job's start: the limit
// falls 12 s into a 27 s outage, as in trial r R14 (12m limit, the
// store down 22:13:00-22:13:38, the job charged 22 s past its limit).
const (
	limitInOutage = 20 * time.Second
	outageFrom    = 8 * time.Second
	outageUntil   = 35 * time.Second
	// limitSlackE2E is the agent's slack after a deadline (agentd's
	// limitSlack), and exitMargin what the test allows beyond it: the
	// task's SIGTERM trap, the reply's way, a loaded machine.
	limitSlackE2E = 5 * time.Second
	exitMargin    = 5 * time.Second
)

// TestTimeLimitInStoreOutage: a job whose time limit falls while the
// master's PostgreSQL is stopped ends at its limit, not when the store is
// back: the agent, told the deadline by the master's replies, kills the
// task (SIGTERM, which holdScript traps to checkpoint) 5 s past it, and
// the master, once the store is back, records it as its own time-limit
// kill: killed, "time limit of 20s reached", that the agent applied it
// during the outage, and the attempt's exit (which its usage is charged
// until) before the store came back.
func TestTimeLimitInStoreOutage(t *testing.T) {
	t.Parallel()
	pg := pgtest.Start(t, pgtest.Options{})
	dsn, err := pg.NewSchema()
	if err != nil {
		t.Fatal(err)
	}
	c := newCluster(t, clusterSpec{config: outagePool, agents: []agentSpec{{name: "n2", pool: "default", gpus: 4}}, dsn: dsn})
	file, err := json.Marshal(map[string]any{"name": "ana-hold", "entrypoint": holdScript,
		"environment": map[string]string{"E2E_RELEASE": c.releaseDir()},
		"resources":   map[string]any{"slots": 4, "time_limit": int(limitInOutage / time.Second)}})
	if err != nil {
		t.Fatal(err)
	}
	id := c.submit("ana-hold", string(file))
	j := c.waitJob(id, "running", func(j api.Job) bool {
		return j.State == "running" && len(j.TaskList) == 1 && len(j.TaskList[0].Attempts) == 1
	})
	started := j.TaskList[0].Attempts[0].StartedAt

	sleepUntil(t, started.Add(outageFrom))
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	c.poll(waitTimeout, "/readyz to say the store is down", func(ctx context.Context) (bool, string) {
		code := readyz(ctx, c.url)
		return code == 503, fmt.Sprint(code)
	})
	sleepUntil(t, started.Add(outageUntil))
	if log := c.agent("n2").log(); !strings.Contains(log, "time limit: killing the attempt") {
		t.Errorf("the agent did not apply the time limit in the outage:\n%s", tail(log, 4000))
	}
	back := time.Now()
	if err := pg.Restart(); err != nil {
		t.Fatal(err)
	}

	j = c.waitEnded(id)
	task := j.TaskList[0]
	att := task.Attempts[0]
	if j.State != "killed" || len(task.Attempts) != 1 || att.EndState != "killed" {
		t.Fatalf("want killed on its one attempt: %s", describeJob(j))
	}
	for _, want := range []string{"time limit of 20s reached", "applied at the limit by node n2's agent: the store was unavailable"} {
		if !strings.Contains(task.Reason, want) {
			t.Errorf("task reason %q, want %q in it", task.Reason, want)
		}
	}
	if att.ExitedAt == nil {
		t.Fatalf("no exit time: %s", describeJob(j))
	}
	ran := att.ExitedAt.Sub(att.StartedAt)
	t.Logf("ran %s, the store back after %s: %q", ran.Round(time.Millisecond), back.Sub(att.StartedAt).Round(time.Millisecond), task.Reason)
	if ran < limitInOutage || ran > limitInOutage+limitSlackE2E+exitMargin || !att.ExitedAt.Before(back) {
		t.Errorf("the attempt ran %s (exited %s, the store back %s); want its limit of %s and at most %s more, before the store came back",
			ran, att.ExitedAt.Format(time.TimeOnly), back.Format(time.TimeOnly), limitInOutage, limitSlackE2E+exitMargin)
	}
	c.checkHeld(id, 0, 1, 0, "checkpoint") // SIGTERM, trapped: the kill's first step
}

// sleepUntil sleeps until at.
func sleepUntil(t *testing.T, at time.Time) {
	t.Helper()
	if !sleepCtx(context.Background(), time.Until(at)) {
		t.Fatal("interrupted")
	}
}
