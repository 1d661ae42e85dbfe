package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// onePool is a priority pool with preemption and a short grace period,
// so that a task that ignores its checkpoint request is killed soon.
const onePool = `
agent_timeout: 20s
pools:
  - {name: default, policy: priority, preemption: true, backfill: true, grace: 3s, kill_grace: 2s}
`

// preemptGrace and killGrace are onePool's grace and kill_grace.
const (
	preemptGrace = 3 * time.Second
	killGrace    = 2 * time.Second
)

// urgentJob needs both GPUs of the test's node.
const urgentJob = `{name: urgent, resources: {slots: 2, priority_class: HIGH}, entrypoint: 'echo "urgent on [$CUDA_VISIBLE_DEVICES]"'}`

// TestPreemptionCheckpointAndResume: a LOW experiment trial running
// examples/train holds every GPU; a HIGH job arrives; the trial gets the
// checkpoint request, checkpoints, is requeued, and resumes on its next
// attempt with the same checkpoint directory and ALLOT_RESTART_COUNT 1,
// losing no step.
func TestPreemptionCheckpointAndResume(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: onePool, agents: []agentSpec{{name: "node-1", pool: "default", gpus: 2}}})
	const steps = 300
	trial := c.submit("trial", fmt.Sprintf(`name: trial
kind: experiment
resources: {slots: 2, priority_class: LOW}
entrypoint: 'echo "ckpt=$ALLOT_CHECKPOINT_DIR restart=$ALLOT_RESTART_COUNT attempt=$ALLOT_ATTEMPT"; exec %s -steps %d -step-time 50ms'
`, bins.train, steps))
	c.waitLog(trial, 0, "step 10")
	urgent := c.submit("urgent", urgentJob)

	u := c.waitEnded(urgent)
	j := c.waitEnded(trial)
	if u.State != "completed" || j.State != "completed" {
		t.Fatalf("urgent %s, trial %s; want both completed: %s; %s", u.State, j.State, describeJob(c.show(urgent)), describeJob(c.show(trial)))
	}
	j, u = c.show(trial), c.show(urgent)
	task := j.TaskList[0]
	if len(task.Attempts) != 2 || task.Restarts != 1 {
		t.Fatalf("trial: %d attempts, %d restarts; want 2 and 1: %s", len(task.Attempts), task.Restarts, describeJob(j))
	}
	first, second := task.Attempts[0], task.Attempts[1]
	if first.EndState != "preempted" || second.EndState != "completed" {
		t.Errorf("trial attempts ended %s, %s; want preempted, completed", first.EndState, second.EndState)
	}
	// The urgent job got the GPUs the checkpoint freed.
	ua := u.TaskList[0].Attempts[0]
	if first.EndedAt == nil || ua.StartedAt.Before(*first.EndedAt) {
		t.Errorf("urgent started at %v, before the trial's first attempt ended at %v", ua.StartedAt, first.EndedAt)
	}
	if second.StartedAt.Before(*u.TaskList[0].Attempts[0].EndedAt) {
		t.Errorf("the trial resumed at %v, before the urgent job ended", second.StartedAt)
	}

	lines := c.logLines(trial, 0)
	stopped := checkTrainAttempt(t, lines, 1, task.CheckpointDir, 0, 0)
	if stopped <= 0 || stopped >= steps {
		t.Errorf("first attempt checkpointed at step %d, want 0 < step < %d", stopped, steps)
	}
	if end := checkTrainAttempt(t, lines, 2, task.CheckpointDir, 1, stopped); end != steps {
		t.Errorf("second attempt ended at step %d, want %d", end, steps)
	}
	if got := checkpointStep(t, task.CheckpointDir); got != steps {
		t.Errorf("checkpoint file holds step %d, want %d", got, steps)
	}
}

var (
	ckptLine  = regexp.MustCompile(`^ckpt=(.*) restart=(\d+) attempt=(\d+)$`)
	startLine = regexp.MustCompile(`^start step=(\d+) restart=(\d+)`)
	stepLine  = regexp.MustCompile(`^step (\d+)$`)
	endLine   = regexp.MustCompile(`^(checkpoint|done) step=(\d+)`)
)

// checkTrainAttempt checks one attempt's output of examples/train: the
// checkpoint directory and restart count it saw, that it resumed at
// from, printed every step after it in order, and ended (checkpoint or
// done) at its last step, which it returns.
func checkTrainAttempt(t *testing.T, lines []api.LogLine, attempt int, dir string, restarts, from int) int {
	t.Helper()
	var text []string
	for _, l := range lines {
		if l.Attempt == attempt && l.Stream == "stdout" {
			text = append(text, l.Text)
		}
	}
	if len(text) < 3 {
		t.Errorf("attempt %d printed %d lines: %q", attempt, len(text), text)
		return -1
	}
	m := ckptLine.FindStringSubmatch(text[0])
	if m == nil || m[1] != dir || m[2] != strconv.Itoa(restarts) || m[3] != strconv.Itoa(attempt) {
		t.Errorf("attempt %d began with %q, want ckpt=%s restart=%d attempt=%d", attempt, text[0], dir, restarts, attempt)
	}
	if m := startLine.FindStringSubmatch(text[1]); m == nil || m[1] != strconv.Itoa(from) || m[2] != strconv.Itoa(restarts) {
		t.Errorf("attempt %d: %q, want start step=%d restart=%d", attempt, text[1], from, restarts)
	}
	step := from
	for _, s := range text[2 : len(text)-1] {
		m := stepLine.FindStringSubmatch(s)
		if m == nil || m[1] != strconv.Itoa(step+1) {
			t.Errorf("attempt %d: %q after step %d, want step %d", attempt, s, step, step+1)
			return -1
		}
		step++
	}
	last := text[len(text)-1]
	m = endLine.FindStringSubmatch(last)
	if m == nil || m[2] != strconv.Itoa(step) {
		t.Errorf("attempt %d ended with %q after step %d", attempt, last, step)
		return -1
	}
	return step
}

// checkpointStep reads examples/train's checkpoint.
func checkpointStep(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "train-state.json"))
	if err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	var st struct{ Step int }
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("checkpoint %s: %v", b, err)
	}
	return st.Step
}

// stubborn ignores SIGTERM and only notes the preempt file, so the agent
// must kill it at the grace deadline.
const stubborn = `name: stubborn
kind: experiment
resources: {slots: 2, priority_class: LOW}
entrypoint: >-
  trap 'echo "SIGTERM ignored"' TERM;
  echo "started attempt $ALLOT_ATTEMPT"; seen=;
  while :; do
  if [ -z "$seen" ] && [ -f "$ALLOT_PREEMPT_FILE" ]; then seen=1; echo "checkpoint request ignored, deadline $(cat "$ALLOT_PREEMPT_FILE")"; fi;
  sleep 0.1;
  done
`

// TestPreemptionKilledAtGraceDeadline: a preempted task that ignores
// SIGTERM and the preempt file is killed at the pool's grace deadline,
// and its attempt still ends as preempted, so it is requeued. Killed by
// allot job kill, it gets SIGTERM, which it ignores too, and is SIGKILLed
// at the end of the pool's kill_grace.
func TestPreemptionKilledAtGraceDeadline(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: onePool, agents: []agentSpec{{name: "node-1", pool: "default", gpus: 2}}})
	id := c.submit("stubborn", stubborn)
	c.waitLog(id, 0, "started attempt 1")
	urgent := c.submit("urgent", urgentJob)
	if u := c.waitEnded(urgent); u.State != "completed" {
		t.Fatalf("urgent job %s", describeJob(c.show(urgent)))
	}
	j := c.waitJob(id, "to run its second attempt", func(j api.Job) bool {
		return len(j.TaskList) == 1 && len(j.TaskList[0].Attempts) == 2 && j.TaskList[0].State == "running"
	})
	first := j.TaskList[0].Attempts[0]
	u := c.show(urgent)
	if first.EndState != "preempted" || first.EndedAt == nil {
		t.Fatalf("first attempt ended %q, want preempted: %s", first.EndState, describeJob(j))
	}
	// The request went out after the urgent job was submitted, and the
	// task ignored it, so its end came a grace period later at least.
	if held := first.EndedAt.Sub(u.SubmittedAt); held < preemptGrace {
		t.Errorf("the stubborn attempt ended %s after the urgent job arrived, sooner than the %s grace", held, preemptGrace)
	}
	var text []string
	for _, l := range c.logLines(id, 0) {
		if l.Attempt == 1 {
			text = append(text, l.Text)
		}
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{"SIGTERM ignored", "checkpoint request ignored, deadline 20"} {
		if !strings.Contains(all, want) {
			t.Errorf("first attempt's output lacks %q:\n%s", want, all)
		}
	}
	if left := findProcs(markerEnv+"="+c.marker, "ALLOT_JOB_ID="+strconv.FormatInt(id, 10), "ALLOT_ATTEMPT=1"); len(left) > 0 {
		t.Errorf("processes of the killed attempt still run: %s", describeProcs(left))
	}
	killAt := time.Now()
	c.cliOK("job", "kill", strconv.FormatInt(id, 10))
	k := c.waitEnded(id)
	if k.State != "killed" {
		t.Errorf("after allot job kill the job is %s", k.State)
	}
	k = c.waitJob(id, "its task to end killed", func(j api.Job) bool {
		return len(j.TaskList) == 1 && j.TaskList[0].State == "killed"
	})
	if len(k.TaskList[0].Attempts) != 2 {
		t.Fatalf("after the kill: %s, want one task with two attempts", describeJob(k))
	}
	// It ignored the SIGTERM: the SIGKILL came at the kill grace's end.
	a := k.TaskList[0].Attempts[1]
	if a.EndState != "killed" || a.EndedAt == nil {
		t.Fatalf("second attempt ended %q at %v, want killed: %s", a.EndState, a.EndedAt, describeJob(k))
	}
	if took := a.EndedAt.Sub(killAt); took < killGrace {
		t.Errorf("second attempt ended %v after the kill, sooner than the %v kill_grace", took, killGrace)
	}
	var second []string
	for _, l := range c.logLines(id, 0) {
		if l.Attempt == 2 {
			second = append(second, l.Text)
		}
	}
	if !strings.Contains(strings.Join(second, "\n"), "SIGTERM ignored") {
		t.Errorf("the killed attempt's output lacks %q (the kill's SIGTERM):\n%s", "SIGTERM ignored", strings.Join(second, "\n"))
	}
}
