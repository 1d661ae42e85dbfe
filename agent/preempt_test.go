package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// steps returns the step numbers that "step N" lines report.
func steps(t *testing.T, lines []string) []int {
	t.Helper()
	var out []int
	for _, s := range lines {
		if rest, ok := strings.CutPrefix(s, "step "); ok {
			n, err := strconv.Atoi(rest)
			if err != nil {
				t.Fatalf("bad line %q", s)
			}
			out = append(out, n)
		}
	}
	return out
}

// savedStep reads the example's checkpoint.
func savedStep(t *testing.T, dir string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "train-state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct{ Step int }
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	return st.Step
}

// TestPreemptResume is seed 001's promise: a preempted trial checkpoints,
// and its next attempt, with the same checkpoint directory and a higher
// restart count, resumes where it stopped. Every step runs exactly once
// across the attempts, however the request is delivered.
func TestPreemptResume(t *testing.T) {
	tests := []struct {
		name       string
		signal     syscall.Signal // the runner's PreemptSignal; 0 for SIGTERM
		entrypoint string         // %s is the training program
		reason     string         // in the checkpoint line
	}{
		// An empty ALLOT_PREEMPT_FILE hides the file, so only the signal
		// can ask.
		{"signal", 0, "ALLOT_PREEMPT_FILE= %s -steps 100000 -step-time 5ms", "reason=terminated"},
		// SIGWINCH is ignored by default, so only the file can ask.
		{"file", syscall.SIGWINCH, "%s -steps 100000 -step-time 5ms", "reason=file"},
		// The shell stays the group leader and dies of SIGTERM at once;
		// the agent must still wait for the trainer's checkpoint.
		{"under a shell", 0, "cd . && ALLOT_PREEMPT_FILE= %s -steps 100000 -step-time 5ms; echo unreachable", "reason=terminated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ckpt := filepath.Join(t.TempDir(), "ckpt")
			work := t.TempDir()

			r1, l1 := testRunner()
			r1.PreemptSignal = tt.signal
			spec := TaskSpec{JobID: "exp", TaskIndex: 3, Attempt: 1, Entrypoint: fmt.Sprintf(tt.entrypoint, trainBin),
				WorkDir: work, CheckpointDir: ckpt, Hyperparameters: json.RawMessage(`{"lr":0.1}`)}
			task := start(t, r1, spec)
			l1.waitFor(t, "step 20", func(s string) bool { return s == "step 20" })
			before := time.Now()
			if err := task.Preempt(5 * time.Second); err != nil {
				t.Fatal(err)
			}
			res := wait(t, task)
			if res.Outcome != OutcomePreempted || res.KilledAtDeadline || res.PreemptedAt.IsZero() {
				t.Fatalf("first attempt: %+v; output %q", res, l1.texts(""))
			}
			if time.Since(before) > 3*time.Second {
				t.Errorf("the checkpoint took %v", time.Since(before))
			}
			out1 := l1.texts(Stdout)
			if out1[0] != `start step=0 restart=0 hparams={"lr":0.1}` {
				t.Errorf("first line %q", out1[0])
			}
			saved := savedStep(t, ckpt)
			ran1 := steps(t, out1)
			if len(ran1) == 0 || ran1[len(ran1)-1] != saved {
				t.Fatalf("checkpoint at step %d, but the last step run was %v", saved, ran1[len(ran1)-1:])
			}
			if want := fmt.Sprintf("checkpoint step=%d %s", saved, tt.reason); !contains(out1, want) {
				t.Errorf("no line %q in %q", want, out1[len(out1)-3:])
			}

			// The next attempt: same checkpoint dir, restart count 1.
			r2, l2 := testRunner()
			spec.Attempt, spec.RestartCount = 2, 1
			spec.Entrypoint = fmt.Sprintf("%s -steps %d -step-time 1ms", trainBin, saved+10)
			res2 := wait(t, start(t, r2, spec))
			out2 := l2.texts(Stdout)
			if res2.Outcome != OutcomeCompleted {
				t.Fatalf("second attempt: %+v; output %q", res2, out2)
			}
			if want := fmt.Sprintf(`start step=%d restart=1 hparams={"lr":0.1}`, saved); out2[0] != want {
				t.Errorf("second attempt starts %q, want %q", out2[0], want)
			}
			all := append(ran1, steps(t, out2)...)
			for i, s := range all {
				if s != i+1 {
					t.Fatalf("steps across attempts are not 1..%d once each: %v", saved+10, all)
				}
			}
			if len(all) != saved+10 || savedStep(t, ckpt) != saved+10 {
				t.Errorf("ran %d steps, checkpoint %d; want %d", len(all), savedStep(t, ckpt), saved+10)
			}
		})
	}
}

func contains(lines []string, want string) bool {
	for _, s := range lines {
		if s == want {
			return true
		}
	}
	return false
}

// TestPreemptIgnored: a task that ignores the request is killed at the
// deadline, and not before.
func TestPreemptIgnored(t *testing.T) {
	const grace = 300 * time.Millisecond
	r, l := testRunner()
	task := start(t, r, testSpec(t, `trap 'echo got TERM' TERM; echo ready; while :; do sleep 0.05; done`))
	l.waitFor(t, "ready", func(s string) bool { return s == "ready" })
	before := time.Now()
	if err := task.Preempt(grace); err != nil {
		t.Fatal(err)
	}
	res := wait(t, task)
	took := time.Since(before)
	if res.Outcome != OutcomePreempted || !res.KilledAtDeadline || res.Signal != "SIGKILL" || res.ExitCode != -1 {
		t.Errorf("result %+v", res)
	}
	if took < grace || took > grace+2*time.Second {
		t.Errorf("killed %v after the request, want just after %v", took, grace)
	}
	if !contains(l.texts(Stdout), "got TERM") {
		t.Errorf("the task never saw SIGTERM: %q", l.texts(""))
	}
}

func TestPreemptFile(t *testing.T) {
	r, l := testRunner()
	task := start(t, r, testSpec(t, `trap '' TERM; echo ready; while [ ! -e "$ALLOT_PREEMPT_FILE" ]; do sleep 0.01; done; cat "$ALLOT_PREEMPT_FILE"`))
	l.waitFor(t, "ready", func(s string) bool { return s == "ready" })
	before := time.Now()
	if err := task.Preempt(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := task.Preempt(time.Millisecond); err != nil {
		t.Errorf("a second Preempt: %v", err)
	}
	res := wait(t, task)
	if res.Outcome != OutcomePreempted || res.KilledAtDeadline || res.ExitCode != 0 {
		t.Fatalf("result %+v (the second Preempt must not shorten the deadline)", res)
	}
	out := l.texts(Stdout)
	deadline, err := time.Parse(time.RFC3339Nano, out[len(out)-1])
	if err != nil {
		t.Fatalf("preempt file holds %q: %v", out[len(out)-1], err)
	}
	if d := deadline.Sub(before); d < 4*time.Second || d > 6*time.Second {
		t.Errorf("deadline %v after the request, want 5s", d)
	}
	if task.PreemptFile() != filepath.Join(task.cmd.Dir, ".allot", "preempt") {
		t.Errorf("PreemptFile %q", task.PreemptFile())
	}
}

// TestKillDuringPreempt: Kill overrides a pending preemption at once.
func TestKillDuringPreempt(t *testing.T) {
	r, l := testRunner()
	task := start(t, r, testSpec(t, `trap '' TERM; echo ready; sleep 30`))
	l.waitFor(t, "ready", func(s string) bool { return s == "ready" })
	if err := task.Preempt(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	if err := task.Kill(0); err != nil {
		t.Fatal(err)
	}
	res := wait(t, task)
	if res.Outcome != OutcomeKilled || res.KilledAtDeadline || time.Since(before) > 2*time.Second {
		t.Errorf("result %+v after %v", res, time.Since(before))
	}
	if err := task.Preempt(time.Second); err != ErrTaskDone {
		t.Errorf("Preempt after Kill: %v", err)
	}
}

// TestPreemptCheckpointOutlivesLeader: the shell leader exits at the
// signal while a child is still writing its checkpoint; the child gets
// until the deadline, and the attempt is not marked as killed.
func TestPreemptCheckpointOutlivesLeader(t *testing.T) {
	r, l := testRunner()
	entry := `sh -c 'trap "sleep 0.3; echo saved; exit 0" TERM; echo ready; while :; do sleep 0.02; done'; echo unreachable`
	task := start(t, r, testSpec(t, entry))
	l.waitFor(t, "ready", func(s string) bool { return s == "ready" })
	if err := task.Preempt(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	res := wait(t, task)
	if res.Outcome != OutcomePreempted || res.KilledAtDeadline || res.Signal != "SIGTERM" {
		t.Errorf("result %+v", res)
	}
	if out := l.texts(Stdout); !contains(out, "saved") || contains(out, "unreachable") {
		t.Errorf("output %q", out)
	}
}
