package master

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

func TestLifecycleCompletes(t *testing.T) { onBackends(t, lifecycleCompletes) }

func lifecycleCompletes(t *testing.T, h *harness) {
	a := h.agent("n1", 8)
	id := h.submit(jobSpec("train", 2, ""))
	h.step()
	if got := h.taskState(id, 0); got != store.TaskStarting {
		t.Fatalf("after the pass: task %s, want starting", got)
	}
	h.sync(a) // gets the start, reports running in the next sync
	h.sync(a)
	if got := h.taskState(id, 0); got != store.TaskRunning {
		t.Fatalf("after running report: task %s, want running", got)
	}
	starts := a.Started()
	if len(starts) != 1 || len(starts[0].GPUs) != 2 || starts[0].NodeCount != 1 ||
		!strings.HasSuffix(starts[0].CheckpointDir, "/checkpoints/1/0") || starts[0].WorkDir != "" {
		t.Fatalf("starts %+v", starts)
	}
	if j := h.job(id); j.State != "running" || j.Running != 1 {
		t.Fatalf("job %+v", j)
	}
	a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	j := h.job(id)
	if j.State != "completed" || j.EndedAt == nil {
		t.Fatalf("job state %s (%s), want completed", j.State, j.Reason)
	}
	att := j.TaskList[0].Attempts
	if len(att) != 1 || att[0].EndState != "completed" || att[0].ExitCode == nil || *att[0].ExitCode != 0 ||
		att[0].RunningAt == nil || len(att[0].Placement) != 1 || att[0].Placement[0].Node != "n1" {
		t.Fatalf("attempts %+v", att)
	}
}

func TestTaskEnds(t *testing.T) {
	tests := []struct {
		name     string
		outcome  agent.Outcome
		code     int
		task     store.TaskState
		job      string
		restarts int
	}{
		{"exit 0 completes", agent.OutcomeCompleted, 0, store.TaskCompleted, "completed", 0},
		{"non-zero exit fails", agent.OutcomeFailed, 3, store.TaskFailed, "failed", 0},
		{"killed on the agent unasked fails", agent.OutcomeKilled, -1, store.TaskFailed, "failed", 0},
		{"preempted unasked is requeued", agent.OutcomePreempted, 0, store.TaskQueued, "queued", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 8)
			id := h.submit(jobSpec("train", 1, ""))
			h.step()
			h.sync(a)
			a.Exit(tid(id, 0, 1), tt.outcome, tt.code)
			h.sync(a)
			tasks, err := h.st.Tasks(h.ctx, store.TaskFilter{JobID: id})
			if err != nil {
				t.Fatal(err)
			}
			if tasks[0].State != tt.task || tasks[0].Restarts != tt.restarts {
				t.Fatalf("task %s restarts %d (%s), want %s restarts %d", tasks[0].State, tasks[0].Restarts,
					tasks[0].Reason, tt.task, tt.restarts)
			}
			if j := h.job(id); j.State != tt.job {
				t.Fatalf("job %s (%s), want %s", j.State, j.Reason, tt.job)
			}
		})
	}
}

func TestPreemptionRequeuesWithTheSameCheckpoint(t *testing.T) { onBackends(t, preemptionRequeues) }

func preemptionRequeues(t *testing.T, h *harness) {
	a := h.agent("n1", 4)
	a.HoldPreempt = true
	low := h.submit(jobSpec("low", 4, `, "priority": 60, "preemptible": true`))
	h.step()
	h.sync(a, a)
	high := h.submit(jobSpec("high", 4, `, "priority": 10`))
	h.step()
	if got := h.taskState(low, 0); got != store.TaskPreempting {
		t.Fatalf("low task %s, want preempting", got)
	}
	h.sync(a)
	cmds := a.Commands()
	last := cmds[len(cmds)-1]
	if last.Type != api.CommandPreempt || last.GraceS != 30 || last.Task != tid(low, 0, 1) {
		t.Fatalf("last command %+v, want preempt of %v with 30 s grace", last, tid(low, 0, 1))
	}
	if j := h.job(high); j.Pending == nil || j.Pending.Reason != "checkpointing" {
		t.Fatalf("high job pending %+v, want checkpointing", j.Pending)
	}
	a.Exit(tid(low, 0, 1), agent.OutcomePreempted, 0)
	h.sync(a)
	if got := h.taskState(low, 0); got != store.TaskQueued {
		t.Fatalf("low task %s after checkpoint, want queued", got)
	}
	h.step()
	h.sync(a, a)
	a.Exit(tid(high, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.step()
	h.sync(a)
	starts := a.Started()
	if len(starts) != 3 {
		t.Fatalf("%d starts, want 3: %+v", len(starts), starts)
	}
	first, again := starts[0], starts[2]
	if again.ID() != tid(low, 0, 2) || again.RestartCount != 1 || again.CheckpointDir != first.CheckpointDir {
		t.Fatalf("restart %+v, first %+v: want attempt 2, restart count 1, same checkpoint dir", again, first)
	}
}

func TestKillJob(t *testing.T) { onBackends(t, killJob) }

func killJob(t *testing.T, h *harness) {
	a := h.agent("n1", 2)
	id := h.submit(`{"name": "hp", "entrypoint": "train", "resources": {"slots": 1},
		"hyperparameters": {"lr": {"type": "categorical", "vals": [1, 2, 3]}}, "searcher": {"name": "grid"}}`)
	h.step()
	h.sync(a, a)
	var j api.Job
	if code := h.do("POST", "/api/v1/jobs/1/kill", nil, &j); code != 200 || j.State != "killed" {
		t.Fatalf("kill: %d %+v", code, j)
	}
	if got := h.taskState(id, 2); got != store.TaskKilled {
		t.Fatalf("queued task %s, want killed", got)
	}
	if got := h.taskState(id, 0); got != store.TaskKilling {
		t.Fatalf("running task %s, want killing", got)
	}
	h.sync(a) // gets the kills, reports them in the next sync
	h.sync(a)
	for i := range 3 {
		if got := h.taskState(id, i); got != store.TaskKilled {
			t.Errorf("task %d %s, want killed", i, got)
		}
	}
	if _, live := h.m.jobs[id]; live {
		t.Error("killed job is still in the mirror")
	}
	if code := h.do("POST", "/api/v1/jobs/1/kill", nil, &j); code != 200 || j.State != "killed" {
		t.Fatalf("second kill: %d %+v", code, j)
	}
}

func TestGangSpansNodes(t *testing.T) { onBackends(t, gangSpansNodes) }

func gangSpansNodes(t *testing.T, h *harness) {
	a, b := h.agent("n1", 4), h.agent("n2", 4)
	id := h.submit(jobSpec("big", 8, ""))
	h.step()
	h.sync(a, b)
	sa, sb := a.Started(), b.Started()
	if len(sa) != 1 || len(sb) != 1 || sa[0].NodeCount != 2 || sb[0].NodeCount != 2 ||
		sa[0].NodeRank+sb[0].NodeRank != 1 || len(sa[0].GPUs) != 4 {
		t.Fatalf("starts %+v %+v, want one part of 4 GPUs on each node with ranks 0 and 1", sa, sb)
	}
	h.sync(a)
	if got := h.taskState(id, 0); got != store.TaskStarting {
		t.Fatalf("one part running: task %s, want starting", got)
	}
	h.sync(b)
	if got := h.taskState(id, 0); got != store.TaskRunning {
		t.Fatalf("both parts running: task %s, want running", got)
	}
	a.Exit(tid(id, 0, 1), agent.OutcomeFailed, 1)
	h.sync(a)
	if got := h.taskState(id, 0); got != store.TaskKilling {
		t.Fatalf("one part failed: task %s, want killing", got)
	}
	h.sync(b, b)
	if got := h.taskState(id, 0); got != store.TaskFailed {
		t.Fatalf("task %s, want failed", got)
	}
	if j := h.job(id); j.State != "failed" || !strings.Contains(j.TaskList[0].Reason, "node n1") {
		t.Fatalf("job %s, task reason %q", j.State, j.TaskList[0].Reason)
	}
}

func TestAgentLoss(t *testing.T) {
	tests := []struct {
		name        string
		preemptible bool
		want        store.TaskState
		// stop is what the attempt the agent still runs gets when it
		// registers again: a checkpoint request for a task that waits
		// to resume (stray.go), a kill otherwise.
		stop string
	}{
		{"preemptible task is requeued", true, store.TaskQueued, api.CommandPreempt},
		{"other task fails", false, store.TaskFailed, api.CommandKill},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 2)
			extra := `, "preemptible": false`
			if tt.preemptible {
				extra = `, "preemptible": true`
			}
			id := h.submit(jobSpec("train", 1, extra))
			h.step()
			h.sync(a, a)
			h.clock.Advance(29 * time.Second)
			h.m.Tick(h.ctx)
			if n := h.m.nodes["n1"]; !n.up() {
				t.Fatal("node lost before the agent timeout")
			}
			h.clock.Advance(2 * time.Second)
			h.m.Tick(h.ctx)
			if !tt.preemptible {
				// It must not run twice: it waits for the node to come back.
				if got := h.taskState(id, 0); got != store.TaskRunning {
					t.Fatalf("non-preemptible task on the just-lost node is %s, want still running", got)
				}
				h.clock.Advance(config.DefaultLostNodeGrace)
				h.m.Tick(h.ctx)
			}
			if got := h.taskState(id, 0); got != tt.want {
				t.Fatalf("task %s, want %s", got, tt.want)
			}
			atts, _ := h.st.Attempts(h.ctx, store.AttemptFilter{JobID: id})
			if atts[0].EndState != store.AttemptLost || !strings.Contains(atts[0].Reason, "node n1 lost") {
				t.Fatalf("attempt %+v", atts[0])
			}
			if _, err := a.Sync(h.ctx, 0); err != mastertest.ErrNotRegistered {
				t.Fatalf("sync of a lost node: %v, want 404", err)
			}
			if _, err := a.Register(h.ctx); err != nil {
				t.Fatal(err)
			}
			h.sync(a)
			if last := a.Commands()[len(a.Commands())-1]; last.Type != tt.stop || last.Task != tid(id, 0, 1) {
				t.Fatalf("after re-registering: last command %+v, want %s of the lost attempt", last, tt.stop)
			}
		})
	}
}

func TestRegisterReconciles(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 4)
	id := h.submit(jobSpec("train", 1, `, "preemptible": true`))
	h.step()
	h.sync(a, a)
	a.Restart() // the agent process died with its task
	reply, err := a.Register(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.Commands) != 0 {
		t.Fatalf("register reply commands %+v", reply.Commands)
	}
	if got := h.taskState(id, 0); got != store.TaskRunning {
		t.Fatalf("before the first sync: task %s, want running (the sync may still report its end)", got)
	}
	h.sync(a)
	if got := h.taskState(id, 0); got != store.TaskQueued {
		t.Fatalf("after the first sync: task %s, want queued (lost, preemptible)", got)
	}

	// An agent that runs an attempt the master does not know is told to kill it.
	b := &mastertest.Agent{Master: h.srv.URL, Token: h.join, Name: "n2", GPUs: 1}
	b.Register(h.ctx)
	h.creds["n2"] = b.Credential()
	stray := tid(99, 0, 1)
	b.Exit(stray, agent.OutcomeCompleted, 0) // no-op: the fake agent only reports what it runs
	reg := api.Register{Name: "n2", GPUs: []api.GPU{{Index: 0, UUID: "u", Type: "h100"}}, Running: []agent.TaskID{stray}}
	var rr api.RegisterReply
	if code := h.do("POST", "/api/v1/agents/register", reg, &rr); code != 200 {
		t.Fatalf("register: %d", code)
	}
	if len(rr.Commands) != 1 || rr.Commands[0].Type != api.CommandKill || rr.Commands[0].Task != stray || rr.Commands[0].GraceS != 0 {
		t.Fatalf("register reply %+v, want a kill at once (no kill_grace) of %v", rr.Commands, stray)
	}
}

func TestCompletionReportedAcrossReregistration(t *testing.T) {
	onBackends(t, completionAcrossReregistration)
}

func completionAcrossReregistration(t *testing.T, h *harness) {
	a := h.agent("n1", 4)
	id := h.submit(jobSpec("train", 1, ""))
	h.step()
	h.sync(a, a)
	a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
	// The master restarts before the exit report arrives.
	h.start()
	a.Master = h.srv.URL
	if _, err := a.Sync(h.ctx, 0); err != mastertest.ErrNotRegistered {
		t.Fatalf("first sync after a master restart: %v, want 404", err)
	}
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.sync(a)
	if got := h.taskState(id, 0); got != store.TaskCompleted {
		t.Fatalf("task %s, want completed (the re-sent report wins over reconciliation)", got)
	}
}

func TestMasterRestartKeepsRunningWork(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 4)
	a.HoldPreempt = true
	low := h.submit(jobSpec("low", 2, `, "priority": 60`))
	keep := h.submit(jobSpec("keep", 2, `, "priority": 50, "preemptible": false`))
	h.step()
	h.sync(a, a)
	h.submit(jobSpec("high", 2, `, "priority": 10`))
	h.step() // low is preempting; the preempt command is lost with the master
	h.start()
	a.Master = h.srv.URL
	if got := h.taskState(low, 0); got != store.TaskPreempting {
		t.Fatalf("after restart: low %s, want preempting", got)
	}
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.sync(a)
	var preempts int
	for _, c := range a.Commands() {
		if c.Type == api.CommandPreempt && c.Task == tid(low, 0, 1) {
			preempts++
		}
	}
	if preempts != 1 {
		t.Fatalf("%d preempt commands for the low task, want 1 (queued again by the restarted master)", preempts)
	}
	if got := h.taskState(keep, 0); got != store.TaskRunning {
		t.Fatalf("keep: %s, want still running", got)
	}
}

func TestTimeLimitKills(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 1)
	id := h.submit(jobSpec("short", 1, `, "time_limit": 60`))
	h.step()
	h.sync(a, a)
	for _, d := range []time.Duration{20, 20, 19} { // the agent keeps syncing: only the limit matters
		h.clock.Advance(d * time.Second)
		h.sync(a)
		h.m.Tick(h.ctx)
	}
	if got := h.taskState(id, 0); got != store.TaskRunning {
		t.Fatalf("before the limit: %s", got)
	}
	h.clock.Advance(time.Second)
	h.m.Tick(h.ctx)
	if got := h.taskState(id, 0); got != store.TaskKilling {
		t.Fatalf("at the limit: %s, want killing", got)
	}
	h.sync(a, a)
	j := h.job(id)
	if j.State != "killed" || !strings.Contains(j.TaskList[0].Reason, "time limit") {
		t.Fatalf("job %s, task reason %q", j.State, j.TaskList[0].Reason)
	}
	if want := "1 of 1 task reached the time limit of 1m"; j.Reason != want {
		t.Errorf("job reason %q, want %q", j.Reason, want)
	}
}

func TestKilledReasonCountsTimeLimits(t *testing.T) {
	for _, c := range []struct {
		name    string
		limited []bool // per killed task
		tasks   int
		want    string
	}{
		{"killed", []bool{false}, 1, "1 of 1 task was killed"},
		{"time limit", []bool{true, true}, 2, "2 of 2 tasks reached the time limit of 1m"},
		{"both", []bool{true, false}, 3, "2 of 3 tasks were killed, 1 by the time limit of 1m"},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := newJob(store.Job{ID: 1, TimeLimit: time.Minute})
			for i := range c.tasks {
				task := &mtask{job: j}
				if i < len(c.limited) {
					// Killed, by its time limit's kill or a user's.
					if c.limited[i] {
						task.Stop.LimitKill(string(store.CauseTimeLimit))
					} else {
						task.Stop.Kill(store.TaskKilled, "")
					}
					task.Stop.Leave(store.TaskKilled)
				}
				j.tasks = append(j.tasks, task)
			}
			if got := killedReason(j, len(c.limited)); got != c.want {
				t.Errorf("killedReason = %q, want %q", got, c.want)
			}
		})
	}
}

func TestStartNeverAcknowledgedIsLost(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 1)
	id := h.submit(jobSpec("train", 1, ""))
	h.step()
	// The sync reply carrying the start is lost: the agent never runs it.
	var reply api.SyncReply
	h.do("POST", "/api/v1/agents/n1/sync", api.Sync{}, &reply)
	if len(reply.Commands) != 1 {
		t.Fatalf("commands %+v", reply.Commands)
	}
	h.sync(a)
	if got := h.taskState(id, 0); got != store.TaskStarting {
		t.Fatalf("one sync later: %s, want starting", got)
	}
	h.sync(a)
	if got := h.taskState(id, 0); got != store.TaskStarting {
		t.Fatalf("two syncs but no time later: %s, want starting (the agent may still be starting it)", got)
	}
	h.clock.Advance(DefaultAgentTimeout / 10)
	h.sync(a)
	if got := h.taskState(id, 0); got != store.TaskQueued {
		t.Fatalf("three syncs and 3 s later: %s, want queued again (never ran)", got)
	}
}

func TestAddJobKeepsIDOrder(t *testing.T) {
	m := &Master{jobs: map[int64]*mjob{}}
	for _, id := range []int64{2, 5, 3, 1, 9, 4} {
		m.addJob(newJob(store.Job{ID: id}))
	}
	var got []int64
	for _, j := range m.order {
		got = append(got, j.rec.ID)
	}
	if want := []int64{1, 2, 3, 4, 5, 9}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}
