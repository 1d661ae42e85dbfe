package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Outcome is how one attempt of a task ended.
type Outcome string

// Outcomes. The master maps them onto its task states: preempted attempts
// are requeued, the others are final.
const (
	OutcomeCompleted Outcome = "completed" // exited 0 on its own
	OutcomeFailed    Outcome = "failed"    // exited non-zero or died of a signal, unasked
	OutcomePreempted Outcome = "preempted" // ended after Preempt, by itself or killed at the deadline
	OutcomeKilled    Outcome = "killed"    // ended after Kill
)

// ErrTaskDone is returned by Preempt and Kill once the task's process has
// exited.
var ErrTaskDone = errors.New("task has already exited")

// Files in a task's working directory, under .allot/.
const (
	// StateDir is the agent's directory in each task's working directory.
	StateDir = ".allot"
	// PreemptFileName is the file whose appearance asks for a checkpoint.
	PreemptFileName = "preempt"
	// HyperparametersFileName holds the task's hyperparameters as JSON.
	HyperparametersFileName = "hparams.json"
)

// MetricsFileName is the file, under StateDir, where one attempt's part
// appends its metrics as JSON lines (ALLOT_METRICS_FILE). Each attempt
// gets its own, so that the agent reads every file from the start.
func MetricsFileName(attempt, nodeRank int) string {
	return "metrics-" + strconv.Itoa(attempt) + "-" + strconv.Itoa(nodeRank) + ".jsonl"
}

// MaxHyperparametersBytes bounds the hyperparameters JSON, which travels in
// one environment variable (Linux allows 128 KiB per variable).
const MaxHyperparametersBytes = 64 << 10

// DefaultOutputGrace is Runner.OutputGrace when unset.
const DefaultOutputGrace = 2 * time.Second

// TaskID names one attempt of one task.
type TaskID struct {
	JobID     string `json:"job_id"`
	TaskIndex int    `json:"task_index"`
	Attempt   int    `json:"attempt"`
}

func (id TaskID) String() string { return fmt.Sprintf("%s/%d/%d", id.JobID, id.TaskIndex, id.Attempt) }

// TaskSpec is what the agent needs to run one attempt of a task.
type TaskSpec struct {
	JobID        string `json:"job_id"`
	TaskIndex    int    `json:"task_index"`    // >= 0
	Attempt      int    `json:"attempt"`       // >= 0; the master's attempt number
	RestartCount int    `json:"restart_count"` // >= 0; how many attempts came before with this checkpoint
	// Entrypoint is a shell command line, run as Shell -c Entrypoint.
	Entrypoint string `json:"entrypoint"`
	// WorkDir is the task's working directory, created if missing. The
	// agent keeps its files for the task under WorkDir/.allot/.
	WorkDir string `json:"work_dir"`
	// Env is the job's environment. Names must be valid and must not be
	// ALLOT_*, CUDA_VISIBLE_DEVICES or CUDA_DEVICE_ORDER.
	Env map[string]string `json:"env,omitempty"`
	// GPUs are the indexes (as nvidia-smi numbers them) of the task's
	// GPUs, in the order CUDA should number them; empty for a zero-slot
	// task, which then sees no GPU.
	GPUs []int `json:"gpus,omitempty"`
	// CheckpointDir is where the task saves and finds its checkpoints,
	// created if missing; every attempt of the task should get the same
	// one. Default: WorkDir/checkpoint.
	CheckpointDir string `json:"checkpoint_dir,omitempty"`
	// Hyperparameters is a JSON object; empty means {}.
	Hyperparameters json.RawMessage `json:"hyperparameters,omitempty"`
	// NodeRank and NodeCount place this part in a task that spans several
	// nodes (a gang): parts are ranked 0..NodeCount-1. NodeCount 0 means
	// a single-node task, the same as rank 0 of 1.
	NodeRank  int `json:"node_rank,omitempty"`
	NodeCount int `json:"node_count,omitempty"`
	// MaxSteps is a trial's step budget from its searcher (ASHA's
	// max_length), passed as ALLOT_TRIAL_MAX_STEPS; 0 sets nothing.
	MaxSteps int64 `json:"max_steps,omitempty"`
	// PodSpec is the job's pod_spec (package jobfile) for an agent that
	// runs tasks as Kubernetes pods (k8s/podagent); others ignore it.
	PodSpec json.RawMessage `json:"pod_spec,omitempty"`
	// KillGraceS is the pool's kill_grace in seconds, for an agent that
	// runs tasks as pods: a pod_spec without terminationGracePeriodSeconds
	// gets it, so that a kill, which deletes the pod with its own grace,
	// takes the pool's. nil from a master that sends none. A process
	// agent takes a kill's grace from the kill command instead.
	KillGraceS *int64 `json:"kill_grace_s,omitempty"`
}

// ID returns the spec's TaskID.
func (s TaskSpec) ID() TaskID {
	return TaskID{JobID: s.JobID, TaskIndex: s.TaskIndex, Attempt: s.Attempt}
}

// Runner starts tasks on this node. Its zero value is ready to use; set
// the fields before the first Start and do not change them after.
type Runner struct {
	// PreemptSignal is sent to the task's process group by Preempt;
	// default SIGTERM.
	PreemptSignal syscall.Signal
	// Shell runs entrypoints as Shell -c ENTRYPOINT; default /bin/sh.
	Shell string
	// BaseEnv is the environment that tasks start from, before the job's
	// variables and the agent's own; nil means the agent's environment.
	// Either way ALLOT_*, CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER are
	// left out of it, so the agent's settings never leak into tasks.
	BaseEnv []string
	// OnLog receives each task's output lines, in order, from one
	// goroutine per task; it may block. While it does, lines wait in a
	// buffer of LogBufferBytes, and when that is full the oldest are
	// dropped and counted in LogLine.Dropped: the task itself is never
	// slowed. nil discards output (lines are still counted).
	OnLog func(TaskID, LogLine)
	// LogBufferBytes bounds a task's undelivered output (64 bytes are
	// added per line); default DefaultLogBufferBytes.
	LogBufferBytes int
	// Shim, when set, is an allot binary that runs each task under a task
	// shim (shim.go), so that a task's exit status survives the agent:
	// the task's exit file is Task.ExitFile. Empty runs the task's shell
	// as the leader itself.
	Shim string
	// ShimOutputMaxBytes caps the file where a task's shim keeps its
	// output once the agent is gone (ShimOutputArg); what the task
	// writes past it is dropped and counted. Default
	// DefaultShimOutputMaxBytes.
	ShimOutputMaxBytes int64
	// FenceFile, with Shim, is the agent's fence file (fencefile.go):
	// each task's shim stops its task by it once the agent is gone, as
	// the agent's fence would have. Empty: the shims fence nothing.
	FenceFile string
	// OutputGrace is how long, once every process of the task's group is
	// gone, the agent waits for the output pipes to close before closing
	// them itself; they stay open only if a process left the group (with
	// setsid, say) and holds them. Default DefaultOutputGrace.
	OutputGrace time.Duration
}

// Result is how an attempt ended.
type Result struct {
	ID      TaskID  `json:"id"`
	Outcome Outcome `json:"outcome"`
	// ExitCode is the group leader's exit status, or -1 when a signal
	// ended it; Signal then names the signal ("SIGKILL").
	ExitCode int    `json:"exit_code"`
	Signal   string `json:"signal,omitempty"`
	// KilledAtDeadline is set when a preempted task was still running at
	// its grace deadline and was killed (Outcome is still preempted), or a
	// task killed with a grace was still running at the grace's end and
	// was SIGKILLed (Outcome is killed).
	KilledAtDeadline bool      `json:"killed_at_deadline,omitempty"`
	StartedAt        time.Time `json:"started_at"`
	// ExitedAt is when the task exited: the time its shim recorded (the
	// agent may have noticed later, stopped or starved), within
	// [StartedAt, when the agent noticed]; without a shim, or when the
	// shim recorded none (it was killed with the task), when the agent
	// saw the leader exit.
	ExitedAt time.Time `json:"exited_at"`
	// PreemptedAt is when Preempt asked for a checkpoint; zero if never.
	PreemptedAt time.Time `json:"preempted_at,omitzero"`
	LogLines    uint64    `json:"log_lines"` // output lines read, dropped ones included
	// DroppedLines counts the lines read and not delivered, which left
	// gaps in Seq or were counted in LogLine.Dropped; the lines an
	// adopted task's shim dropped past its output file's cap (at the
	// end, so neither) are counted in Error instead.
	DroppedLines uint64 `json:"dropped_lines,omitempty"`
	// Error reports a problem of the agent's own with this attempt, such
	// as output held open by a process that escaped the group.
	Error string `json:"error,omitempty"`
}

// Task is one running attempt.
type Task struct {
	id          TaskID
	cmd         *exec.Cmd
	pid         int // also the process group id
	preemptSig  syscall.Signal
	outputGrace time.Duration
	preemptFile string
	metricsFile string
	exitFile    string      // the shim's exit file; "" without a shim
	outputFile  string      // the shim's output file; "" without a shim
	adoptTicks  uint64      // the leader's start time when adopted (Adopt); 0 when started here
	tail        *outputTail // an adopted task's output (Adopt); nil when started here
	started     time.Time
	queue       *logQueue
	rOut, rErr  *os.File
	readersDone chan struct{}
	deliverDone chan struct{}
	hardKill    chan struct{} // closed once SIGKILL was sent by Kill or at a deadline
	killOnce    sync.Once
	done        chan struct{}

	mu               sync.Mutex
	leaderExited     bool
	reaped           bool // the leader's pid may be reused: no more group signals
	finished         bool
	preemptAt        time.Time
	timer            *time.Timer // the preemption's deadline
	killRequested    bool
	killAt           time.Time   // the kill's deadline, once killRequested
	killAsked        time.Time   // when the first kill came, once killRequested
	killTimer        *time.Timer // the kill's deadline, for a kill with a grace
	killedAtDeadline bool
	result           Result
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reservedEnv reports whether the agent owns the variable.
func reservedEnv(name string) bool {
	return strings.HasPrefix(name, "ALLOT_") || name == "CUDA_VISIBLE_DEVICES" || name == "CUDA_DEVICE_ORDER"
}

// Validate checks the spec as Start does, without starting anything.
func (s TaskSpec) Validate() error {
	if err := s.validate(); err != nil {
		return err
	}
	_, err := s.hyperparameters()
	return err
}

func (s TaskSpec) validate() error {
	switch {
	case s.JobID == "" || strings.IndexByte(s.JobID, 0) >= 0:
		return errors.New("job id: expected a non-empty id without NUL")
	case s.TaskIndex < 0 || s.Attempt < 0 || s.RestartCount < 0:
		return fmt.Errorf("task index %d, attempt %d, restart count %d: expected numbers >= 0", s.TaskIndex, s.Attempt, s.RestartCount)
	case strings.TrimSpace(s.Entrypoint) == "" || strings.IndexByte(s.Entrypoint, 0) >= 0:
		return errors.New("entrypoint: expected a shell command line without NUL")
	case s.WorkDir == "":
		return errors.New("work dir: empty")
	case s.NodeCount < 0 || s.NodeRank < 0 || (s.NodeRank > 0 && s.NodeRank >= s.NodeCount):
		return fmt.Errorf("node rank %d of %d: expected 0 <= rank < count", s.NodeRank, s.NodeCount)
	case s.MaxSteps < 0:
		return fmt.Errorf("max steps %d: expected a number >= 0", s.MaxSteps)
	}
	seen := map[int]bool{}
	for _, g := range s.GPUs {
		if g < 0 || seen[g] {
			return fmt.Errorf("gpus %v: expected distinct indexes >= 0", s.GPUs)
		}
		seen[g] = true
	}
	for k, v := range s.Env {
		switch {
		case !envNameRE.MatchString(k):
			return fmt.Errorf("env: %q is not a variable name", k)
		case reservedEnv(k):
			return fmt.Errorf("env: %s is set by the agent", k)
		case strings.IndexByte(v, 0) >= 0:
			return fmt.Errorf("env: %s holds a NUL byte", k)
		}
	}
	return nil
}

// hyperparameters returns the spec's hyperparameters as compact JSON.
func (s TaskSpec) hyperparameters() ([]byte, error) {
	if len(bytes.TrimSpace(s.Hyperparameters)) == 0 {
		return []byte("{}"), nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, s.Hyperparameters); err != nil || b.Bytes()[0] != '{' {
		return nil, errors.New("hyperparameters: expected a JSON object")
	}
	if b.Len() > MaxHyperparametersBytes {
		return nil, fmt.Errorf("hyperparameters: %d bytes of JSON, more than the limit of %d", b.Len(), MaxHyperparametersBytes)
	}
	return b.Bytes(), nil
}

// Start starts one attempt of a task as its own process group and returns
// at once; Wait reports the end. An error means nothing was started.
//
// Before starting, it creates the working and checkpoint directories,
// removes a preempt file left by an earlier attempt, and writes the
// hyperparameters file. The task's environment is BaseEnv, then the job's
// Env, then the agent's variables (see the package documentation).
func (r *Runner) Start(spec TaskSpec) (*Task, error) {
	id := spec.ID()
	fail := func(err error) (*Task, error) { return nil, fmt.Errorf("start task %s: %w", id, err) }
	if err := spec.validate(); err != nil {
		return fail(err)
	}
	files, err := prepareFiles(spec)
	if err != nil {
		return fail(err)
	}
	env := r.environ(spec.Env, files.agentEnv(spec))
	p, err := r.spawn(spec, files, env)
	if err != nil {
		return fail(err)
	}
	t := &Task{
		id:          id,
		cmd:         p.cmd,
		pid:         p.cmd.Process.Pid,
		preemptSig:  orDefault(r.PreemptSignal, syscall.SIGTERM),
		outputGrace: orDefault(r.OutputGrace, DefaultOutputGrace),
		preemptFile: files.preempt,
		metricsFile: files.metrics,
		exitFile:    p.exitFile,
		outputFile:  p.outputFile,
		started:     time.Now().UTC(),
		queue:       newLogQueue(orDefault(r.LogBufferBytes, DefaultLogBufferBytes), r.OnLog != nil),
		rOut:        p.rOut,
		rErr:        p.rErr,
		readersDone: make(chan struct{}),
		deliverDone: make(chan struct{}),
		hardKill:    make(chan struct{}),
		done:        make(chan struct{}),
	}
	r.streamOutput(t)
	go t.wait()
	return t, nil
}

// taskFiles are the paths of one attempt, all absolute, and its
// hyperparameters as compact JSON.
type taskFiles struct {
	workDir, stateDir    string
	preempt, metrics, hp string
	checkpointDir        string
	hyperparameters      []byte
}

// prepareFiles creates the attempt's directories, removes the preempt file
// and the metrics and output files that an earlier attempt may have left,
// and writes the hyperparameters file, in that order.
func prepareFiles(spec TaskSpec) (taskFiles, error) {
	var f taskFiles
	hp, err := spec.hyperparameters()
	if err != nil {
		return f, err
	}
	f.hyperparameters = hp
	if f.workDir, err = filepath.Abs(spec.WorkDir); err != nil {
		return f, err
	}
	f.stateDir = filepath.Join(f.workDir, StateDir)
	if err := os.MkdirAll(f.stateDir, 0o755); err != nil {
		return f, err
	}
	f.preempt = filepath.Join(f.stateDir, PreemptFileName)
	if err := os.Remove(f.preempt); err != nil && !errors.Is(err, os.ErrNotExist) {
		return f, fmt.Errorf("remove the last attempt's preempt file: %w", err)
	}
	f.metrics = filepath.Join(f.stateDir, MetricsFileName(spec.Attempt, spec.NodeRank))
	if err := os.Remove(f.metrics); err != nil && !errors.Is(err, os.ErrNotExist) {
		return f, fmt.Errorf("remove a stale metrics file: %w", err)
	}
	// A shim appends to its output file: one of the same attempt number
	// must not be read as this one's.
	output := filepath.Join(f.stateDir, OutputFileName(spec.Attempt, spec.NodeRank))
	if err := os.Remove(output); err != nil && !errors.Is(err, os.ErrNotExist) {
		return f, fmt.Errorf("remove a stale output file: %w", err)
	}
	f.hp = filepath.Join(f.stateDir, HyperparametersFileName)
	if err := writeFileAtomic(f.hp, append(hp, '\n')); err != nil {
		return f, err
	}
	if f.checkpointDir, err = spec.CheckpointPath(); err != nil {
		return f, err
	}
	if err := os.MkdirAll(f.checkpointDir, 0o755); err != nil {
		return f, err
	}
	return f, nil
}

// CheckpointPath is the attempt's checkpoint directory as an absolute
// path: CheckpointDir, else WorkDir/checkpoint (ALLOT_CHECKPOINT_DIR).
func (s TaskSpec) CheckpointPath() (string, error) {
	ckpt := s.CheckpointDir
	if ckpt == "" {
		wd, err := filepath.Abs(s.WorkDir)
		if err != nil {
			return "", err
		}
		ckpt = filepath.Join(wd, "checkpoint")
	}
	return filepath.Abs(ckpt)
}

// agentEnv returns the variables that the agent sets for the attempt
// (the package documentation lists them).
func (f taskFiles) agentEnv(spec TaskSpec) map[string]string {
	gpus := make([]string, len(spec.GPUs))
	for i, g := range spec.GPUs {
		gpus[i] = strconv.Itoa(g)
	}
	own := map[string]string{
		"ALLOT_NODE_RANK":      strconv.Itoa(spec.NodeRank),
		"ALLOT_NUM_NODES":      strconv.Itoa(max(spec.NodeCount, 1)),
		"ALLOT_JOB_ID":         spec.JobID,
		"ALLOT_TASK_INDEX":     strconv.Itoa(spec.TaskIndex),
		"ALLOT_ATTEMPT":        strconv.Itoa(spec.Attempt),
		"ALLOT_RESTART_COUNT":  strconv.Itoa(spec.RestartCount),
		"ALLOT_CHECKPOINT_DIR": f.checkpointDir,
		"ALLOT_HPARAMS":        string(f.hyperparameters),
		"ALLOT_HPARAMS_FILE":   f.hp,
		"ALLOT_PREEMPT_FILE":   f.preempt,
		"CUDA_VISIBLE_DEVICES": strings.Join(gpus, ","),
		"CUDA_DEVICE_ORDER":    "PCI_BUS_ID",
		"ALLOT_METRICS_FILE":   f.metrics,
	}
	if spec.MaxSteps > 0 {
		own["ALLOT_TRIAL_MAX_STEPS"] = strconv.FormatInt(spec.MaxSteps, 10)
	}
	return own
}

// spawned is a started process group leader and the read ends of its
// output pipes.
type spawned struct {
	cmd        *exec.Cmd
	rOut, rErr *os.File
	exitFile   string // the shim's exit file; "" without a shim
	outputFile string // the shim's output file; "" without a shim
}

// spawn starts the attempt's leader (the shell, or the shim around it) as
// a new process group with its output on two pipes. On error nothing runs
// and every pipe end is closed.
func (r *Runner) spawn(spec TaskSpec, files taskFiles, env []string) (spawned, error) {
	rOut, wOut, err := os.Pipe()
	if err != nil {
		return spawned{}, err
	}
	rErr, wErr, err := os.Pipe()
	if err != nil {
		rOut.Close()
		wOut.Close()
		return spawned{}, err
	}
	shell := r.Shell
	if shell == "" {
		shell = "/bin/sh"
	}
	cmd := exec.Command(shell, "-c", spec.Entrypoint)
	var exitFile, outputFile string
	if r.Shim != "" {
		exitFile = filepath.Join(files.stateDir, ExitFileName(spec.Attempt, spec.NodeRank))
		if err := os.Remove(exitFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			rOut.Close()
			wOut.Close()
			rErr.Close()
			wErr.Close()
			return spawned{}, fmt.Errorf("remove a stale exit file: %w", err)
		}
		outputFile = filepath.Join(files.stateDir, OutputFileName(spec.Attempt, spec.NodeRank))
		maxBytes := strconv.FormatInt(orDefault(r.ShimOutputMaxBytes, DefaultShimOutputMaxBytes), 10)
		args := []string{ShimArg, ShimDrainArg, strconv.Itoa(os.Getpid()), ShimOutputArg, outputFile, maxBytes}
		if r.FenceFile != "" {
			sig := orDefault(r.PreemptSignal, syscall.SIGTERM)
			args = append(args, ShimFenceArg, r.FenceFile, spec.ID().String(), strconv.Itoa(int(sig)))
		}
		cmd = exec.Command(r.Shim, append(args, exitFile, shell, "-c", spec.Entrypoint)...)
		cmd.ExtraFiles = []*os.File{rOut, rErr} // fds 3 and 4: ShimDrainArg
	}
	cmd.Dir = files.workDir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = wOut, wErr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	// The child has its copies; the parent's write ends must close so that
	// the readers see EOF when the task's processes are gone.
	wOut.Close()
	wErr.Close()
	if err != nil {
		rOut.Close()
		rErr.Close()
		return spawned{}, err
	}
	return spawned{cmd: cmd, rOut: rOut, rErr: rErr, exitFile: exitFile, outputFile: outputFile}, nil
}

// streamOutput starts the task's output goroutines: one reader per pipe
// into the task's queue, and one that delivers the queue to OnLog.
// readersDone closes once both pipes are at EOF (or closed), deliverDone
// once the last OnLog call has returned.
func (r *Runner) streamOutput(t *Task) {
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); readLines(t.rOut, Stdout, t.queue.push) }()
	go func() { defer readers.Done(); readLines(t.rErr, Stderr, t.queue.push) }()
	go func() { readers.Wait(); close(t.readersDone) }()
	go func() {
		defer close(t.deliverDone)
		if r.OnLog == nil {
			return
		}
		for {
			l, ok := t.queue.pop()
			if !ok {
				return
			}
			r.OnLog(t.id, l)
		}
	}()
}

// orDefault returns v, or def when v is the zero value.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// environ builds a task's environment, sorted by name.
func (r *Runner) environ(job, agent map[string]string) []string {
	base := r.BaseEnv
	if base == nil {
		base = os.Environ()
	}
	m := make(map[string]string, len(base)+len(job)+len(agent))
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" && !reservedEnv(k) {
			m[k] = v
		}
	}
	for k, v := range job {
		m[k] = v
	}
	for k, v := range agent {
		m[k] = v
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// writeFileAtomic writes data to path through a rename, so that a reader
// sees the whole file or none.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
