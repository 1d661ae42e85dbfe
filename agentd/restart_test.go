package agentd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// The test binary doubles as an agent process that a test can kill -9.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == agent.ShimArg {
		os.Exit(agent.RunShim(os.Args[2:]))
	}
	if os.Getenv("AGENTD_TEST_CHILD") == "1" {
		os.Exit(runChildAgent())
	}
	os.Exit(m.Run())
}

func runChildAgent() int {
	if b, err := time.ParseDuration(os.Getenv("AGENTD_TEST_FENCE_BOUNDS")); err == nil {
		fenceFloor, fenceMargin = b, b
	}
	a, err := New(Config{
		Master:          os.Getenv("AGENTD_TEST_MASTER"),
		Name:            "node-1",
		Pool:            "default",
		GPUs:            agent.Fake(1, "h100"),
		WorkDir:         os.Getenv("AGENTD_TEST_WORKDIR"),
		BackoffMin:      5 * time.Millisecond,
		BackoffMax:      50 * time.Millisecond,
		MinPollInterval: 5 * time.Millisecond,
		Runner:          agent.Runner{Shim: os.Args[0]},
	})
	if err == nil {
		err = a.Run(context.Background())
	}
	os.Stderr.WriteString("child agent: " + err.Error() + "\n")
	return 1
}

// group is a process group a test starts to stand for a task's.
type group struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startGroup(t *testing.T, env []string) *group {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "sleep 600; true")
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g := &group{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(g.done) }()
	t.Cleanup(func() { killGroup(cmd.Process.Pid); <-g.done })
	return g
}

func (g *group) pgid() int { return g.cmd.Process.Pid }

func TestRestartKillsOrphanedGroups(t *testing.T) {
	byEnv := agent.TaskID{JobID: "j1", TaskIndex: 0, Attempt: 3}
	envGroup := startGroup(t, []string{"ALLOT_JOB_ID=j1", "ALLOT_TASK_INDEX=0", "ALLOT_ATTEMPT=3"})
	tickGroup := startGroup(t, nil)
	strangers := startGroup(t, nil)
	ticks, ok := startTicks(tickGroup.pgid())
	if !ok {
		t.Fatal("cannot read a start time")
	}
	strangerTicks, _ := startTicks(strangers.pgid())
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	st := stateFile{Version: stateVersion, AgentPID: 1, BootID: bootID(), Attempts: []stateRecord{
		{Task: byEnv, Pgid: envGroup.pgid()},
		{Task: agent.TaskID{JobID: "j2", TaskIndex: 1, Attempt: 0}, Pgid: tickGroup.pgid(), StartTicks: ticks},
		{Task: agent.TaskID{JobID: "j3", TaskIndex: 0, Attempt: 0}, Pgid: strangers.pgid(), StartTicks: strangerTicks + 1},
		{Task: agent.TaskID{JobID: "j4", TaskIndex: 0, Attempt: 0}, Pgid: dead.Process.Pid},
	}}
	if err := writeState(filepath.Join(dir, StateFileName), st); err != nil {
		t.Fatal(err)
	}
	fm := newFakeMaster(t)
	startAgent(t, testConfig(t, fm, dir))
	fm.waitFor("the registration", func(fm *fakeMaster) bool { return len(fm.registers) == 1 })
	fm.locked(func(fm *fakeMaster) {
		if n := len(fm.registers[0].Running); n != 0 {
			t.Errorf("registered with %d running attempts, want none", n)
		}
	})
	for name, g := range map[string]*group{"matched by environment": envGroup, "matched by start time": tickGroup} {
		select {
		case <-g.done:
		case <-time.After(20 * time.Second):
			t.Errorf("the orphan %s was not killed", name)
		}
	}
	if !groupLive(t, strangers.pgid()) {
		t.Error("a group that is not the recorded attempt's was killed")
	}
	if got := readStateFile(t, dir); len(got.Attempts) != 0 {
		t.Errorf("state file after the restart lists %+v", got.Attempts)
	}
}

func TestShutdownPreemptsTasks(t *testing.T) {
	cases := []struct {
		name    string
		entry   string
		grace   time.Duration
		exit    int // -1: none
		lastHas string
		errHas  string
	}{
		{"checkpoints within the grace", checkpointScript, 30 * time.Second, 0, "checkpoint step=", ""},
		{"killed at the deadline", `trap '' TERM; echo ready; sleep 600`, 0, -1, "ready", "killed at the checkpoint deadline"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fm := newFakeMaster(t)
			dir := t.TempDir()
			cfg := testConfig(t, fm, dir)
			cfg.ExitGrace = tc.grace
			r := startAgent(t, cfg)
			s := spec(0, 0, tc.entry, 1)
			fm.send(startCmd(s))
			fm.waitFor("ready", func(fm *fakeMaster) bool { return fm.hasLine(s.ID(), "ready") })
			if err := r.stop(t); err != nil {
				t.Fatalf("Run: %v", err)
			}
			fm.locked(func(fm *fakeMaster) {
				exit, ok := fm.exitOf(s.ID())
				if !ok {
					t.Fatalf("no exit report before Run returned\n")
				}
				if exit.Outcome != string(agent.OutcomePreempted) {
					t.Errorf("outcome = %q, want preempted", exit.Outcome)
				}
				if (tc.exit < 0) != (exit.ExitCode == nil) || (exit.ExitCode != nil && *exit.ExitCode != tc.exit) {
					t.Errorf("exit code = %v, want %d", exit.ExitCode, tc.exit)
				}
				if !strings.Contains(exit.Error, tc.errHas) {
					t.Errorf("error = %q, want it to contain %q", exit.Error, tc.errHas)
				}
				lines := fm.logText(s.ID())
				if n := fm.exitLogs[s.ID()]; n != len(lines) {
					t.Errorf("%d of the lines %q were stored at the exit report, want all", n, lines)
				}
				if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "stdout: "+tc.lastHas) }) {
					t.Errorf("logs %q lack %q", lines, tc.lastHas)
				}
				fm.checkGoodbye(t, true)
			})
			if st := readStateFile(t, dir); len(st.Attempts) != 0 {
				t.Errorf("state file after shutdown lists %+v", st.Attempts)
			}
		})
	}
}

// TestShutdownSaysGoodbye: under --on-exit kill the agent tells the
// master it leaves (api.Sync.Leaving) and its last sync is Final; a start
// that comes during the leave is reported preempted, never run.
func TestShutdownSaysGoodbye(t *testing.T) {
	cases := []struct {
		name  string
		task  bool // a task runs when the agent stops
		start bool // the master sends a start with its answer to the leave
	}{
		{"with no task", false, false},
		{"with a task, and a start during the leave", true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fm := newFakeMaster(t)
			cfg := testConfig(t, fm, t.TempDir())
			cfg.ExitGrace = 0
			r := startAgent(t, cfg)
			s := spec(0, 1, `echo ready; sleep 600`)
			late := spec(1, 1, `echo ran`)
			if tc.task {
				fm.send(startCmd(s))
				fm.waitFor("ready", func(fm *fakeMaster) bool { return fm.hasLine(s.ID(), "ready") })
			} else {
				fm.waitFor("a sync", func(fm *fakeMaster) bool { return len(fm.syncs) > 0 })
			}
			if tc.start {
				fm.set(func(fm *fakeMaster) { fm.onLeave = []api.Command{startCmd(late)} })
			}
			if err := r.stop(t); err != nil {
				t.Fatalf("Run: %v", err)
			}
			fm.locked(func(fm *fakeMaster) {
				fm.checkGoodbye(t, true)
				if !tc.start {
					return
				}
				exit, ok := fm.exitOf(late.ID())
				if reps := fm.reportsFor(late.ID()); !ok || len(reps) != 1 || exit.Outcome != string(agent.OutcomePreempted) ||
					!strings.Contains(exit.Error, "not started") {
					t.Errorf("reports of the start during the leave %+v, want one: exited, preempted, not started", reps)
				}
			})
		})
	}
}

// TestShutdownKeepsContact: while its tasks checkpoint within the exit
// grace, a leaving agent goes on syncing, saying it leaves, so that a
// grace longer than the master's agent timeout does not get the node
// marked lost and its attempts ended as lost in the middle of the leave.
// The task here ends only once the master has had three such syncs.
func TestShutdownKeepsContact(t *testing.T) {
	fm, r, _, gate := shutdownCheckpointing(t)
	fm.waitFor("three syncs while the task checkpoints", func(fm *fakeMaster) bool { return leavingWithTask(fm) >= 3 })
	r.endCheckpoint(t, gate)
	fm.locked(func(fm *fakeMaster) { fm.checkGoodbye(t, true) })
}

// TestShutdownRegistersLeaving: a leaving agent whose sync gets 404 (a
// restarted master) registers again at once, saying it leaves
// (api.Register.Leaving), so that the master keeps the node's leave
// rather than take it for a new agent process that takes work, and it
// goes on syncing, still leaving, while its task checkpoints; its last
// sync is Final. The registration before the shutdown does not say it.
func TestShutdownRegistersLeaving(t *testing.T) {
	fm, r, s, gate := shutdownCheckpointing(t)
	fm.waitFor("the goodbye", func(fm *fakeMaster) bool { return leavingWithTask(fm) >= 1 })
	// The master restarts: it knows the node no more. Syncs answered 404
	// are not recorded, so those counted from now on follow the
	// registration.
	var before int
	fm.set(func(fm *fakeMaster) { fm.known, before = false, leavingWithTask(fm) })
	fm.waitFor("a registration and two leaving syncs after it", func(fm *fakeMaster) bool {
		return len(fm.registers) == 2 && leavingWithTask(fm) >= before+2
	})
	fm.locked(func(fm *fakeMaster) {
		if fm.registers[0].Leaving {
			t.Errorf("the registration before the shutdown says the node leaves: %+v", fm.registers[0])
		}
		if reg := fm.registers[1]; !reg.Leaving || !slices.Equal(reg.Running, []agent.TaskID{s.ID()}) {
			t.Errorf("the registration during the leave %+v, want leaving, running [%s]", reg, s.ID())
		}
	})
	r.endCheckpoint(t, gate)
	fm.locked(func(fm *fakeMaster) {
		fm.checkGoodbye(t, true)
		for i, reg := range fm.registers[1:] {
			if !reg.Leaving {
				t.Errorf("registration %d during the leave %+v, want leaving", i+1, reg)
			}
		}
	})
}

func TestShutdownWithMasterDownIsBounded(t *testing.T) {
	fm := newFakeMaster(t)
	dir := t.TempDir()
	cfg := testConfig(t, fm, dir)
	cfg.FinalTimeout = 100 * time.Millisecond
	cfg.ExitGrace = 0
	r := startAgent(t, cfg)
	pidFile := filepath.Join(dir, "pid")
	s := spec(0, 0, `echo $$ > `+pidFile+`; sleep 600`)
	fm.send(startCmd(s))
	pgid := readPid(t, pidFile)
	fm.waitFor("the running report", func(fm *fakeMaster) bool { return len(fm.reportsFor(s.ID())) == 1 })
	fm.set(func(fm *fakeMaster) { fm.down = true })
	if err := r.stop(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if groupLive(t, pgid) {
		t.Error("the task outlived the agent under --on-exit kill")
	}
}

func TestShutdownKeepLeavesTasksForTheNextAgent(t *testing.T) {
	fm := newFakeMaster(t)
	dir := t.TempDir()
	cfg := testConfig(t, fm, dir)
	cfg.OnExit = ExitKeep
	r := startAgent(t, cfg)
	pidFile := filepath.Join(dir, "pid")
	s := spec(0, 0, `echo $$ > `+pidFile+`; sleep 600`)
	fm.send(startCmd(s))
	pgid := readPid(t, pidFile)
	t.Cleanup(func() { killGroup(pgid) })
	fm.waitFor("the running report", func(fm *fakeMaster) bool { return len(fm.reportsFor(s.ID())) == 1 })
	if err := r.stop(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !groupLive(t, pgid) {
		t.Fatal("the task did not survive --on-exit keep")
	}
	if st := readStateFile(t, dir); len(st.Attempts) != 1 || st.Attempts[0].Pgid != pgid {
		t.Fatalf("state file = %+v, want the kept attempt", st)
	}

	startAgent(t, testConfig(t, fm, dir))
	fm.waitFor("the next agent's registration", func(fm *fakeMaster) bool { return len(fm.registers) == 2 })
	if groupLive(t, pgid) {
		t.Error("the next agent did not kill the kept task")
	}
	fm.locked(func(fm *fakeMaster) {
		if reps := fm.reportsFor(s.ID()); len(reps) != 1 {
			t.Errorf("reports = %+v, want only the running one (the master ends it as lost)", reps)
		}
		fm.checkGoodbye(t, false)
	})
}

func TestWorkDirIsExclusive(t *testing.T) {
	fm := newFakeMaster(t)
	dir := t.TempDir()
	startAgent(t, testConfig(t, fm, dir))
	fm.waitFor("the registration", func(fm *fakeMaster) bool { return len(fm.registers) == 1 })
	cfg := testConfig(t, fm, dir)
	cfg.Name = "node-2"
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = a.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "in use by another agent") {
		t.Fatalf("second agent on one work dir: %v, want an in-use error", err)
	}
}

// TestExitReportSurvivesKill9: an agent killed before the master has the
// exit report of a task that ended delivers it after its restart, with the
// task's real outcome.
func TestExitReportSurvivesKill9(t *testing.T) {
	fm := newFakeMaster(t)
	dir := t.TempDir()
	child := startChildAgent(t, fm, dir)
	s := spec(0, 0, `echo up; sleep 1`, 0)
	fm.send(startCmd(s))
	fm.waitFor("the running report", func(fm *fakeMaster) bool { return len(fm.reportsFor(s.ID())) == 1 })
	// From now on the master stores nothing: the exit report stays with
	// the agent, which journals it.
	fm.set(func(fm *fakeMaster) { fm.failSyncs = 1 << 30 })
	journal := filepath.Join(dir, JournalFileName)
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(journal)
		if bytes.Contains(data, []byte(`"event":"exited"`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no exit report journaled in %s: %q", journal, data)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	fm.set(func(fm *fakeMaster) { fm.failSyncs = 0 })

	startAgent(t, testConfig(t, fm, dir))
	fm.waitFor("the exit report from before the restart", func(fm *fakeMaster) bool {
		for _, r := range fm.reportsFor(s.ID()) {
			if r.Event == api.EventExited {
				return true
			}
		}
		return false
	})
	// The replayed report keeps the exit time the shim recorded.
	st, ok, err := agent.ReadExitFile(filepath.Join(dir, JobsDirName, s.JobID, "0", agent.StateDir, agent.ExitFileName(0, 0)))
	if !ok || err != nil {
		t.Fatalf("the task's exit file: recorded %v, err %v", ok, err)
	}
	fm.locked(func(fm *fakeMaster) {
		for _, r := range fm.reportsFor(s.ID()) {
			if r.Event == api.EventExited && (r.Outcome != string(agent.OutcomeCompleted) || r.ExitCode == nil || *r.ExitCode != 0 ||
				!r.At.Equal(st.ExitedAt)) {
				t.Errorf("replayed report %+v, want completed with exit code 0 at %v", r, st.ExitedAt)
			}
		}
	})
	// Once acknowledged, the journal is empty again.
	deadline = time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(journal)
		if bytes.Contains(data, []byte(`"reports":[]`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the journal still holds acknowledged reports: %s", data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestExitWhileAgentDown: a task that ends while its agent is dead (kill
// -9) is reported with its real exit status by the next agent, from the
// exit file its shim left; it is not ended as lost.
func TestExitWhileAgentDown(t *testing.T) {
	tests := []struct {
		name, entrypoint string
		outcome          agent.Outcome
		code             int
	}{
		{"exit 0 is completed", "sleep 1; exit 0", agent.OutcomeCompleted, 0},
		{"exit 3 is failed", "sleep 1; exit 3", agent.OutcomeFailed, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm := newFakeMaster(t)
			dir := t.TempDir()
			child := startChildAgent(t, fm, dir)
			s := spec(0, 0, tt.entrypoint, 0)
			s.WorkDir = filepath.Join(dir, "task")
			fm.send(startCmd(s))
			fm.waitFor("the running report", func(fm *fakeMaster) bool { return len(fm.reportsFor(s.ID())) == 1 })
			if err := child.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = child.Wait()
			exitFile := filepath.Join(s.WorkDir, agent.StateDir, agent.ExitFileName(0, 0))
			var st agent.ExitStatus
			ctxWait(t, "the task to end with no agent", func() bool {
				var ok bool
				st, ok, _ = agent.ReadExitFile(exitFile)
				return ok
			})

			startAgent(t, testConfig(t, fm, dir))
			fm.waitFor("the exit report", func(fm *fakeMaster) bool {
				for _, r := range fm.reportsFor(s.ID()) {
					if r.Event == api.EventExited {
						return true
					}
				}
				return false
			})
			fm.locked(func(fm *fakeMaster) {
				n := 0
				for _, r := range fm.reportsFor(s.ID()) {
					if r.Event != api.EventExited {
						continue
					}
					n++
					if r.Outcome != string(tt.outcome) || r.ExitCode == nil || *r.ExitCode != tt.code || !r.At.Equal(st.ExitedAt) {
						t.Errorf("report %+v, want %s with exit code %d at the shim's %v", r, tt.outcome, tt.code, st.ExitedAt)
					}
				}
				if n != 1 {
					t.Errorf("%d exit reports, want exactly 1", n)
				}
			})
		})
	}
}

// shutdownCheckpointing starts an agent whose exit grace is a minute,
// starts a task on it that checkpoints until gate exists, and shuts the
// agent down (Run's return is awaited by endCheckpoint, not by r.stop,
// whose t.Fatal must not run outside the test's goroutine). The trap
// ends the background sleep itself: a TERM that reaches the group before
// the sleep exists would leave it holding the task's output open until
// the grace's kill.
func shutdownCheckpointing(t *testing.T) (*fakeMaster, *running, *agent.TaskSpec, string) {
	t.Helper()
	fm := newFakeMaster(t)
	dir := t.TempDir()
	cfg := testConfig(t, fm, dir)
	cfg.ExitGrace = time.Minute
	r := startAgent(t, cfg)
	gate := filepath.Join(dir, "go")
	s := spec(0, 1, `trap 'while [ ! -e `+gate+` ]; do sleep 0.01; done; kill $! 2>/dev/null; exit 0' TERM; echo ready; sleep 600 & wait`)
	fm.send(startCmd(s))
	fm.waitFor("ready", func(fm *fakeMaster) bool { return fm.hasLine(s.ID(), "ready") })
	r.cancel()
	return fm, r, s, gate
}

// endCheckpoint lets shutdownCheckpointing's task end its checkpoint and
// waits for the agent to stop.
func (r *running) endCheckpoint(t *testing.T, gate string) {
	t.Helper()
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.done:
		if r.err != nil {
			t.Fatalf("Run: %v", r.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the agent did not stop within 30s of the task's end")
	}
}

// leavingWithTask counts the syncs that say the agent leaves and list one
// running task.
func leavingWithTask(fm *fakeMaster) int {
	n := 0
	for _, sy := range fm.syncs {
		if sy.Leaving && len(sy.Running) == 1 {
			n++
		}
	}
	return n
}
