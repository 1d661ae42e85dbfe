package agentd

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

func TestRegistrationContent(t *testing.T) {
	fm := newFakeMaster(t)
	cfg := testConfig(t, fm, t.TempDir())
	cfg.GPUs = agent.Fake(2, "a100")
	fm.set(func(fm *fakeMaster) { fm.syncWaitS = 7 })
	startAgent(t, cfg)
	fm.waitFor("a registration", func(fm *fakeMaster) bool { return len(fm.registers) == 1 })
	// The long poll asks for the wait the registration named.
	fm.waitFor("long polls", func(fm *fakeMaster) bool { return fm.waits[7] >= 2 })
	fm.locked(func(fm *fakeMaster) {
		got := fm.registers[0]
		want := api.Register{
			Name:   "node-1",
			Pool:   "default",
			Labels: map[string]string{"rack": "r1"},
			GPUs: []api.GPU{
				{Index: 0, UUID: "GPU-fake-a100-0000", Name: "Fake A100", Type: "a100", MemoryMiB: 81920},
				{Index: 1, UUID: "GPU-fake-a100-0001", Name: "Fake A100", Type: "a100", MemoryMiB: 81920},
			},
			Running: []agent.TaskID{},
			Version: "test",
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("register = %+v, want %+v", got, want)
		}
	})
}

func TestAttemptLifecycle(t *testing.T) {
	cases := []struct {
		name     string
		entry    string
		gpus     []int
		outcome  agent.Outcome
		exitCode int // -1: no exit code (signalled)
		lines    []string
		errHas   string
	}{
		{
			name:     "completed on GPUs 1 and 3",
			entry:    `echo out; echo err >&2; echo "gpus=$CUDA_VISIBLE_DEVICES order=$CUDA_DEVICE_ORDER"; pwd`,
			gpus:     []int{3, 1},
			outcome:  agent.OutcomeCompleted,
			exitCode: 0,
			lines:    []string{"stdout: out", "stderr: err", "stdout: gpus=3,1 order=PCI_BUS_ID", "stdout: WORKDIR/jobs/j1/0"},
		},
		{
			name:     "failed with exit code 3, zero slots",
			entry:    `echo "gpus=[$CUDA_VISIBLE_DEVICES] set=${CUDA_VISIBLE_DEVICES+yes}"; exit 3`,
			outcome:  agent.OutcomeFailed,
			exitCode: 3,
			lines:    []string{"stdout: gpus=[] set=yes"},
		},
		{
			name:     "failed by a signal",
			entry:    `echo bye; kill -KILL $$`,
			outcome:  agent.OutcomeFailed,
			exitCode: -1,
			lines:    []string{"stdout: bye"},
			errHas:   "ended by SIGKILL",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fm := newFakeMaster(t)
			dir := t.TempDir()
			startAgent(t, testConfig(t, fm, dir))
			s := spec(0, 0, tc.entry, tc.gpus...)
			fm.send(startCmd(s))
			id := s.ID()
			fm.waitFor("the exit report", func(fm *fakeMaster) bool { _, ok := fm.exitOf(id); return ok })
			fm.locked(func(fm *fakeMaster) {
				reps := fm.reportsFor(id)
				if len(reps) != 2 || reps[0].Event != api.EventRunning || reps[1].Event != api.EventExited || reps[0].Seq >= reps[1].Seq {
					t.Fatalf("reports = %+v, want running then exited", reps)
				}
				exit := reps[1]
				if exit.Outcome != string(tc.outcome) {
					t.Errorf("outcome = %q, want %q (error %q)", exit.Outcome, tc.outcome, exit.Error)
				}
				switch {
				case tc.exitCode < 0 && exit.ExitCode != nil:
					t.Errorf("exit code = %d, want none", *exit.ExitCode)
				case tc.exitCode >= 0 && (exit.ExitCode == nil || *exit.ExitCode != tc.exitCode):
					t.Errorf("exit code = %v, want %d", exit.ExitCode, tc.exitCode)
				}
				if !strings.Contains(exit.Error, tc.errHas) {
					t.Errorf("error = %q, want it to contain %q", exit.Error, tc.errHas)
				}
				want := make([]string, len(tc.lines))
				for i, l := range tc.lines {
					want[i] = strings.ReplaceAll(l, "WORKDIR", dir)
				}
				// The two streams are separate pipes: only each one's
				// own order is kept.
				got := fm.logText(id)
				slices.Sort(got)
				slices.Sort(want)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("logs = %q, want %q", got, want)
				}
				if fm.exitLogs[id] != len(want) {
					t.Errorf("%d lines were stored when the exit report was, want all %d", fm.exitLogs[id], len(want))
				}
			})
		})
	}
}

// checkpointScript follows the preemption protocol as examples/train
// does: it resumes from its checkpoint, and on SIGTERM saves its step
// and exits 0.
const checkpointScript = `
n=0
if [ -f "$ALLOT_CHECKPOINT_DIR/step" ]; then n=$(cat "$ALLOT_CHECKPOINT_DIR/step"); echo "resume step=$n restart=$ALLOT_RESTART_COUNT"; fi
trap 'echo $n > "$ALLOT_CHECKPOINT_DIR/step"; echo "checkpoint step=$n"; exit 0' TERM
echo ready
while :; do n=$((n+1)); sleep 0.01 & wait $!; done
`

func TestPreemptCheckpointsAndResumes(t *testing.T) {
	fm := newFakeMaster(t)
	dir := t.TempDir()
	startAgent(t, testConfig(t, fm, dir))

	first := spec(0, 0, checkpointScript, 0)
	fm.send(startCmd(first))
	fm.waitFor("ready", func(fm *fakeMaster) bool { return fm.hasLine(first.ID(), "ready") })
	fm.send(stopCmd(api.CommandPreempt, first.ID(), 30))
	fm.waitFor("the preempted exit", func(fm *fakeMaster) bool { _, ok := fm.exitOf(first.ID()); return ok })

	var step string
	fm.locked(func(fm *fakeMaster) {
		exit, _ := fm.exitOf(first.ID())
		if exit.Outcome != string(agent.OutcomePreempted) || exit.ExitCode == nil || *exit.ExitCode != 0 {
			t.Fatalf("exit = %+v, want preempted with exit code 0", exit)
		}
		// stderr may say that the sleep was terminated.
		var lines []string
		for _, l := range fm.logText(first.ID()) {
			if strings.HasPrefix(l, "stdout: ") {
				lines = append(lines, l)
			}
		}
		last := lines[len(lines)-1]
		if !strings.HasPrefix(last, "stdout: checkpoint step=") {
			t.Fatalf("last line = %q, want the checkpoint line", last)
		}
		step = strings.TrimPrefix(last, "stdout: checkpoint step=")
	})
	data, err := os.ReadFile(filepath.Join(dir, JobsDirName, "j1", "0", "checkpoint", "step"))
	if err != nil || strings.TrimSpace(string(data)) != step {
		t.Fatalf("checkpoint file = %q, %v; want step %s", data, err, step)
	}

	second := spec(0, 1, checkpointScript, 0)
	second.RestartCount = 1
	fm.send(startCmd(second))
	want := "resume step=" + step + " restart=1"
	fm.waitFor("the resumed attempt", func(fm *fakeMaster) bool { return fm.hasLine(second.ID(), want) })
	fm.send(stopCmd(api.CommandKill, second.ID(), 0))
	fm.waitFor("the killed exit", func(fm *fakeMaster) bool {
		exit, ok := fm.exitOf(second.ID())
		return ok && exit.Outcome == string(agent.OutcomeKilled)
	})
}

func TestKillEndsTheWholeGroup(t *testing.T) {
	fm := newFakeMaster(t)
	dir := t.TempDir()
	startAgent(t, testConfig(t, fm, dir))
	pidFile := filepath.Join(dir, "pid")
	s := spec(0, 0, `sleep 600 & echo $$ > `+pidFile+`; wait`)
	fm.send(startCmd(s))
	pgid := readPid(t, pidFile)
	fm.waitFor("the running report", func(fm *fakeMaster) bool { return len(fm.reportsFor(s.ID())) == 1 })
	if st := readStateFile(t, dir); len(st.Attempts) != 1 || st.Attempts[0].Pgid != pgid || st.Attempts[0].Task != s.ID() {
		t.Errorf("state file = %+v, want the attempt with pgid %d", st, pgid)
	}
	fm.send(stopCmd(api.CommandKill, s.ID(), 0))
	fm.waitFor("the killed exit", func(fm *fakeMaster) bool { _, ok := fm.exitOf(s.ID()); return ok })
	fm.locked(func(fm *fakeMaster) {
		exit, _ := fm.exitOf(s.ID())
		if exit.Outcome != string(agent.OutcomeKilled) || exit.ExitCode != nil {
			t.Errorf("exit = %+v, want killed without exit code", exit)
		}
	})
	if groupLive(t, pgid) {
		t.Errorf("process group %d outlived the kill", pgid)
	}
	if st := readStateFile(t, dir); len(st.Attempts) != 0 {
		t.Errorf("state file still lists %+v", st.Attempts)
	}
}

func TestRepeatedAndUnknownCommands(t *testing.T) {
	fm := newFakeMaster(t)
	startAgent(t, testConfig(t, fm, t.TempDir()))
	s := spec(0, 0, `echo started; sleep 600`, 2)
	id := s.ID()
	// Twice in one reply, and again in later ones.
	fm.send(startCmd(s), startCmd(s))
	fm.waitFor("the running report", func(fm *fakeMaster) bool { return fm.hasLine(id, "started") })
	fm.send(startCmd(s))
	unknown := agent.TaskID{JobID: "j9", TaskIndex: 4, Attempt: 2}
	other := agent.TaskID{JobID: "j9", TaskIndex: 5, Attempt: 0}
	fm.send(stopCmd(api.CommandPreempt, unknown, 30), stopCmd(api.CommandKill, other, 0))
	fm.waitFor("the unknown attempts' reports", func(fm *fakeMaster) bool {
		_, a := fm.exitOf(unknown)
		_, b := fm.exitOf(other)
		return a && b
	})
	fm.send(stopCmd(api.CommandKill, id, 0), stopCmd(api.CommandKill, id, 0), stopCmd(api.CommandPreempt, id, 5))
	fm.waitFor("the kill", func(fm *fakeMaster) bool { _, ok := fm.exitOf(id); return ok })
	// The same commands once more after the end, and a marker behind them.
	marker := spec(1, 0, `echo marker`)
	fm.send(startCmd(s), stopCmd(api.CommandKill, id, 0), stopCmd(api.CommandKill, unknown, 0), startCmd(marker))
	fm.waitFor("the marker's exit", func(fm *fakeMaster) bool { _, ok := fm.exitOf(marker.ID()); return ok })

	fm.locked(func(fm *fakeMaster) {
		var events []string
		for _, r := range fm.reportsFor(id) {
			events = append(events, r.Event+" "+r.Outcome)
		}
		if want := []string{"running ", "exited killed"}; !reflect.DeepEqual(events, want) {
			t.Errorf("reports of the repeated attempt = %q, want %q", events, want)
		}
		if n := strings.Count(strings.Join(fm.logText(id), "\n"), "started"); n != 1 {
			t.Errorf("the attempt started %d times, want once", n)
		}
		for _, u := range []agent.TaskID{unknown, other} {
			reps := fm.reportsFor(u)
			if len(reps) != 1 || reps[0].Outcome != string(agent.OutcomeKilled) || !strings.Contains(reps[0].Error, "not running") {
				t.Errorf("reports of unknown %s = %+v, want one exited killed", u, reps)
			}
		}
		for i, r := range fm.reports {
			if r.Seq != int64(i+1) {
				t.Errorf("report %d has seq %d, want %d", i, r.Seq, i+1)
			}
		}
	})
}

func TestStartFailuresAreReported(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(s *agent.TaskSpec)
		errHas string
	}{
		{"gpu not on the node", func(s *agent.TaskSpec) { s.GPUs = []int{1, 7} }, "gpu 7 is not on this node"},
		{"reserved variable", func(s *agent.TaskSpec) { s.Env = map[string]string{"CUDA_VISIBLE_DEVICES": "0"} }, "set by the agent"},
		{"relative work dir", func(s *agent.TaskSpec) { s.WorkDir = "rel/dir" }, "expected an absolute path"},
		{"job id naming no directory", func(s *agent.TaskSpec) { s.JobID = "../up" }, "cannot name a directory"},
		{"empty entrypoint", func(s *agent.TaskSpec) { s.Entrypoint = " " }, "entrypoint"},
	}
	fm := newFakeMaster(t)
	startAgent(t, testConfig(t, fm, t.TempDir()))
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := spec(i, 0, "echo never")
			tc.mutate(s)
			fm.send(startCmd(s))
			fm.waitFor("the failure report", func(fm *fakeMaster) bool { _, ok := fm.exitOf(s.ID()); return ok })
			fm.locked(func(fm *fakeMaster) {
				reps := fm.reportsFor(s.ID())
				if len(reps) != 1 || reps[0].Outcome != string(agent.OutcomeFailed) || reps[0].ExitCode != nil {
					t.Fatalf("reports = %+v, want one exited failed without exit code", reps)
				}
				if !strings.Contains(reps[0].Error, tc.errHas) {
					t.Errorf("error = %q, want it to contain %q", reps[0].Error, tc.errHas)
				}
				if len(fm.logText(s.ID())) != 0 {
					t.Errorf("a task that did not start logged %q", fm.logText(s.ID()))
				}
			})
		})
	}
}

func TestWorkDirFromSpec(t *testing.T) {
	fm := newFakeMaster(t)
	startAgent(t, testConfig(t, fm, t.TempDir()))
	wd := filepath.Join(t.TempDir(), "mine")
	s := spec(0, 0, `pwd; echo "ckpt=$ALLOT_CHECKPOINT_DIR"`)
	s.WorkDir = wd
	fm.send(startCmd(s))
	fm.waitFor("the exit", func(fm *fakeMaster) bool { _, ok := fm.exitOf(s.ID()); return ok })
	fm.locked(func(fm *fakeMaster) {
		want := []string{"stdout: " + wd, "stdout: ckpt=" + filepath.Join(wd, "checkpoint")}
		if got := fm.logText(s.ID()); !reflect.DeepEqual(got, want) {
			t.Errorf("logs = %q, want %q", got, want)
		}
	})
}

// seqs lists the stored reports' sequence numbers.
func seqs(reps []api.Report) []int64 {
	out := make([]int64, len(reps))
	for i, r := range reps {
		out[i] = r.Seq
	}
	return out
}
