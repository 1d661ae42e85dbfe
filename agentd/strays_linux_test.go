package agentd

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
)

// startStrayShim runs a real task shim (the test binary, TestMain) for
// task from work directory dir, as an agent that was then killed left it:
// its own process group, its fence file in dir.
func startStrayShim(t *testing.T, dir, task string) *group {
	t.Helper()
	cmd := exec.Command(os.Args[0], agent.ShimArg, agent.ShimFenceArg, filepath.Join(dir, agent.FenceFileName), task, "15",
		filepath.Join(dir, "exit-"+filepath.Base(task)+".json"), "/bin/sh", "-c", "sleep 600; true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g := &group{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(g.done) }()
	t.Cleanup(func() { killGroup(cmd.Process.Pid); <-g.done })
	// Wait for the shim to be itself (exec done) in /proc.
	ctxWait(t, "the shim's command line", func() bool {
		for _, sh := range findShims() {
			if sh.pid == cmd.Process.Pid {
				return true
			}
		}
		return false
	})
	return g
}

// TestTakeoverStopsStrayShims (trial 2026-11-29b B13): an agent that
// registers as node-1 from a new work directory stops the shims an
// earlier agent of node-1 left running from the old one, before its first
// sync, and leaves another node's shims on the host alone.
func TestTakeoverStopsStrayShims(t *testing.T) {
	fm := newFakeMaster(t)
	oldDir, otherDir, newDir := t.TempDir(), t.TempDir(), t.TempDir()
	for dir, node := range map[string]string{oldDir: "node-1", otherDir: "node-2"} {
		st := stateFile{Version: stateVersion, AgentPID: 1, Node: node, Master: fm.srv.URL}
		if err := writeState(filepath.Join(dir, StateFileName), st); err != nil {
			t.Fatal(err)
		}
	}
	stray := startStrayShim(t, oldDir, "j20/0/1")
	other := startStrayShim(t, otherDir, "j30/0/1")

	startAgent(t, testConfig(t, fm, newDir))
	fm.waitFor("the first sync", func(fm *fakeMaster) bool { return len(fm.syncs) > 0 })
	if groupLive(t, stray.pgid()) {
		t.Error("node-1's stray shim still runs at the agent's first sync")
	}
	select {
	case <-stray.done:
	case <-time.After(20 * time.Second):
		t.Fatal("node-1's stray shim was not stopped")
	}
	if !groupLive(t, other.pgid()) {
		t.Error("node-2's shim, another agent's on the same host, was stopped")
	}
}
