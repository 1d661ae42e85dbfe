package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestShimKeepsOutcomes: under a shim a task ends for the agent exactly
// as without one (same outcome, exit code, signal), and the shim leaves
// the same status in the exit file for an agent that was not there.
func TestShimKeepsOutcomes(t *testing.T) {
	tests := []struct {
		name       string
		entrypoint string
		outcome    Outcome
		code       int
		signal     string
	}{
		{"success", "true", OutcomeCompleted, 0, ""},
		{"exit code", "exit 3", OutcomeFailed, 3, ""},
		{"command not found", "no-such-command-allot", OutcomeFailed, 127, ""},
		{"killed by a signal", "kill -KILL $$", OutcomeFailed, -1, "SIGKILL"},
		{"terminated", "kill -TERM $$", OutcomeFailed, -1, "SIGTERM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := testRunner()
			r.Shim = os.Args[0]
			task := start(t, r, testSpec(t, tt.entrypoint))
			res := wait(t, task)
			if res.Outcome != tt.outcome || res.ExitCode != tt.code || res.Signal != tt.signal {
				t.Errorf("result %+v, want %s, code %d, signal %q", res, tt.outcome, tt.code, tt.signal)
			}
			st, ok, err := ReadExitFile(task.ExitFile())
			if err != nil || !ok {
				t.Fatalf("exit file %s: ok %v, err %v", task.ExitFile(), ok, err)
			}
			if st.ExitCode != tt.code || st.Signal != tt.signal || st.ExitedAt.IsZero() {
				t.Errorf("exit file %+v, want code %d signal %q", st, tt.code, tt.signal)
			}
		})
	}
}

// TestShimOutlivesPreemptSignal: the preempt signal reaches the task, not
// the shim, which records how the checkpointing task ended.
func TestShimOutlivesPreemptSignal(t *testing.T) {
	r, _ := testRunner()
	r.Shim = os.Args[0]
	task := start(t, r, testSpec(t, `trap 'echo saved; exit 0' TERM; echo up; while :; do sleep 0.05; done`))
	time.Sleep(300 * time.Millisecond) // for the trap to be set
	if err := task.Preempt(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	res := wait(t, task)
	if res.Outcome != OutcomePreempted || res.ExitCode != 0 || res.KilledAtDeadline {
		t.Fatalf("result %+v, want preempted with exit code 0 before the deadline", res)
	}
	st, ok, err := ReadExitFile(task.ExitFile())
	if !ok || err != nil || st.ExitCode != 0 {
		t.Fatalf("exit file %+v ok %v err %v, want exit code 0", st, ok, err)
	}
}

// TestShimExitFileSurvivesTheAgent: when nobody waits for the shim (the
// agent is gone), the exit file still tells how the task ended.
func TestShimExitFileSurvivesTheAgent(t *testing.T) {
	dir := t.TempDir()
	exitFile := filepath.Join(dir, ExitFileName(2, 0))
	cmd := exec.Command(os.Args[0], ShimArg, exitFile, "/bin/sh", "-c", "exit 7")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.ExitStatus() != 7 {
		t.Errorf("shim exit status %d, want the task's 7", ws.ExitStatus())
	}
	st, ok, err := ReadExitFile(exitFile)
	if !ok || err != nil || st.ExitCode != 7 || st.Signal != "" {
		t.Fatalf("exit file %+v ok %v err %v, want exit code 7", st, ok, err)
	}
}

func TestReadExitFileRejects(t *testing.T) {
	tests := []struct{ name, body string }{
		{"not JSON", "exit 0"},
		{"code out of range", `{"exit_code":300}`},
		{"signal without -1", `{"exit_code":0,"signal":"SIGTERM"}`},
		{"-1 without a signal", `{"exit_code":-1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "exit.json")
			if err := os.WriteFile(p, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, ok, err := ReadExitFile(p); ok || err == nil {
				t.Fatalf("ReadExitFile(%q): ok %v err %v, want an error", tt.body, ok, err)
			}
		})
	}
	if _, ok, err := ReadExitFile(filepath.Join(t.TempDir(), "none")); ok || err != nil {
		t.Fatalf("missing file: ok %v err %v, want neither", ok, err)
	}
}

// TestShimOutlivesItsAgent: a task whose agent died (kill -9) goes on
// writing: its shim, which holds the pipes' read ends, drains them once
// its parent is gone, so the task is neither killed by SIGPIPE nor fails
// on EPIPE, and ends as it would have. The "agent" here is a shell that
// starts the shim in the background and exits at once; the test closes
// its own read ends, as a dead agent's are closed.
func TestShimOutlivesItsAgent(t *testing.T) {
	// More than a pipe's 64 KiB buffer, written after the agent is gone.
	const task = `sleep 0.3; i=0; while [ $i -lt 4000 ]; do echo "line $i of a task whose agent died"; echo "err $i" >&2; i=$((i+1)); done; exit 0`
	tests := []struct {
		name  string
		drain bool
		want  ExitStatus
	}{
		{"drained", true, ExitStatus{ExitCode: 0}},
		{"without the read ends", false, ExitStatus{ExitCode: -1, Signal: "SIGPIPE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exitFile := filepath.Join(t.TempDir(), ExitFileName(1, 0))
			shim := `bin=$1; shift; "$bin" ` + ShimArg + ` "$@" &`
			if tt.drain {
				shim = `bin=$1; shift; "$bin" ` + ShimArg + ` ` + ShimDrainArg + ` $$ "$@" &`
			}
			rOut, wOut, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			rErr, wErr, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			agent := exec.Command("/bin/sh", "-c", shim, "agent", os.Args[0], exitFile, "/bin/sh", "-c", task)
			agent.Stdout, agent.Stderr = wOut, wErr
			if tt.drain {
				agent.ExtraFiles = []*os.File{rOut, rErr}
			}
			if err := agent.Run(); err != nil {
				t.Fatal(err)
			}
			for _, f := range []*os.File{wOut, wErr, rOut, rErr} {
				f.Close()
			}
			st := awaitExitFile(t, exitFile)
			if st.ExitCode != tt.want.ExitCode || st.Signal != tt.want.Signal {
				t.Fatalf("exit file %+v, want code %d signal %q", st, tt.want.ExitCode, tt.want.Signal)
			}
		})
	}
}

// awaitExitFile waits for a shim whose parent is gone to write its exit
// file; the shim is nobody's child here, so it cannot be waited for.
func awaitExitFile(t *testing.T, path string) ExitStatus {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		st, ok, err := ReadExitFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			return st
		}
	}
	t.Fatalf("no exit file %s after 30s", path)
	return ExitStatus{}
}
