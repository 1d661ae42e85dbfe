//go:build linux

package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// orphanOf describes a task this test process started under a shim as an
// earlier agent would have recorded it.
func orphanOf(t *testing.T, task *Task, spec TaskSpec) Orphan {
	t.Helper()
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(task.Pid()) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	_, ticks, ok := parseStartTicks(stat)
	if !ok {
		t.Fatalf("cannot parse %q", stat)
	}
	return Orphan{ID: task.ID(), Pid: task.Pid(), StartTicks: ticks, WorkDir: spec.WorkDir,
		ExitFile: task.ExitFile(), StartedAt: time.Now().UTC()}
}

// TestAdopt: an adopted attempt ends with the outcome a started one would
// have, read from the shim's exit file, and Preempt and Kill act on its
// group. The task is this process's child here; the adopted Task watches
// it through /proc only, as a restarted agent does.
func TestAdopt(t *testing.T) {
	tests := []struct {
		name       string
		entrypoint string
		act        func(t *testing.T, task *Task, o Orphan)
		outcome    Outcome
		code       int
		atDeadline bool
	}{
		{name: "exit 0 is completed", entrypoint: "sleep 0.3; exit 0", outcome: OutcomeCompleted},
		{name: "exit 3 is failed", entrypoint: "sleep 0.3; exit 3", outcome: OutcomeFailed, code: 3},
		{name: "kill", entrypoint: "sleep 600", outcome: OutcomeKilled, code: -1,
			act: func(t *testing.T, task *Task, _ Orphan) {
				if err := task.Kill(); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "preempt, the task checkpoints", outcome: OutcomePreempted,
			entrypoint: `trap 'exit 0' TERM; touch ready; while :; do sleep 0.05; done`,
			act: func(t *testing.T, task *Task, o Orphan) {
				awaitFile(t, filepath.Join(o.WorkDir, "ready"))
				if err := task.Preempt(time.Minute); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(task.PreemptFile()); err != nil {
					t.Errorf("no preempt file: %v", err)
				}
			}},
		{name: "shim killed: no exit file is failed", entrypoint: "sleep 600", outcome: OutcomeFailed, code: -1,
			act: func(t *testing.T, task *Task, o Orphan) {
				_ = syscall.Kill(o.Pid, syscall.SIGKILL)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := testRunner()
			r.Shim = os.Args[0]
			spec := testSpec(t, tt.entrypoint)
			orig := start(t, r, spec)
			o := orphanOf(t, orig, spec)
			adopted, err := (&Runner{}).Adopt(o)
			if err != nil {
				t.Fatal(err)
			}
			if !adopted.Adopted() || adopted.MetricsFile() != orig.MetricsFile() {
				t.Errorf("adopted task: adopted %v, metrics file %q, want %q", adopted.Adopted(), adopted.MetricsFile(), orig.MetricsFile())
			}
			if tt.act != nil {
				tt.act(t, adopted, o)
			}
			res := wait(t, adopted)
			if res.Outcome != tt.outcome || res.ExitCode != tt.code || res.KilledAtDeadline != tt.atDeadline {
				t.Errorf("result %+v, want %s with exit code %d (killed at deadline %v)", res, tt.outcome, tt.code, tt.atDeadline)
			}
			if groupAlive(o.Pid) {
				t.Error("the group outlived the adopted task's result")
			}
		})
	}
}

// TestAdoptResumesPreemption: a preemption the earlier agent asked for
// keeps its deadline under the adopting one.
func TestAdoptResumesPreemption(t *testing.T) {
	r, _ := testRunner()
	r.Shim = os.Args[0]
	spec := testSpec(t, `trap '' TERM; while :; do sleep 0.05; done`)
	orig := start(t, r, spec)
	o := orphanOf(t, orig, spec)
	deadline := time.Now().Add(200 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	if err := os.WriteFile(orig.PreemptFile(), []byte(deadline+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	adopted, err := (&Runner{}).Adopt(o)
	if err != nil {
		t.Fatal(err)
	}
	if res := wait(t, adopted); res.Outcome != OutcomePreempted || !res.KilledAtDeadline {
		t.Errorf("result %+v, want preempted, killed at the deadline", res)
	}
}

// TestAdoptRefuses: what cannot be proven to be the attempt, or has no
// shim to tell how it ended, is not adopted.
func TestAdoptRefuses(t *testing.T) {
	r, _ := testRunner()
	r.Shim = os.Args[0]
	spec := testSpec(t, "sleep 600")
	o := orphanOf(t, start(t, r, spec), spec)
	tests := []struct {
		name   string
		change func(o *Orphan)
	}{
		{"no shim", func(o *Orphan) { o.ExitFile = "" }},
		{"no start time", func(o *Orphan) { o.StartTicks = 0 }},
		{"another start time (a reused pid)", func(o *Orphan) { o.StartTicks++ }},
		{"leader gone", func(o *Orphan) { o.Pid = 1 << 30 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := o
			tt.change(&o)
			if _, err := (&Runner{}).Adopt(o); !errors.Is(err, ErrNotAdoptable) {
				t.Errorf("Adopt: %v, want ErrNotAdoptable", err)
			}
		})
	}
}

func awaitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within 10s", path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
