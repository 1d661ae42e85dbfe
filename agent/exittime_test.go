//go:build linux

package agent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadExitTime: the exit time is the shim's record, taken into
// [start, now]; without a shim, a file or a readable one it is now.
func TestReadExitTime(t *testing.T) {
	start := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	now := start.Add(time.Minute)
	tests := []struct {
		name     string
		file     string    // "": no shim; "none": no file; "torn": not JSON; else written with recorded
		recorded time.Time // the shim's record
		want     time.Time
		wantErr  bool
	}{
		{"no shim", "", time.Time{}, now, false},
		{"no exit file", "none", time.Time{}, now, false},
		{"the shim's time", "exit", start.Add(5 * time.Second), start.Add(5 * time.Second), false},
		{"at the start", "exit", start, start, false},
		{"before the start", "exit", start.Add(-time.Hour), start, false},
		{"in the future", "exit", now.Add(time.Hour), now, false},
		{"no time recorded", "exit", time.Time{}, now, false},
		{"unreadable", "torn", time.Time{}, now, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var path string
			if tt.file != "" {
				path = filepath.Join(t.TempDir(), ExitFileName(1, 0))
			}
			switch tt.file {
			case "exit":
				if err := writeExitFile(path, ExitStatus{ExitCode: 0, ExitedAt: tt.recorded}); err != nil {
					t.Fatal(err)
				}
			case "torn":
				if err := os.WriteFile(path, []byte(`{"exit_code":0,"exi`), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := readExitTime(path, start, now)
			if !got.Equal(tt.want) || (err != nil) != tt.wantErr {
				t.Errorf("readExitTime = %v, %v; want %v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestExitTimeFromShim: a task's result carries the exit time its shim
// recorded, whether it exited or a signal ended it; a task killed with
// its shim (no record) or run without one gets the agent's own time.
func TestExitTimeFromShim(t *testing.T) {
	tests := []struct {
		name       string
		shim       bool
		entrypoint string
		kill       bool
		recorded   bool // the shim leaves an exit file
	}{
		{"exited", true, "exit 3", false, true},
		{"signalled", true, "kill -TERM $$", false, true},
		{"killed with its shim", true, "echo up; sleep 30", true, false},
		{"no shim", false, "exit 0", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, l := testRunner()
			if tt.shim {
				r.Shim = os.Args[0]
			}
			before := time.Now()
			task := start(t, r, testSpec(t, tt.entrypoint))
			if tt.kill {
				l.waitFor(t, "up", func(s string) bool { return s == "up" })
				before = time.Now()
				if err := task.Kill(0); err != nil {
					t.Fatal(err)
				}
			}
			res := wait(t, task)
			after := time.Now()
			st, ok, err := ReadExitFile(task.ExitFile())
			if err != nil || ok != tt.recorded {
				t.Fatalf("exit file %q: recorded %v, err %v; want recorded %v", task.ExitFile(), ok, err, tt.recorded)
			}
			switch {
			case ok && !res.ExitedAt.Equal(st.ExitedAt):
				t.Errorf("exited at %v, want the shim's %v", res.ExitedAt, st.ExitedAt)
			case !ok && (res.ExitedAt.Before(before) || res.ExitedAt.After(after)):
				t.Errorf("exited at %v, want the agent's time, within [%v, %v]", res.ExitedAt, before, after)
			case res.ExitedAt.Before(res.StartedAt):
				t.Errorf("exited at %v, before the start %v", res.ExitedAt, res.StartedAt)
			}
		})
	}
}

// startAndWaitEnv makes the test binary an agent that starts the task its
// value describes (a TaskSpec), under a shim unless noShimEnv is set,
// prints "started", and, once the task ended, its Result as JSON.
const (
	startAndWaitEnv = "AGENT_TEST_START_AND_WAIT"
	noShimEnv       = "AGENT_TEST_NO_SHIM"
)

func startAndWait(specJSON string) int {
	var spec TaskSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	r := &Runner{Shim: os.Args[0]}
	if os.Getenv(noShimEnv) != "" {
		r.Shim = ""
	}
	task, err := r.Start(spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("started")
	if err := json.NewEncoder(os.Stdout).Encode(task.Wait()); err != nil {
		return 1
	}
	return 0
}

// TestStoppedAgentReportsTheTrueExit: an agent process stopped (kill
// -STOP) while its task exits reports, once continued, the exit its shim
// recorded, not the time it woke; without a shim it can only report the
// latter.
func TestStoppedAgentReportsTheTrueExit(t *testing.T) {
	const (
		runs    = time.Second // the task: sleep 1
		stopped = 3 * time.Second
	)
	tests := []struct {
		name string
		shim bool
	}{
		{"under a shim", true},
		{"no shim", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec(t, "sleep 1")
			data, err := json.Marshal(spec)
			if err != nil {
				t.Fatal(err)
			}
			child := exec.Command(os.Args[0], "-test.run=^$")
			child.Env = append(os.Environ(), startAndWaitEnv+"="+string(data))
			if !tt.shim {
				child.Env = append(child.Env, noShimEnv+"=1")
			}
			child.Stderr = os.Stderr
			out, err := child.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := child.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
			lines := bufio.NewReader(out)
			if line, err := lines.ReadString('\n'); strings.TrimSpace(line) != "started" {
				t.Fatalf("the child agent said %q (%v), want started", line, err)
			}
			if err := child.Process.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			time.Sleep(stopped)
			if err := child.Process.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			var res Result
			if err := json.NewDecoder(lines).Decode(&res); err != nil {
				t.Fatalf("the child agent's result: %v", err)
			}
			ran := res.ExitedAt.Sub(res.StartedAt)
			if tt.shim {
				st, ok, err := ReadExitFile(filepath.Join(spec.WorkDir, StateDir, ExitFileName(spec.Attempt, spec.NodeRank)))
				if !ok || err != nil {
					t.Fatalf("no exit file: %v", err)
				}
				if !res.ExitedAt.Equal(st.ExitedAt) || ran < runs-100*time.Millisecond || ran >= stopped {
					t.Errorf("exited %v after the start at %v (the shim recorded %v), want the shim's time, about %v after",
						ran, res.ExitedAt, st.ExitedAt, runs)
				}
			} else if ran < stopped-100*time.Millisecond {
				t.Errorf("exited %v after the start, want when the agent woke, at least %v", ran, stopped)
			}
		})
	}
}

// TestShimWaitsForOutlivers: a preemption's SIGTERM reaches the whole
// group, and a shell that does not exec its command dies of it at once
// while the program it ran saves its checkpoint. The shim records the
// program's end (its exit code, when it ended), not the shell's death;
// without a shim the shell's signal is all there is (trial 2026-11-29b
// B1).
func TestShimWaitsForOutlivers(t *testing.T) {
	const save = 300 * time.Millisecond
	entry := `sh -c 'trap "sleep 0.3; echo saved; exit 0" TERM; echo ready; while :; do sleep 0.02; done'; echo unreachable`
	for _, tt := range []struct {
		name       string
		shim       bool
		wantCode   int
		wantSignal string
	}{
		{"under the shim", true, 0, ""},
		{"without a shim", false, -1, "SIGTERM"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, l := testRunner()
			if tt.shim {
				r.Shim = os.Args[0]
			}
			task := start(t, r, testSpec(t, entry))
			l.waitFor(t, "ready", func(s string) bool { return s == "ready" })
			asked := time.Now()
			if err := task.Preempt(5 * time.Second); err != nil {
				t.Fatal(err)
			}
			res := wait(t, task)
			if res.Outcome != OutcomePreempted || res.ExitCode != tt.wantCode || res.Signal != tt.wantSignal {
				t.Errorf("result %+v, want preempted, exit code %d, signal %q", res, tt.wantCode, tt.wantSignal)
			}
			if tt.shim && res.ExitedAt.Before(asked.Add(save)) {
				t.Errorf("exited at %v, %v after the request: before the checkpoint was saved (%v)", res.ExitedAt, res.ExitedAt.Sub(asked), save)
			}
			if out := l.texts(Stdout); !contains(out, "saved") {
				t.Errorf("output %q, want the checkpoint saved", out)
			}
		})
	}
}
