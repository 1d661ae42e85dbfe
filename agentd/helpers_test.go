package agentd

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// testLog forwards the agent's log to the test's while the test runs;
// goroutines left behind on purpose (ExitKeep) may log after it ended.
type testLog struct {
	mu   sync.Mutex
	t    *testing.T
	done bool
}

func (w *testLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

func testLogger(t *testing.T) *slog.Logger {
	w := &testLog{t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// testConfig is a config for fm with fast retries and four fake GPUs.
func testConfig(t *testing.T, fm *fakeMaster, workDir string) Config {
	return Config{
		Master:          fm.srv.URL,
		Name:            "node-1",
		Pool:            "default",
		Labels:          map[string]string{"rack": "r1"},
		GPUs:            agent.Fake(4, "h100"),
		WorkDir:         workDir,
		ExitGrace:       10 * time.Second,
		Version:         "test",
		Logger:          testLogger(t),
		BackoffMin:      5 * time.Millisecond,
		BackoffMax:      50 * time.Millisecond,
		MinPollInterval: 5 * time.Millisecond,
		RequestTimeout:  10 * time.Second,
		FinalTimeout:    10 * time.Second,
	}
}

// running is an agent running in the background.
type running struct {
	a      *Agent
	cancel context.CancelFunc
	done   chan struct{} // closed when Run has returned
	err    error
}

// stop cancels the agent and returns Run's error.
func (r *running) stop(t *testing.T) error {
	t.Helper()
	r.cancel()
	select {
	case <-r.done:
		return r.err
	case <-time.After(60 * time.Second):
		t.Fatal("agent did not stop within 60s")
		return nil
	}
}

// startAgent runs an agent for cfg until the test ends (or stop).
func startAgent(t *testing.T, cfg Config) *running {
	t.Helper()
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{a: a, cancel: cancel, done: make(chan struct{})}
	go func() { r.err = a.Run(ctx); close(r.done) }()
	t.Cleanup(func() {
		if err := r.stop(t); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return r
}

// spec builds a task spec; job "j1" unless the caller changes it.
func spec(task, attempt int, entrypoint string, gpus ...int) *agent.TaskSpec {
	return &agent.TaskSpec{JobID: "j1", TaskIndex: task, Attempt: attempt, Entrypoint: entrypoint, GPUs: gpus}
}

func startCmd(s *agent.TaskSpec) api.Command {
	return api.Command{Type: api.CommandStart, Start: s, Task: s.ID()}
}

func stopCmd(typ string, id agent.TaskID, graceS int64) api.Command {
	return api.Command{Type: typ, Task: id, GraceS: graceS}
}

// groupGone polls until a process group has no live member.
func groupGone(t *testing.T, pgid int) {
	t.Helper()
	if !awaitGroupGone(pgid, 20*time.Second) {
		t.Fatalf("process group %d still alive", pgid)
	}
}

// groupLive reports whether a process group has a live member.
func groupLive(t *testing.T, pgid int) bool {
	t.Helper()
	m, err := groupMembers(pgid)
	if err != nil {
		t.Fatal(err)
	}
	return len(m) > 0
}

// readPid waits for a task to write its pid into a file.
func readPid(t *testing.T, path string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		data, err := os.ReadFile(path)
		if err == nil && strings.HasSuffix(string(data), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			return pid
		}
		if !sleep(ctx, 5*time.Millisecond) {
			t.Fatalf("no pid in %s", path)
		}
	}
}

// killGroup cleans up a process group a test started or left behind.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }

// readStateFile reads the agent's state file in dir.
func readStateFile(t *testing.T, dir string) stateFile {
	t.Helper()
	st, err := readState(filepath.Join(dir, StateFileName))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// ctxWait polls cond until it holds, failing the test after a bound.
func ctxWait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for !cond() {
		if !sleep(ctx, 5*time.Millisecond) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// startChildAgent runs the test binary as an agent (runChildAgent) that
// the test can kill -9.
func startChildAgent(t *testing.T, fm *fakeMaster, dir string, env ...string) *exec.Cmd {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "AGENTD_TEST_CHILD=1", "AGENTD_TEST_MASTER="+fm.srv.URL, "AGENTD_TEST_WORKDIR="+dir)
	child.Env = append(child.Env, env...)
	child.Stderr = &bytes.Buffer{}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	return child
}
