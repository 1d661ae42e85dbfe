package e2e

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// TestMasterRestartKeepsTheExit: a task exits while the master is down
// (kill -9, back 8 s later), its last line ("released attempt 1") not
// yet delivered, so that its exit report waits for it. The agent
// registers with the restarted master listing the attempt exited, not
// running (running=0), and the master stores the exit its shim recorded
// as the attempt's exited_at and the job's end, which its usage ends
// at: before, it took the registration for a moment the attempt ran and
// charged and timed it until then (trial 2026-11-29a A10: a `sleep 30`
// had 36 s of ELAPSED).
func TestMasterRestartKeepsTheExit(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: outagePool, agents: []agentSpec{{name: "n5", pool: "default", gpus: 2}}})
	id := c.submit("short", c.holdJob("short", 1).file(t))
	c.waitLog(id, 0, "task 0 attempt 1")
	c.waitJob(id, "running", func(j api.Job) bool { return j.State == "running" })

	c.master.kill9(t)
	killed := time.Now()
	c.release(id, 0)
	exitFile := filepath.Join(c.dir, "agents", "n5", "jobs", strconv.FormatInt(id, 10), "0", agent.StateDir, agent.ExitFileName(1, 0))
	// Not c.poll, which fails once the master has exited.
	var st agent.ExitStatus
	for ok := false; !ok; {
		var err error
		if st, ok, err = agent.ReadExitFile(exitFile); err != nil {
			t.Fatal(err)
		}
		if !ok && time.Since(killed) > 7*time.Second {
			t.Fatalf("no exit file %s 7 s after the release", exitFile)
		}
		time.Sleep(pollEvery)
	}
	time.Sleep(time.Until(killed.Add(8 * time.Second)))
	c.restartMaster("master-2")

	j := c.waitEnded(id)
	task := j.TaskList[0]
	if j.State != "completed" || len(task.Attempts) != 1 || task.Attempts[0].EndState != "completed" {
		t.Fatalf("want completed on its one attempt: %s", describeJob(j))
	}
	near := func(at *time.Time) bool { return at != nil && at.Sub(st.ExitedAt).Abs() < time.Millisecond }
	if att := task.Attempts[0]; !near(att.ExitedAt) || !near(j.EndedAt) {
		t.Errorf("attempt exited at %v, job ended at %v; want both at the shim's exit %v (the master was back %s later)",
			att.ExitedAt, j.EndedAt, st.ExitedAt, time.Since(st.ExitedAt).Round(time.Second))
	}
	c.checkHeld(id, 0, 1, 0, "released")
	m := agentRegistered.FindStringSubmatch(c.master.log())
	if m == nil || m[2] != "0" {
		t.Errorf("n5 registered as %q, want running=0: the attempt had exited", m)
	}
}
