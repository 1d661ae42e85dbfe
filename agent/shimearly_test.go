package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// earlySignalEnv makes the test binary, as a shim, be sent SIGTERM
// before it starts its task (signalBeforeStart).
const earlySignalEnv = "ALLOT_TEST_SHIM_EARLY_SIGTERM"

// signalBeforeStart is the shim's hook (shimBeforeStart) of
// TestShimRelaysEarlySignal: the agent's SIGTERM to the task's group
// arrives while the group is the shim alone, and the hook waits until
// the shim has caught it, so that the task is started after it.
func signalBeforeStart(e *earlySignals) {
	_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	<-e.caught
}

// TestShimRelaysEarlySignal (trial o F6): a SIGTERM that reached the
// shim before it started its task is sent to the task once it exists,
// as the group's signal would have reached it: the task's trap runs (or,
// not set yet, the signal ends it), rather than the task running on
// until its kill grace ends it by SIGKILL.
func TestShimRelaysEarlySignal(t *testing.T) {
	exitFile := filepath.Join(t.TempDir(), ExitFileName(1, 0))
	// Without the signal the task would exit 0 on its own, after a while.
	task := `trap 'exit 7' TERM; i=0; while [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; exit 0`
	cmd := exec.Command(os.Args[0], ShimArg, exitFile, "/bin/sh", "-c", task)
	cmd.Env = append(os.Environ(), earlySignalEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group, as the runner starts it
	if err := cmd.Run(); err == nil {
		t.Fatal("the shim exited 0: its task never heard of the SIGTERM")
	}
	st, ok, err := ReadExitFile(exitFile)
	if !ok || err != nil {
		t.Fatalf("exit file: ok %v, err %v", ok, err)
	}
	trapped := st.ExitCode == 7 && st.Signal == ""
	ended := st.ExitCode == -1 && st.Signal == "SIGTERM"
	if !trapped && !ended {
		t.Fatalf("task ended %+v, want its trap's exit 7 or SIGTERM", st)
	}
}
