//go:build linux

package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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

// startAndDieEnv makes the test binary an agent that starts the task
// its value describes (a TaskSpec) under a shim, prints its Orphan and
// exits at once, as a killed agent leaves its tasks; shimCapEnv is its
// Runner.ShimOutputMaxBytes.
const (
	startAndDieEnv = "AGENT_TEST_START_AND_DIE"
	shimCapEnv     = "AGENT_TEST_SHIM_CAP"
)

// runAsChild runs the test binary as the agent startAndDieEnv or
// startAndWaitEnv (exittime_test.go) asks for, if it does, and returns
// its exit code.
func runAsChild() (int, bool) {
	if spec := os.Getenv(startAndDieEnv); spec != "" {
		return startAndDie(spec), true
	}
	if spec := os.Getenv(startAndWaitEnv); spec != "" {
		return startAndWait(spec), true
	}
	return 0, false
}

func startAndDie(specJSON string) int {
	var spec TaskSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	maxBytes, _ := strconv.ParseInt(os.Getenv(shimCapEnv), 10, 64)
	task, err := (&Runner{Shim: os.Args[0], ShimOutputMaxBytes: maxBytes}).Start(spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(task.Pid()) + "/stat")
	_, ticks, ok := parseStartTicks(stat)
	if err != nil || !ok {
		fmt.Fprintln(os.Stderr, "no start time:", err)
		return 1
	}
	o := Orphan{ID: task.ID(), Pid: task.Pid(), StartTicks: ticks, WorkDir: spec.WorkDir, ExitFile: task.ExitFile(),
		StartedAt: time.Now().UTC()}
	if err := json.NewEncoder(os.Stdout).Encode(o); err != nil {
		return 1
	}
	return 0
}

// orphanedBy has an agent process start spec and die (startAndDie), and
// returns the orphan it leaves.
func orphanedBy(t *testing.T, spec TaskSpec, shimCap int64) Orphan {
	t.Helper()
	data, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), startAndDieEnv+"="+string(data), shimCapEnv+"="+strconv.FormatInt(shimCap, 10))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var o Orphan
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatalf("the agent's orphan %q: %v", out, err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-o.Pid, syscall.SIGKILL) })
	return o
}

// TestAdopt: an adopted attempt ends with the outcome a started one would
// have, read from the shim's exit file, and Preempt and Kill act on its
// group. The task is this process's child here, but for the cases whose
// agent died (orphaned); the adopted Task watches it through /proc only,
// as a restarted agent does. The output a task writes after its agent
// died comes from the shim's output file, in order, numbered from
// OutputSeqBase, all of it before the result.
func TestAdopt(t *testing.T) {
	out, outLines := numbered("line", 5000)
	tests := []struct {
		name       string
		entrypoint string
		orphaned   bool // started by an agent process that died
		act        func(t *testing.T, task *Task, o Orphan)
		outcome    Outcome
		code       int
		atDeadline bool
		stdout     []string // all of them; with shimCap, a prefix
		shimCap    int64
		errHas     string
	}{
		{name: "output after the agent's death is delivered before the result", orphaned: true,
			entrypoint: `while [ ! -e go ]; do sleep 0.05; done; ` + out + `; echo done >&2; exit 0`,
			act: func(t *testing.T, _ *Task, o Orphan) {
				if err := os.WriteFile(filepath.Join(o.WorkDir, "go"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			},
			outcome: OutcomeCompleted, stdout: outLines},
		{name: "past the shim's cap, the first lines are delivered and the rest counted", orphaned: true,
			entrypoint: `while [ ! -e go ]; do sleep 0.05; done; ` + out + `; echo done >&2; exit 0`,
			act: func(t *testing.T, _ *Task, o Orphan) {
				if err := os.WriteFile(filepath.Join(o.WorkDir, "go"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			},
			outcome: OutcomeCompleted, stdout: outLines, shimCap: 10000, errHas: "reached its cap of 10000 bytes"},
		{name: "exit 0 is completed", entrypoint: "sleep 0.3; exit 0", outcome: OutcomeCompleted},
		{name: "exit 3 is failed", entrypoint: "sleep 0.3; exit 3", outcome: OutcomeFailed, code: 3},
		{name: "kill", entrypoint: "sleep 600", outcome: OutcomeKilled, code: -1, errHas: "without recording the exit status",
			act: func(t *testing.T, task *Task, _ Orphan) {
				if err := task.Kill(0); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "kill with a grace, the task's trap exits 4", outcome: OutcomeKilled, code: 4,
			entrypoint: `trap 'exit 4' TERM; touch ready; while :; do sleep 0.05; done`,
			act: func(t *testing.T, task *Task, o Orphan) {
				awaitFile(t, filepath.Join(o.WorkDir, "ready"))
				if err := task.Kill(time.Minute); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "kill with a grace, TERM ignored: SIGKILL at its end", outcome: OutcomeKilled, code: -1, atDeadline: true,
			errHas:     "without recording the exit status",
			entrypoint: `trap '' TERM; touch ready; while :; do sleep 0.05; done`,
			act: func(t *testing.T, task *Task, o Orphan) {
				awaitFile(t, filepath.Join(o.WorkDir, "ready"))
				if err := task.Kill(500 * time.Millisecond); err != nil {
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
			errHas: "without recording the exit status",
			act: func(t *testing.T, task *Task, o Orphan) {
				_ = syscall.Kill(o.Pid, syscall.SIGKILL)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := testRunner()
			r.Shim = os.Args[0]
			spec := testSpec(t, tt.entrypoint)
			var o Orphan
			if tt.orphaned {
				o = orphanedBy(t, spec, tt.shimCap)
			} else {
				o = orphanOf(t, start(t, r, spec), spec)
			}
			o.OutputSeqBase = 1000
			l := &logs{}
			adopted, err := (&Runner{OnLog: l.add}).Adopt(o)
			if err != nil {
				t.Fatal(err)
			}
			metrics := filepath.Join(spec.WorkDir, StateDir, MetricsFileName(spec.Attempt, 0))
			if !adopted.Adopted() || adopted.MetricsFile() != metrics {
				t.Errorf("adopted task: adopted %v, metrics file %q, want %q", adopted.Adopted(), adopted.MetricsFile(), metrics)
			}
			if tt.act != nil {
				tt.act(t, adopted, o)
			}
			res := wait(t, adopted)
			if res.Outcome != tt.outcome || res.ExitCode != tt.code || res.KilledAtDeadline != tt.atDeadline ||
				!strings.Contains(res.Error, tt.errHas) || (tt.errHas == "") != (res.Error == "") {
				t.Errorf("result %+v, want %s with exit code %d (killed at deadline %v), error with %q",
					res, tt.outcome, tt.code, tt.atDeadline, tt.errHas)
			}
			lines := l.all() // all delivered before the result
			got, want, logLines := l.texts(Stdout), tt.stdout, uint64(len(lines))
			if tt.shimCap > 0 {
				want, logLines = tt.stdout[:min(len(got), len(tt.stdout)-1)], uint64(len(tt.stdout)+1)
			}
			if !slices.Equal(got, want) || (tt.shimCap > 0 && len(got) == 0) {
				t.Errorf("delivered %d stdout lines, want %d: %.200q", len(got), len(want), got)
			}
			for i, line := range lines {
				if line.Seq != o.OutputSeqBase+uint64(i)+1 || line.Dropped != 0 {
					t.Fatalf("line %d of %d: seq %d dropped %d, want seq %d", i, len(lines), line.Seq, line.Dropped, o.OutputSeqBase+uint64(i)+1)
				}
			}
			if res.LogLines != logLines || res.DroppedLines != 0 {
				t.Errorf("result counts %d lines, %d dropped; want %d, none", res.LogLines, res.DroppedLines, logLines)
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

// TestAdoptedOutputFile: an adopted task's OutputFile is its shim's output
// file only when the shim was started with ShimOutputArg; the shim of an
// older agent keeps none, and OutputFile says so.
func TestAdoptedOutputFile(t *testing.T) {
	tests := []struct {
		name  string
		args  []string // the leader's, as a stand-in for the shim
		keeps bool
	}{
		{"a shim that keeps output", []string{"-c", "sleep 600; exit 0", "sh", ShimOutputArg}, true},
		{"an older agent's shim", []string{"-c", "sleep 600; exit 0", "sh"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command("/bin/sh", tt.args...)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := cmd.Process.Pid
			t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL); _ = cmd.Wait() })
			stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			_, ticks, ok := parseStartTicks(stat)
			if err != nil || !ok {
				t.Fatalf("no start time: %v", err)
			}
			stateDir := filepath.Join(dir, StateDir)
			task, err := (&Runner{}).Adopt(Orphan{ID: TaskID{JobID: "j1"}, Pid: pid, StartTicks: ticks, WorkDir: dir,
				ExitFile: filepath.Join(stateDir, ExitFileName(0, 0)), StartedAt: time.Now().UTC()})
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if tt.keeps {
				want = filepath.Join(stateDir, OutputFileName(0, 0))
			}
			if got := task.OutputFile(); got != want {
				t.Errorf("OutputFile() = %q, want %q", got, want)
			}
			if err := task.Kill(0); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait() // the test reaps the leader, its parent
			if res := task.Wait(); res.Outcome != OutcomeKilled {
				t.Errorf("outcome %s, want killed", res.Outcome)
			}
		})
	}
}
