package jobfile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/allot-sched/allot/searcher"
)

// Kind is what a job runs.
type Kind string

// Job kinds. Experiments are many trial tasks; the others are one task.
const (
	KindCommand     Kind = "command"
	KindNotebook    Kind = "notebook"
	KindShell       Kind = "shell"
	KindTensorboard Kind = "tensorboard"
	KindExperiment  Kind = "experiment"
)

// Kinds lists every kind, in the order error messages present them.
var Kinds = []Kind{KindCommand, KindNotebook, KindShell, KindTensorboard, KindExperiment}

// PriorityClass is a named band of priorities.
type PriorityClass string

// Priority classes. Each covers a band of priority numbers and has one
// canonical number, used when a job file gives the class but no number:
//
//	HIGH    1-29, canonical 10
//	NORMAL 30-59, canonical 42 (the default priority)
//	LOW    60-99, canonical 80; LOW work is always preemptible
const (
	ClassHigh   PriorityClass = "HIGH"
	ClassNormal PriorityClass = "NORMAL"
	ClassLow    PriorityClass = "LOW"
)

var classes = []PriorityClass{ClassHigh, ClassNormal, ClassLow}

// Priority limits and the default. A lower number is more important.
const (
	MinPriority     = 1
	MaxPriority     = 99
	DefaultPriority = 42
)

// Priority returns the class's canonical number, or 0 for an unknown class.
func (c PriorityClass) Priority() int {
	switch c {
	case ClassHigh:
		return 10
	case ClassNormal:
		return DefaultPriority
	case ClassLow:
		return 80
	}
	return 0
}

// ClassOf returns the class whose band holds priority, or "" when priority
// is outside 1..99.
func ClassOf(priority int) PriorityClass {
	switch {
	case priority < MinPriority || priority > MaxPriority:
		return ""
	case priority < 30:
		return ClassHigh
	case priority < 60:
		return ClassNormal
	}
	return ClassLow
}

// band renders a class's band for messages.
func (c PriorityClass) band() string {
	switch c {
	case ClassHigh:
		return "1-29"
	case ClassNormal:
		return "30-59"
	case ClassLow:
		return "60-99"
	}
	return "?"
}

// Limits on what a job file may ask for. They keep one submission from
// exhausting the master's memory or the agents' environment space.
const (
	// MaxTrials bounds the trials of one experiment, grid or random.
	MaxTrials = 10_000
	// MaxHyperparametersBytes bounds one trial's hyperparameters as JSON,
	// which the agent passes in one environment variable (Linux allows
	// 128 KiB per variable).
	MaxHyperparametersBytes = 64 << 10
	// MaxExpansionBytes bounds all trials' hyperparameters together.
	MaxExpansionBytes = 64 << 20
	// MaxEnvironmentBytes bounds the job's environment, names and values
	// together.
	MaxEnvironmentBytes = 256 << 10
	// MaxEntrypointBytes bounds the entrypoint command line.
	MaxEntrypointBytes = 64 << 10
	// MaxDescriptionBytes bounds the description.
	MaxDescriptionBytes = 4096
	// MaxNice bounds the nice value, far above any sum of weights.
	MaxNice = 1_000_000_000
	// MaxLicenses bounds the licenses one job names.
	MaxLicenses = 64
)

// DefaultWeight is a job's fair-share weight when the file gives none.
const DefaultWeight = 1.0

// Job is one parsed and validated job file. Every default is filled in, so
// a Job from Parse needs no further interpretation. Its JSON form uses the
// job file's field names: json.Marshal of a Job is a job spec that
// ParseJSON accepts and turns back into an equal Job.
type Job struct {
	Name        string            `json:"name"`
	Kind        Kind              `json:"kind"`
	Description string            `json:"description,omitempty"`
	Project     string            `json:"project,omitempty"` // "": the master's default project
	Pool        string            `json:"pool,omitempty"`    // "": the master's default pool
	Entrypoint  string            `json:"entrypoint"`        // a shell command line, run with /bin/sh -c
	Environment map[string]string `json:"environment,omitempty"`
	Resources   Resources         `json:"resources"`
	// Hyperparameters and Searcher are set for experiments only; an
	// experiment always has a Searcher, and maybe no hyperparameters.
	Hyperparameters map[string]Hyperparameter `json:"hyperparameters,omitempty"`
	Searcher        *Searcher                 `json:"searcher,omitempty"`
	// PodSpec is the pod template for running the job's tasks on
	// Kubernetes (podspec.go, docs/kubernetes.md), as compact JSON; nil:
	// none. Agents that run processes ignore it.
	PodSpec json.RawMessage `json:"pod_spec,omitempty"`
}

// DefaultPreemptible is whether a job of kind is preemptible outside the
// LOW class when its file does not say: experiments are.
func DefaultPreemptible(kind Kind) bool { return kind == KindExperiment }

// Resources is what each task of a job needs, and how it is scheduled.
type Resources struct {
	Slots         int           `json:"slots"`                // GPUs per task; 0 is a zero-slot task
	Priority      int           `json:"priority"`             // 1..99, lower is more important
	PriorityClass PriorityClass `json:"priority_class"`       // always ClassOf(Priority)
	Weight        float64       `json:"weight"`               // > 0, finite
	MaxSlots      int           `json:"max_slots,omitempty"`  // cap on the job's slots in use; 0: none
	Preemptible   bool          `json:"preemptible"`          // always true for LOW
	TimeLimit     int64         `json:"time_limit,omitempty"` // seconds per task; 0: none
	// MinSlots makes the job elastic: a task may start with fewer slots
	// than Slots (halving down to MinSlots) and grow back. 0: not elastic;
	// else 1 <= MinSlots <= Slots.
	MinSlots int `json:"min_slots,omitempty"`
	// GPU restricts the job to nodes of this GPU type; "": any type. A
	// pod_spec selecting nodes by GPULabel sets it (podgpu.go).
	GPU string `json:"gpu,omitempty"`
	// Topology is whether a task spanning nodes must keep to one switch:
	// "" (prefer, the default), TopologyPrefer or TopologyRequired.
	Topology Topology `json:"topology,omitempty"`
	// Licenses is what each task holds while it runs, by license name;
	// nil or non-empty, every count >= 1.
	Licenses map[string]int `json:"licenses,omitempty"`
	// QOS names the quality of service; "": the master's default.
	QOS string `json:"qos,omitempty"`
	// Nice lowers the job's multifactor priority by this many priority
	// units; 0..MaxNice.
	Nice int `json:"nice,omitempty"`
	// CheckpointEvery, in seconds, says how often the job saves a
	// checkpoint, so that the scheduler can tell how much work a
	// preemption would lose; 0: unknown.
	CheckpointEvery int64 `json:"checkpoint_every,omitempty"`
	// OnPreempt and MaxRetries are the job's exit actions, what happens to
	// a task that a preemption (its agent's too), a lost attempt or its
	// owner's requeue stopped: OnPreempt "reschedule" or "fail",
	// MaxRetries the times it may be rescheduled before it fails (0 is
	// on_preempt: fail). ""/nil: the pool's (on_preempt and max_retries
	// in the master's configuration). Any job may give them, preemptible
	// or not.
	OnPreempt  string `json:"on_preempt,omitempty"`
	MaxRetries *int   `json:"max_retries,omitempty"`
}

// Exit actions' values (Resources.OnPreempt).
const (
	OnPreemptReschedule = "reschedule"
	OnPreemptFail       = "fail"
)

var onPreempts = []string{OnPreemptReschedule, OnPreemptFail}

// Topology says whether a task spanning nodes keeps to one network switch.
type Topology string

// Topology values: prefer one switch (the default) or require it.
const (
	TopologyPrefer   Topology = "prefer"
	TopologyRequired Topology = "required"
)

var topologies = []Topology{TopologyPrefer, TopologyRequired}

// Searcher says how an experiment's trials are made.
type Searcher struct {
	Name                SearcherName `json:"name"`
	MaxTrials           int          `json:"max_trials"`            // == the number of trials
	MaxConcurrentTrials int          `json:"max_concurrent_trials"` // >= 1; default MaxTrials
	Seed                int64        `json:"seed"`                  // >= 0; used by random, asha, adaptive_asha

	// The adaptive searchers' fields (asha, adaptive_asha); zero for the
	// others. Trials sample their hyperparameters as random search does.
	Metric          string  `json:"metric,omitempty"`            // the metric trials report, required
	SmallerIsBetter *bool   `json:"smaller_is_better,omitempty"` // default true; a pointer so that false survives JSON
	MaxLength       int64   `json:"max_length,omitempty"`        // steps, required
	Divisor         float64 `json:"divisor,omitempty"`           // reduction factor > 1; default 4
	NumRungs        int     `json:"num_rungs,omitempty"`         // default 4
	Brackets        int     `json:"brackets,omitempty"`          // 1 for asha; adaptive default (num_rungs+1)/2
}

// Adaptive reports whether the searcher decides from reported metrics.
func (s *Searcher) Adaptive() bool {
	return s != nil && (s.Name == SearchASHA || s.Name == SearchAdaptiveASHA)
}

// SearcherName is a search method.
type SearcherName string

// Search methods.
const (
	SearchGrid   SearcherName = "grid"
	SearchRandom SearcherName = "random"
	// SearchASHA and SearchAdaptiveASHA sample like random and stop the
	// trials that fall behind early (package searcher).
	SearchASHA         SearcherName = "asha"
	SearchAdaptiveASHA SearcherName = "adaptive_asha"
)

// Defaults of the adaptive searchers.
const (
	DefaultDivisor  = 4
	DefaultNumRungs = 4
)

var searchers = []SearcherName{SearchGrid, SearchRandom, SearchASHA, SearchAdaptiveASHA}

// Task is one task of a job: one trial of an experiment, or the single task
// of the other kinds.
type Task struct {
	Index int `json:"index"` // 0-based, in expansion order
	// Hyperparameters is the trial's hyperparameters as a compact JSON
	// object with keys in byte order; "{}" for jobs without any.
	Hyperparameters json.RawMessage `json:"hyperparameters"`
}

// Load reads the job file at path and parses it.
func Load(path string) (*Job, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load job file: %w", err)
	}
	return Parse(path, data)
}

// Parse parses and validates a YAML job file. name only labels error
// messages. It returns a complete Job or an error, never both.
func Parse(name string, data []byte) (*Job, error) {
	p := newParser(name)
	root, ok := p.Decode(data)
	if !ok {
		return nil, scriptErr(name, data, p.Err())
	}
	j, err := p.finish(root)
	if err != nil {
		return nil, scriptErr(name, data, err)
	}
	return j, nil
}

// scriptErr is err, or, for a file that reads as a shell script (a #!
// line first, or #SBATCH lines, which YAML takes for comments so that the
// error points at its first command), an error that says so and how to
// run it: sbatch's users hand it their batch scripts (trial r R4).
func scriptErr(name string, data []byte, err error) error {
	first, _, _ := strings.Cut(string(data), "\n")
	sign := ""
	switch {
	case strings.HasPrefix(first, "#!"):
		sign = strings.TrimSpace(first)
	case strings.Contains("\n"+string(data), "\n#SBATCH"):
		sign = "#SBATCH lines"
	default:
		return err
	}
	base := filepath.Base(name)
	if name == "" || name == "-" {
		base = "job.sh" // stdin: the script has no name of its own
	}
	return fmt.Errorf("%s: looks like a shell script (%s), not a job file: allot submit takes a YAML job file (docs/jobfile.md); "+
		"to run the script, write one such as {name: %s, entrypoint: bash %s, resources: {slots: 1}} beside it, "+
		"and give #SBATCH's options as submit's flags (-G GPUS, -t TIME, -J NAME, -p POOL, -A PROJECT); the YAML reader said: %w",
		name, sign, strings.TrimSuffix(base, filepath.Ext(base)), base, err)
}

// ParseJSON parses and validates a job spec given as JSON, such as a
// request body, with the same fields, rules and messages as Parse. Lines
// in errors count lines of the JSON text.
func ParseJSON(name string, data []byte) (*Job, error) {
	p := newParser(name)
	root, ok := p.decodeJSON(data)
	if !ok {
		return nil, p.Err()
	}
	return p.finish(root)
}

// Tasks returns the job's tasks: the trials of an experiment, or one task
// for the other kinds. It is deterministic: the same Job always gives the
// same tasks. For a Job returned by Parse or ParseJSON it never fails; the
// error is for Jobs built or changed by hand.
func (j *Job) Tasks() ([]Task, error) {
	if j.Kind != KindExperiment {
		return []Task{{Index: 0, Hyperparameters: json.RawMessage("{}")}}, nil
	}
	if j.Searcher == nil {
		return nil, fmt.Errorf("jobfile: experiment %q has no searcher", j.Name)
	}
	return expand(j.Hyperparameters, *j.Searcher)
}

// String names the job for logs: "experiment \"asha\"".
func (j *Job) String() string {
	return fmt.Sprintf("%s %q", j.Kind, j.Name)
}

// reservedEnv reports whether the agent owns the environment variable.
func reservedEnv(name string) bool {
	return strings.HasPrefix(name, "ALLOT_") || name == "CUDA_VISIBLE_DEVICES" || name == "CUDA_DEVICE_ORDER"
}

// SearchConfig is the configuration of an adaptive searcher's Search.
func (s *Searcher) SearchConfig() searcher.Config {
	return searcher.Config{Metric: s.Metric, SmallerIsBetter: s.SmallerIsBetter == nil || *s.SmallerIsBetter, MaxLength: s.MaxLength,
		Divisor: s.Divisor, NumRungs: s.NumRungs, MaxTrials: s.MaxTrials, Brackets: s.Brackets}
}
