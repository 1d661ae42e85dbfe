package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// trainBin is the example training program, built once by TestMain.
var trainBin string

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ShimArg {
		// The test binary doubles as the task shim, as the allot binary
		// does in production.
		if os.Getenv(earlySignalEnv) != "" {
			shimBeforeStart = signalBeforeStart // shimearly_test.go
		}
		os.Exit(RunShim(os.Args[2:]))
	}
	if code, ok := runAsChild(); ok {
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "allot-agent-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	trainBin = filepath.Join(dir, "train")
	build := exec.Command("go", "build", "-o", trainBin, "../examples/train")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build examples/train: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// logs collects a runner's output lines.
type logs struct {
	mu    sync.Mutex
	lines []LogLine
}

func (l *logs) add(_ TaskID, line LogLine) {
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
}

func (l *logs) all() []LogLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]LogLine(nil), l.lines...)
}

// texts returns the lines of one stream ("" for both).
func (l *logs) texts(stream Stream) []string {
	var out []string
	for _, line := range l.all() {
		if stream == "" || line.Stream == stream {
			out = append(out, line.Text)
		}
	}
	return out
}

// waitFor waits until some line satisfies ok, and returns it.
func (l *logs) waitFor(t *testing.T, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, s := range l.texts("") {
			if ok(s) {
				return s
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no line %s within 10s; lines: %q", what, l.texts(""))
	return ""
}

// testRunner returns a runner with a small, fixed base environment that
// records output.
func testRunner() (*Runner, *logs) {
	l := &logs{}
	return &Runner{OnLog: l.add, BaseEnv: []string{"PATH=" + os.Getenv("PATH")}}, l
}

func testSpec(t *testing.T, entrypoint string) TaskSpec {
	return TaskSpec{JobID: "job-1", TaskIndex: 0, Attempt: 1, Entrypoint: entrypoint, WorkDir: t.TempDir()}
}

func start(t *testing.T, r *Runner, spec TaskSpec) *Task {
	t.Helper()
	task, err := r.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case <-task.Done():
		default:
			_ = task.Kill(0)
			<-task.Done()
		}
	})
	return task
}

// wait returns the task's result, failing the test after 10s.
func wait(t *testing.T, task *Task) Result {
	t.Helper()
	select {
	case <-task.Done():
		return task.Wait()
	case <-time.After(10 * time.Second):
		_ = task.Kill(0)
		t.Fatalf("task %s did not end within 10s", task.ID())
		return Result{}
	}
}

// alive reports whether pid is a live (non-zombie) process.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	state, _, ok := parseStat(stat)
	return ok && state != 'Z' && state != 'X'
}

// pidsIn returns the numbers printed on lines that start with prefix.
func pidsIn(lines []string, prefix string) []int {
	var out []int
	for _, s := range lines {
		if rest, ok := strings.CutPrefix(s, prefix); ok {
			if pid, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}

func TestOutcomes(t *testing.T) {
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
			res := wait(t, start(t, r, testSpec(t, tt.entrypoint)))
			if res.Outcome != tt.outcome || res.ExitCode != tt.code || res.Signal != tt.signal {
				t.Errorf("result %+v, want %s, code %d, signal %q", res, tt.outcome, tt.code, tt.signal)
			}
			if res.ID != (TaskID{JobID: "job-1", TaskIndex: 0, Attempt: 1}) || res.StartedAt.IsZero() ||
				res.ExitedAt.Before(res.StartedAt) || res.Error != "" || !res.PreemptedAt.IsZero() {
				t.Errorf("result %+v", res)
			}
		})
	}
}

func TestEnvironment(t *testing.T) {
	const show = `for v in ALLOT_JOB_ID ALLOT_TASK_INDEX ALLOT_ATTEMPT ALLOT_RESTART_COUNT ALLOT_CHECKPOINT_DIR ` +
		`ALLOT_HPARAMS ALLOT_HPARAMS_FILE ALLOT_PREEMPT_FILE ALLOT_NODE_RANK ALLOT_NUM_NODES CUDA_DEVICE_ORDER ALLOT_SECRET MY_VAR; do ` +
		`eval "echo $v=\${$v-unset}"; done; echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset}"; ` +
		`echo "PWD=$(pwd -P)"; echo "FILE=$(cat "$ALLOT_HPARAMS_FILE")"; ls -d "$ALLOT_CHECKPOINT_DIR"`
	tests := []struct {
		name        string
		gpus        []int
		hp          string
		cuda        string
		want        string // ALLOT_HPARAMS
		rank, count int
		wantNodes   string // ALLOT_NODE_RANK, ALLOT_NUM_NODES
	}{
		{"two GPUs", []int{0, 2}, `{"lr": 0.1,` + "\n" + ` "layers": [1, 2]}`, "0,2", `{"lr":0.1,"layers":[1,2]}`, 0, 0, "0 1"},
		{"GPUs in the given order", []int{3, 1}, "", "3,1", "{}", 0, 1, "0 1"},
		{"zero-slot task sees no GPU", nil, "{}", "", "{}", 0, 0, "0 1"},
		{"part of a gang", []int{0}, "", "0", "{}", 2, 3, "2 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, l := testRunner()
			r.BaseEnv = append(r.BaseEnv, "ALLOT_SECRET=token", "CUDA_VISIBLE_DEVICES=7", "MY_VAR=base")
			spec := testSpec(t, show)
			spec.JobID, spec.TaskIndex, spec.Attempt, spec.RestartCount = "exp-9", 4, 3, 2
			spec.GPUs = tt.gpus
			spec.NodeRank, spec.NodeCount = tt.rank, tt.count
			spec.Hyperparameters = json.RawMessage(tt.hp)
			spec.Env = map[string]string{"MY_VAR": "from job"}
			spec.CheckpointDir = filepath.Join(t.TempDir(), "ckpt", "exp-9", "4")
			res := wait(t, start(t, r, spec))
			if res.Outcome != OutcomeCompleted {
				t.Fatalf("result %+v; output %q", res, l.texts(""))
			}
			work, _ := filepath.EvalSymlinks(spec.WorkDir)
			wantLines := []string{
				"ALLOT_JOB_ID=exp-9",
				"ALLOT_TASK_INDEX=4",
				"ALLOT_ATTEMPT=3",
				"ALLOT_RESTART_COUNT=2",
				"ALLOT_CHECKPOINT_DIR=" + spec.CheckpointDir,
				"ALLOT_HPARAMS=" + tt.want,
				"ALLOT_HPARAMS_FILE=" + filepath.Join(spec.WorkDir, ".allot", "hparams.json"),
				"ALLOT_PREEMPT_FILE=" + filepath.Join(spec.WorkDir, ".allot", "preempt"),
				"ALLOT_NODE_RANK=" + strings.Fields(tt.wantNodes)[0],
				"ALLOT_NUM_NODES=" + strings.Fields(tt.wantNodes)[1],
				"CUDA_DEVICE_ORDER=PCI_BUS_ID",
				"ALLOT_SECRET=unset",
				"MY_VAR=from job",
				"CUDA_VISIBLE_DEVICES=" + tt.cuda,
				"PWD=" + work,
				"FILE=" + tt.want,
				spec.CheckpointDir,
			}
			if got := l.texts(Stdout); strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
				t.Errorf("environment:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
			}
		})
	}
}

func TestDefaultCheckpointDir(t *testing.T) {
	r, l := testRunner()
	spec := testSpec(t, `echo "$ALLOT_CHECKPOINT_DIR"; test -d "$ALLOT_CHECKPOINT_DIR"`)
	if res := wait(t, start(t, r, spec)); res.Outcome != OutcomeCompleted {
		t.Fatalf("result %+v", res)
	}
	if got := l.texts(Stdout); len(got) != 1 || got[0] != filepath.Join(spec.WorkDir, "checkpoint") {
		t.Errorf("checkpoint dir %q", got)
	}
}

func TestStartErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(*TaskSpec, *Runner)
		want   string
	}{
		{"no job id", func(s *TaskSpec, _ *Runner) { s.JobID = "" }, "job id"},
		{"negative attempt", func(s *TaskSpec, _ *Runner) { s.Attempt = -1 }, "expected numbers >= 0"},
		{"blank entrypoint", func(s *TaskSpec, _ *Runner) { s.Entrypoint = " " }, "entrypoint"},
		{"no work dir", func(s *TaskSpec, _ *Runner) { s.WorkDir = "" }, "work dir"},
		{"repeated GPU", func(s *TaskSpec, _ *Runner) { s.GPUs = []int{1, 1} }, "distinct indexes"},
		{"negative GPU", func(s *TaskSpec, _ *Runner) { s.GPUs = []int{-1} }, "distinct indexes"},
		{"node rank past the count", func(s *TaskSpec, _ *Runner) { s.NodeRank, s.NodeCount = 2, 2 }, "node rank"},
		{"negative node count", func(s *TaskSpec, _ *Runner) { s.NodeCount = -1 }, "node rank"},
		{"reserved variable", func(s *TaskSpec, _ *Runner) { s.Env = map[string]string{"CUDA_VISIBLE_DEVICES": "0"} }, "set by the agent"},
		{"bad variable name", func(s *TaskSpec, _ *Runner) { s.Env = map[string]string{"A=B": "0"} }, "not a variable name"},
		{"hyperparameters not an object", func(s *TaskSpec, _ *Runner) { s.Hyperparameters = json.RawMessage("[1]") }, "JSON object"},
		{"hyperparameters not JSON", func(s *TaskSpec, _ *Runner) { s.Hyperparameters = json.RawMessage("{") }, "JSON object"},
		{"hyperparameters too large", func(s *TaskSpec, _ *Runner) {
			s.Hyperparameters = json.RawMessage(`{"a":"` + strings.Repeat("x", MaxHyperparametersBytes) + `"}`)
		}, "more than the limit"},
		{"work dir is a file", func(s *TaskSpec, _ *Runner) {
			f := filepath.Join(s.WorkDir, "file")
			os.WriteFile(f, nil, 0o644)
			s.WorkDir = f
		}, "not a directory"},
		{"no shell", func(_ *TaskSpec, r *Runner) { r.Shell = "/nonexistent/sh" }, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := testRunner()
			spec := testSpec(t, "true")
			tt.change(&spec, r)
			task, err := r.Start(spec)
			if err == nil {
				wait(t, task)
				t.Fatalf("Start succeeded, want an error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "start task ") {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestLogs(t *testing.T) {
	r, l := testRunner()
	long := MaxLineBytes + 10
	entry := `printf 'one\ntwo\r\n'; echo err >&2; printf '\377bad\n'; ` +
		`head -c ` + strconv.Itoa(long) + ` /dev/zero | tr '\0' x; echo; printf 'no newline'`
	res := wait(t, start(t, r, testSpec(t, entry)))
	if res.Outcome != OutcomeCompleted {
		t.Fatalf("result %+v", res)
	}
	out := l.texts(Stdout)
	want := []string{"one", "two", "\uFFFDbad", strings.Repeat("x", MaxLineBytes), strings.Repeat("x", 10), "no newline"}
	if strings.Join(out, "|") != strings.Join(want, "|") {
		t.Errorf("stdout lines %d: %.100q", len(out), out)
	}
	if got := l.texts(Stderr); len(got) != 1 || got[0] != "err" {
		t.Errorf("stderr %q", got)
	}
	lines := l.all()
	for i, line := range lines {
		if line.Seq != uint64(i+1) || line.Time.IsZero() || line.Dropped != 0 {
			t.Errorf("line %d: %+v", i, line)
		}
		if line.Partial != (line.Stream == Stdout && len(line.Text) == MaxLineBytes) {
			t.Errorf("line %d partial = %v", i, line.Partial)
		}
	}
	if res.LogLines != uint64(len(lines)) || res.DroppedLines != 0 {
		t.Errorf("result counts %d lines, %d dropped; delivered %d", res.LogLines, res.DroppedLines, len(lines))
	}
}

// TestSlowConsumer checks that a consumer that does not keep up never
// stalls the task: lines are dropped, counted, and the gaps show.
func TestSlowConsumer(t *testing.T) {
	const n = 20000
	release := make(chan struct{})
	var (
		mu        sync.Mutex
		delivered []LogLine
	)
	r := &Runner{
		BaseEnv:        []string{"PATH=" + os.Getenv("PATH")},
		LogBufferBytes: 16 << 10,
		OnLog: func(_ TaskID, l LogLine) {
			<-release
			mu.Lock()
			delivered = append(delivered, l)
			mu.Unlock()
		},
	}
	task := start(t, r, testSpec(t, fmt.Sprintf("i=0; while [ $i -lt %d ]; do echo line $i; i=$((i+1)); done", n)))
	// The task runs to its end while the consumer is stuck on line one.
	deadline := time.Now().Add(10 * time.Second)
	for alive(task.Pid()) {
		if time.Now().After(deadline) {
			close(release)
			t.Fatal("the task did not finish while its consumer was blocked")
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case <-task.Done():
		t.Fatal("Wait returned before the consumer had the last line")
	default:
	}
	close(release)
	res := wait(t, task)
	if res.Outcome != OutcomeCompleted || res.LogLines != n || res.DroppedLines == 0 {
		t.Fatalf("result %+v", res)
	}
	var dropped uint64
	var last uint64
	for _, l := range delivered {
		if l.Seq != last+l.Dropped+1 {
			t.Fatalf("line seq %d after %d with %d dropped", l.Seq, last, l.Dropped)
		}
		last = l.Seq
		dropped += l.Dropped
	}
	if dropped != res.DroppedLines || uint64(len(delivered))+dropped != n || last != n {
		t.Errorf("delivered %d + dropped %d (result %d), last seq %d; want %d", len(delivered), dropped, res.DroppedLines, last, n)
	}
	if got := delivered[len(delivered)-1].Text; got != fmt.Sprintf("line %d", n-1) {
		t.Errorf("last line %q: the newest lines must survive", got)
	}
}

func TestNoConsumer(t *testing.T) {
	r := &Runner{BaseEnv: []string{"PATH=" + os.Getenv("PATH")}}
	res := wait(t, start(t, r, testSpec(t, "echo a; echo b >&2")))
	if res.Outcome != OutcomeCompleted || res.LogLines != 2 || res.DroppedLines != 0 {
		t.Errorf("result %+v", res)
	}
}

// TestNoOrphans checks that the group's other processes die with the
// leader, however the task ends.
func TestNoOrphans(t *testing.T) {
	const spawn = `sleep 30 & echo "child $!"; (sleep 30 & echo "grandchild $!"; wait) & `
	tests := []struct {
		name       string
		entrypoint string
		act        func(*Task) error
		outcome    Outcome
	}{
		{"leader exits 0", spawn + "sleep 0.1; exit 0", nil, OutcomeCompleted},
		{"leader fails", spawn + "sleep 0.1; exit 4", nil, OutcomeFailed},
		{"killed", spawn + "sleep 30", func(t *Task) error { return t.Kill(0) }, OutcomeKilled},
		{"killed at the end of the kill grace", "trap '' TERM; " + spawn + "sleep 30",
			func(t *Task) error { return t.Kill(100 * time.Millisecond) }, OutcomeKilled},
		{"killed at the preemption deadline", "trap '' TERM; " + spawn + "sleep 30",
			func(t *Task) error { return t.Preempt(100 * time.Millisecond) }, OutcomePreempted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, l := testRunner()
			task := start(t, r, testSpec(t, tt.entrypoint))
			l.waitFor(t, "grandchild", func(s string) bool { return strings.HasPrefix(s, "grandchild") })
			if tt.act != nil {
				if err := tt.act(task); err != nil {
					t.Fatal(err)
				}
			}
			res := wait(t, task)
			if res.Outcome != tt.outcome {
				t.Errorf("outcome %s, want %s (%+v)", res.Outcome, tt.outcome, res)
			}
			pids := append(pidsIn(l.texts(Stdout), "child "), pidsIn(l.texts(Stdout), "grandchild ")...)
			if len(pids) != 2 {
				t.Fatalf("pids %v from %q", pids, l.texts(""))
			}
			for _, pid := range pids {
				if alive(pid) {
					t.Errorf("process %d outlived its task", pid)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			if alive(task.Pid()) {
				t.Errorf("the leader %d is alive", task.Pid())
			}
		})
	}
}

func TestKillAndPreemptAfterExit(t *testing.T) {
	r, _ := testRunner()
	task := start(t, r, testSpec(t, "exit 0"))
	res := wait(t, task)
	if err := task.Kill(0); !errors.Is(err, ErrTaskDone) {
		t.Errorf("Kill after exit: %v", err)
	}
	if err := task.Preempt(time.Second); !errors.Is(err, ErrTaskDone) {
		t.Errorf("Preempt after exit: %v", err)
	}
	if again := task.Wait(); again != res || res.Outcome != OutcomeCompleted {
		t.Errorf("result changed to %+v from %+v", again, res)
	}
}

// TestEscapedOutput: a process that leaves the group (setsid) and keeps
// stdout open cannot hold up the result past OutputGrace.
func TestEscapedOutput(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Fatalf("setsid (util-linux) is needed for this test: %v", err)
	}
	r, l := testRunner()
	r.OutputGrace = 100 * time.Millisecond
	task := start(t, r, testSpec(t, `setsid sleep 5 & echo "escaped $!"; sleep 0.2`))
	res := wait(t, task)
	for _, pid := range pidsIn(l.texts(Stdout), "escaped ") {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if res.Outcome != OutcomeCompleted || !strings.Contains(res.Error, "output still open") {
		t.Errorf("result %+v", res)
	}
	if res.ExitedAt.Sub(res.StartedAt) > 2*time.Second {
		t.Errorf("took %v", res.ExitedAt.Sub(res.StartedAt))
	}
}

func TestStalePreemptFileRemoved(t *testing.T) {
	r, _ := testRunner()
	spec := testSpec(t, `test ! -e "$ALLOT_PREEMPT_FILE"`)
	os.MkdirAll(filepath.Join(spec.WorkDir, ".allot"), 0o755)
	os.WriteFile(filepath.Join(spec.WorkDir, ".allot", "preempt"), []byte("old"), 0o644)
	if res := wait(t, start(t, r, spec)); res.Outcome != OutcomeCompleted {
		t.Errorf("a preempt file from the last attempt was left: %+v", res)
	}
}

func TestResultJSON(t *testing.T) {
	res := Result{ID: TaskID{JobID: "j", TaskIndex: 1, Attempt: 2}, Outcome: OutcomePreempted, ExitCode: -1,
		Signal: "SIGKILL", KilledAtDeadline: true}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"outcome":"preempted"`, `"killed_at_deadline":true`, `"job_id":"j"`, `"signal":"SIGKILL"`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("%s lacks %s", data, want)
		}
	}
	if bytes.Contains(data, []byte("preempted_at")) {
		t.Errorf("%s has a zero preempted_at", data)
	}
}
