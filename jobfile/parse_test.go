package jobfile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func mustParse(t *testing.T, src string) *Job {
	t.Helper()
	j, err := Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return j
}

// hparams returns each task's hyperparameters as a string.
func hparams(t *testing.T, j *Job) []string {
	t.Helper()
	tasks, err := j.Tasks()
	if err != nil {
		t.Fatalf("Tasks: %v", err)
	}
	out := make([]string, len(tasks))
	for i, task := range tasks {
		if task.Index != i {
			t.Errorf("task %d has index %d", i, task.Index)
		}
		out[i] = string(task.Hyperparameters)
	}
	return out
}

func TestParseMinimal(t *testing.T) {
	j := mustParse(t, `{name: hello, entrypoint: "echo hi", resources: {slots: 2}}`)
	want := &Job{
		Name: "hello", Kind: KindCommand, Entrypoint: "echo hi",
		Resources: Resources{Slots: 2, Priority: 42, PriorityClass: ClassNormal, Weight: 1},
	}
	if !reflect.DeepEqual(j, want) {
		t.Fatalf("got  %+v\nwant %+v", j, want)
	}
	if got := hparams(t, j); !reflect.DeepEqual(got, []string{"{}"}) {
		t.Errorf("tasks = %q, want one task with {}", got)
	}
}

func TestParseFull(t *testing.T) {
	j := mustParse(t, `
name: resnet-sweep
description: ResNet-50 learning-rate sweep
project: vision
pool: a100
entrypoint: python train.py --epochs 90
environment:
  NCCL_DEBUG: INFO
  SEED: 7
  FLAG: true
  EMPTY: ""
resources:
  slots: 8
  priority_class: high
  weight: 2.5
  max_slots: 32
  time_limit: 12h
hyperparameters:
  lr: {type: double, minval: 0.1, maxval: 0.3, count: 3}
  optimizer: {type: categorical, vals: [sgd, adam]}
  layers: [64, 64]
  schedule: {type: const, val: {name: cosine, warmup: 5}}
searcher:
  name: grid
  max_concurrent_trials: 2
`)
	want := &Job{
		Name: "resnet-sweep", Kind: KindExperiment, Description: "ResNet-50 learning-rate sweep",
		Project: "vision", Pool: "a100", Entrypoint: "python train.py --epochs 90",
		Environment: map[string]string{"NCCL_DEBUG": "INFO", "SEED": "7", "FLAG": "true", "EMPTY": ""},
		Resources: Resources{Slots: 8, Priority: 10, PriorityClass: ClassHigh, Weight: 2.5, MaxSlots: 32,
			Preemptible: true, TimeLimit: 12 * 3600},
		Hyperparameters: map[string]Hyperparameter{
			"lr":        {Type: HPDouble, Minval: 0.1, Maxval: 0.3, Count: 3},
			"optimizer": {Type: HPCategorical, Vals: []json.RawMessage{json.RawMessage(`"sgd"`), json.RawMessage(`"adam"`)}},
			"layers":    {Type: HPConst, Val: json.RawMessage(`[64,64]`)},
			"schedule":  {Type: HPConst, Val: json.RawMessage(`{"name":"cosine","warmup":5}`)},
		},
		Searcher: &Searcher{Name: SearchGrid, MaxTrials: 6, MaxConcurrentTrials: 2},
	}
	if !reflect.DeepEqual(j, want) {
		t.Fatalf("got  %+v\nwant %+v", j, want)
	}
	got := hparams(t, j)
	wantHP := []string{
		`{"layers":[64,64],"lr":0.1,"optimizer":"sgd","schedule":{"name":"cosine","warmup":5}}`,
		`{"layers":[64,64],"lr":0.1,"optimizer":"adam","schedule":{"name":"cosine","warmup":5}}`,
		`{"layers":[64,64],"lr":0.2,"optimizer":"sgd","schedule":{"name":"cosine","warmup":5}}`,
		`{"layers":[64,64],"lr":0.2,"optimizer":"adam","schedule":{"name":"cosine","warmup":5}}`,
		`{"layers":[64,64],"lr":0.3,"optimizer":"sgd","schedule":{"name":"cosine","warmup":5}}`,
		`{"layers":[64,64],"lr":0.3,"optimizer":"adam","schedule":{"name":"cosine","warmup":5}}`,
	}
	if !reflect.DeepEqual(got, wantHP) {
		t.Errorf("trials:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantHP, "\n"))
	}
}

func TestParseDefaults(t *testing.T) {
	tests := []struct {
		name string
		src  string // after head
		want Resources
		kind Kind
	}{
		{"command", "", Resources{Slots: 1, Priority: 42, PriorityClass: ClassNormal, Weight: 1}, KindCommand},
		{"notebook is not preemptible", "kind: notebook\n", Resources{Slots: 1, Priority: 42, PriorityClass: ClassNormal, Weight: 1}, KindNotebook},
		{"shell", "kind: shell\nresources: {slots: 0}\n", Resources{Slots: 0, Priority: 42, PriorityClass: ClassNormal, Weight: 1}, KindShell},
		{"tensorboard", "kind: tensorboard\n", Resources{Slots: 1, Priority: 42, PriorityClass: ClassNormal, Weight: 1}, KindTensorboard},
		{"experiment is preemptible", "kind: experiment\n", Resources{Slots: 1, Priority: 42, PriorityClass: ClassNormal, Weight: 1, Preemptible: true}, KindExperiment},
		{"hyperparameters make an experiment", "hyperparameters: {lr: 0.1}\n", Resources{Slots: 1, Priority: 42, PriorityClass: ClassNormal, Weight: 1, Preemptible: true}, KindExperiment},
		{"a searcher makes an experiment", "searcher: {name: random, max_trials: 3}\n", Resources{Slots: 1, Priority: 42, PriorityClass: ClassNormal, Weight: 1, Preemptible: true}, KindExperiment},
		{"experiment may opt out of preemption", "kind: experiment\nresources: {preemptible: false}\n", Resources{Slots: 1, Priority: 42, PriorityClass: ClassNormal, Weight: 1}, KindExperiment},
		{"command may opt in", "resources: {preemptible: true}\n", Resources{Slots: 1, Priority: 42, PriorityClass: ClassNormal, Weight: 1, Preemptible: true}, KindCommand},
		{"HIGH", "resources: {priority_class: HIGH}\n", Resources{Slots: 1, Priority: 10, PriorityClass: ClassHigh, Weight: 1}, KindCommand},
		{"NORMAL", "resources: {priority_class: NORMAL}\n", Resources{Slots: 1, Priority: 42, PriorityClass: ClassNormal, Weight: 1}, KindCommand},
		{"LOW is preemptible", "kind: notebook\nresources: {priority_class: LOW}\n", Resources{Slots: 1, Priority: 80, PriorityClass: ClassLow, Weight: 1, Preemptible: true}, KindNotebook},
		{"lower-case class", "resources: {priority_class: low}\n", Resources{Slots: 1, Priority: 80, PriorityClass: ClassLow, Weight: 1, Preemptible: true}, KindCommand},
		{"class and priority agree", "resources: {priority: 25, priority_class: HIGH}\n", Resources{Slots: 1, Priority: 25, PriorityClass: ClassHigh, Weight: 1}, KindCommand},
		{"priority gives the class", "resources: {priority: 61}\n", Resources{Slots: 1, Priority: 61, PriorityClass: ClassLow, Weight: 1, Preemptible: true}, KindCommand},
		{"null resources", "resources:\n", Resources{Slots: 1, Priority: 42, PriorityClass: ClassNormal, Weight: 1}, KindCommand},
		{"time limit in seconds", "resources: {time_limit: 90}\n", Resources{Slots: 1, Priority: 42, PriorityClass: ClassNormal, Weight: 1, TimeLimit: 90}, KindCommand},
		{"time limit as a string", "resources: {time_limit: 1h30m}\n", Resources{Slots: 1, Priority: 42, PriorityClass: ClassNormal, Weight: 1, TimeLimit: 5400}, KindCommand},
		{"time limit in days", "resources: {time_limit: 2d}\n", Resources{Slots: 1, Priority: 42, PriorityClass: ClassNormal, Weight: 1, TimeLimit: 2 * 86400}, KindCommand},
		{"time limit as Slurm's H:MM:SS", "resources: {time_limit: \"1:30:00\"}\n", Resources{Slots: 1, Priority: 42, PriorityClass: ClassNormal, Weight: 1, TimeLimit: 5400}, KindCommand},
		{"time limit as Slurm's D-HH:MM:SS", "resources: {time_limit: 1-00:00:00}\n", Resources{Slots: 1, Priority: 42, PriorityClass: ClassNormal, Weight: 1, TimeLimit: 86400}, KindCommand},
		{"merge keys", "resources: {<<: {slots: 4, weight: 3}, slots: 2}\n", Resources{Slots: 2, Priority: 42, PriorityClass: ClassNormal, Weight: 3}, KindCommand},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := mustParse(t, head+tt.src)
			if j.Kind != tt.kind {
				t.Errorf("kind = %s, want %s", j.Kind, tt.kind)
			}
			if !reflect.DeepEqual(j.Resources, tt.want) {
				t.Errorf("resources = %+v, want %+v", j.Resources, tt.want)
			}
			if (j.Kind == KindExperiment) != (j.Searcher != nil) {
				t.Errorf("kind %s with searcher %+v", j.Kind, j.Searcher)
			}
		})
	}
}

func TestPriorityClasses(t *testing.T) {
	for _, tt := range []struct {
		priority int
		class    PriorityClass
	}{{0, ""}, {1, ClassHigh}, {10, ClassHigh}, {29, ClassHigh}, {30, ClassNormal}, {42, ClassNormal},
		{59, ClassNormal}, {60, ClassLow}, {80, ClassLow}, {99, ClassLow}, {100, ""}} {
		if got := ClassOf(tt.priority); got != tt.class {
			t.Errorf("ClassOf(%d) = %q, want %q", tt.priority, got, tt.class)
		}
	}
	for _, c := range classes {
		if ClassOf(c.Priority()) != c {
			t.Errorf("class %s: canonical priority %d is outside its band", c, c.Priority())
		}
	}
}

func TestGrid(t *testing.T) {
	tests := []struct {
		name string
		src  string // the hyperparameters and searcher
		want []string
	}{
		{"no hyperparameters", "kind: experiment\n", []string{"{}"}},
		{"constants only", "hyperparameters: {a: 1, b: x}\n", []string{`{"a":1,"b":"x"}`}},
		{"last name varies fastest", "hyperparameters:\n  b: {type: categorical, vals: [1, 2]}\n  a: {type: categorical, vals: [x, y, z]}\n",
			[]string{`{"a":"x","b":1}`, `{"a":"x","b":2}`, `{"a":"y","b":1}`, `{"a":"y","b":2}`, `{"a":"z","b":1}`, `{"a":"z","b":2}`}},
		{"int grid", "hyperparameters: {n: {type: int, minval: 0, maxval: 10, count: 4}}\n",
			[]string{`{"n":0}`, `{"n":3}`, `{"n":7}`, `{"n":10}`}},
		{"int grid clamps count to the range", "hyperparameters: {n: {type: int, minval: -1, maxval: 1, count: 10}}\n",
			[]string{`{"n":-1}`, `{"n":0}`, `{"n":1}`}},
		{"int grid of one", "hyperparameters: {n: {type: int, minval: 5, maxval: 9, count: 1}}\n", []string{`{"n":5}`}},
		{"double grid", "hyperparameters: {d: {type: double, minval: 0, maxval: 1, count: 5}}\n",
			[]string{`{"d":0.0}`, `{"d":0.25}`, `{"d":0.5}`, `{"d":0.75}`, `{"d":1.0}`}},
		{"log grid", "hyperparameters: {lr: {type: log, minval: -3, maxval: -1, count: 3}}\n",
			[]string{`{"lr":0.001}`, `{"lr":0.01}`, `{"lr":0.1}`}},
		{"log grid base 2", "hyperparameters: {bs: {type: log, minval: 4, maxval: 6, base: 2, count: 3}}\n",
			[]string{`{"bs":16.0}`, `{"bs":32.0}`, `{"bs":64.0}`}},
		{"max_trials caps the grid", "hyperparameters: {n: {type: int, minval: 1, maxval: 100, count: 100}}\nsearcher: {max_trials: 2}\n",
			[]string{`{"n":1}`, `{"n":2}`}},
		{"max_trials above the grid", "hyperparameters: {n: {type: int, minval: 1, maxval: 2, count: 2}}\nsearcher: {max_trials: 50}\n",
			[]string{`{"n":1}`, `{"n":2}`}},
		{"a huge grid capped by max_trials", "hyperparameters:\n" +
			"  a: {type: int, minval: 0, maxval: 100000, count: 10000}\n" +
			"  b: {type: int, minval: 0, maxval: 100000, count: 10000}\n" +
			"  c: {type: int, minval: 0, maxval: 100000, count: 10000}\nsearcher: {max_trials: 3}\n",
			[]string{`{"a":0,"b":0,"c":0}`, `{"a":0,"b":0,"c":10}`, `{"a":0,"b":0,"c":20}`}},
		{"floats stay floats", "hyperparameters: {a: 1.0, b: 1, c: [1.5e3, 2e-7]}\n", []string{`{"a":1.0,"b":1,"c":[1500.0,2e-07]}`}},
		{"keys are escaped", "hyperparameters: {\"a\\\"<b>\": 1}\n", []string{`{"a\"<b>":1}`}},
		{"null, bool and date constants", "hyperparameters: {a: ~, b: false, c: 2024-01-02}\n", []string{`{"a":null,"b":false,"c":"2024-01-02"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := mustParse(t, head+tt.src)
			got := hparams(t, j)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("trials:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if j.Searcher.MaxTrials != len(got) || j.Searcher.MaxConcurrentTrials != len(got) {
				t.Errorf("searcher = %+v, want max_trials and max_concurrent_trials %d", j.Searcher, len(got))
			}
		})
	}
}

func TestGridCounts(t *testing.T) {
	// 3 x 4 x 5 = 60 distinct trials.
	j := mustParse(t, head+`hyperparameters:
  a: {type: categorical, vals: [1, 2, 3]}
  b: {type: int, minval: 1, maxval: 4, count: 4}
  c: {type: double, minval: 0, maxval: 1, count: 5}
  d: fixed
`)
	got := hparams(t, j)
	seen := map[string]bool{}
	for _, h := range got {
		seen[h] = true
	}
	if len(got) != 60 || len(seen) != 60 {
		t.Fatalf("%d trials, %d distinct; want 60", len(got), len(seen))
	}
}

const randomSrc = head + `hyperparameters:
  lr: {type: log, minval: -5, maxval: -1}
  dropout: {type: double, minval: 0.0, maxval: 0.5}
  layers: {type: int, minval: 1, maxval: 8}
  optimizer: {type: categorical, vals: [sgd, adam, adamw]}
  epochs: 10
searcher: {name: random, max_trials: 20, seed: 7}
`

func TestRandom(t *testing.T) {
	first := hparams(t, mustParse(t, randomSrc))
	if len(first) != 20 {
		t.Fatalf("%d trials, want 20", len(first))
	}
	t.Run("same seed same trials", func(t *testing.T) {
		if again := hparams(t, mustParse(t, randomSrc)); !reflect.DeepEqual(first, again) {
			t.Errorf("a second parse gave other trials")
		}
	})
	t.Run("other seed other trials", func(t *testing.T) {
		other := hparams(t, mustParse(t, strings.Replace(randomSrc, "seed: 7", "seed: 8", 1)))
		if reflect.DeepEqual(first, other) {
			t.Errorf("seeds 7 and 8 gave the same trials")
		}
	})
	t.Run("values in range", func(t *testing.T) {
		optimizers := map[string]int{}
		for _, h := range first {
			var v struct {
				LR, Dropout float64
				Layers      int
				Optimizer   string
				Epochs      int
			}
			if err := json.Unmarshal([]byte(h), &v); err != nil {
				t.Fatal(err)
			}
			if v.LR < 1e-5 || v.LR > 0.1 || v.Dropout < 0 || v.Dropout > 0.5 || v.Layers < 1 || v.Layers > 8 || v.Epochs != 10 {
				t.Errorf("out of range: %s", h)
			}
			optimizers[v.Optimizer]++
		}
		if len(optimizers) != 3 {
			t.Errorf("20 draws from 3 optimizers gave %v", optimizers)
		}
	})
	t.Run("golden", func(t *testing.T) {
		// The sampler uses only PCG's specified output, so these values
		// must not change between Go releases.
		want := `{"dropout":0.2415878287196876,"epochs":10,"layers":1,"lr":0.001599068200663021,"optimizer":"sgd"}`
		if first[0] != want {
			t.Errorf("first trial = %s, want %s", first[0], want)
		}
	})
	t.Run("count is ignored", func(t *testing.T) {
		withCount := strings.Replace(randomSrc, "maxval: 8}", "maxval: 8, count: 2}", 1)
		if got := hparams(t, mustParse(t, withCount)); !reflect.DeepEqual(got, first) {
			t.Errorf("count changed random trials")
		}
	})
	t.Run("default seed is 0", func(t *testing.T) {
		noSeed := mustParse(t, strings.Replace(randomSrc, ", seed: 7", "", 1))
		zero := mustParse(t, strings.Replace(randomSrc, "seed: 7", "seed: 0", 1))
		if !reflect.DeepEqual(hparams(t, noSeed), hparams(t, zero)) || noSeed.Searcher.Seed != 0 {
			t.Errorf("no seed differs from seed 0")
		}
	})
}

// TestJSONRoundTrip checks that json.Marshal of a parsed Job is a spec
// that ParseJSON turns back into an equal Job with the same tasks.
func TestJSONRoundTrip(t *testing.T) {
	srcs := map[string]string{
		"minimal": `{name: hello, entrypoint: "echo hi", resources: {slots: 2}}`,
		"random":  randomSrc,
		"full": head + `kind: experiment
project: p
pool: q
description: "<b>&</b> \u00e9"
environment: {A: "1", B: "two words"}
resources: {slots: 0, priority: 65, weight: 0.25, max_slots: 3, time_limit: 2h}
hyperparameters:
  a: {type: double, minval: -1, maxval: 1.5, count: 3}
  b: {type: log, minval: 0, maxval: 3, base: 2, count: 4}
  c: {type: const, val: {x: [1, 2.0, "3", null, true]}}
  d: {type: categorical, vals: [{k: v}, [1], 2.5]}
searcher: {name: grid, max_trials: 7, max_concurrent_trials: 2, seed: 99}
`,
	}
	for name, src := range srcs {
		t.Run(name, func(t *testing.T) {
			j := mustParse(t, src)
			data, err := json.Marshal(j)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseJSON("spec.json", data)
			if err != nil {
				t.Fatalf("ParseJSON of %s: %v", data, err)
			}
			if !reflect.DeepEqual(j, back) {
				t.Errorf("round trip changed the job:\n%+v\n%+v", j, back)
			}
			if !reflect.DeepEqual(hparams(t, j), hparams(t, back)) {
				t.Errorf("round trip changed the trials")
			}
			// Plain encoding/json reads it back too, for storage.
			var plain Job
			if err := json.Unmarshal(data, &plain); err != nil || !reflect.DeepEqual(hparams(t, j), hparams(t, &plain)) {
				t.Errorf("json.Unmarshal: %v, or other trials", err)
			}
		})
	}
}

func TestParseJSONGood(t *testing.T) {
	j, err := ParseJSON("body", []byte(`{"name": "hello", "entrypoint": "echo hi", "resources": {"slots": 2, "time_limit": "1m"},
		"environment": {"X": "1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := &Job{Name: "hello", Kind: KindCommand, Entrypoint: "echo hi", Environment: map[string]string{"X": "1"},
		Resources: Resources{Slots: 2, Priority: 42, PriorityClass: ClassNormal, Weight: 1, TimeLimit: 60}}
	if !reflect.DeepEqual(j, want) {
		t.Errorf("got %+v, want %+v", j, want)
	}
}

func TestTasksOfHandBuiltJobs(t *testing.T) {
	for _, tt := range []struct {
		name string
		job  Job
		want string
	}{
		{"experiment without searcher", Job{Name: "x", Kind: KindExperiment}, "has no searcher"},
		{"grid without count", Job{Kind: KindExperiment, Searcher: &Searcher{Name: SearchGrid},
			Hyperparameters: map[string]Hyperparameter{"a": {Type: HPDouble, Minval: 0, Maxval: 1}}}, "hyperparameters.a: grid search needs count"},
		{"bad type", Job{Kind: KindExperiment, Searcher: &Searcher{Name: SearchGrid},
			Hyperparameters: map[string]Hyperparameter{"a": {Type: "float"}}}, `unknown type "float"`},
		{"random without trials", Job{Kind: KindExperiment, Searcher: &Searcher{Name: SearchRandom}}, "random search needs max_trials"},
		{"unknown searcher", Job{Kind: KindExperiment, Searcher: &Searcher{Name: "bayes"}}, `unknown searcher "bayes"`},
		{"empty categorical", Job{Kind: KindExperiment, Searcher: &Searcher{Name: SearchGrid},
			Hyperparameters: map[string]Hyperparameter{"a": {Type: HPCategorical}}}, "vals is empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.job.Tasks()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Tasks() error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.yaml")
	if err := os.WriteFile(path, []byte("name: a\nentrypoint: b\nresources: {slots: -1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.HasPrefix(err.Error(), path+":3: resources.slots") {
		t.Errorf("Load error = %v, want one naming %s:3", err, path)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}

// TestDocExamples parses every yaml block of docs/jobfile.md, so that the
// reference cannot drift from the parser.
func TestDocExamples(t *testing.T) {
	data, err := os.ReadFile("../docs/jobfile.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(data, -1)
	if len(blocks) < 5 {
		t.Fatalf("found %d yaml examples in docs/jobfile.md", len(blocks))
	}
	for i, b := range blocks {
		if _, err := Parse("docs example", b[1]); err != nil {
			t.Errorf("example %d does not parse: %v\n%s", i+1, err, b[1])
		}
	}
}

// TestAdaptiveSearchers checks the defaults of asha and adaptive_asha and
// that their trials sample like random search.
func TestAdaptiveSearchers(t *testing.T) {
	base := "name: a\nentrypoint: x\nhyperparameters:\n  lr: {type: log, minval: -4, maxval: -1}\nsearcher:\n"
	cases := []struct {
		name string
		src  string
		want Searcher
	}{
		{"asha defaults", base + "  {name: asha, metric: loss, max_length: 64, max_trials: 8}\n",
			Searcher{Name: SearchASHA, MaxTrials: 8, MaxConcurrentTrials: 8, Metric: "loss", SmallerIsBetter: ptr(true),
				MaxLength: 64, Divisor: 4, NumRungs: 4, Brackets: 1}},
		{"adaptive defaults", base + "  {name: adaptive_asha, metric: acc, smaller_is_better: false, max_length: 81, divisor: 3, max_trials: 9, max_concurrent_trials: 3, seed: 7}\n",
			Searcher{Name: SearchAdaptiveASHA, MaxTrials: 9, MaxConcurrentTrials: 3, Seed: 7, Metric: "acc", SmallerIsBetter: ptr(false),
				MaxLength: 81, Divisor: 3, NumRungs: 4, Brackets: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := mustParse(t, c.src)
			if !reflect.DeepEqual(*j.Searcher, c.want) {
				t.Fatalf("searcher %+v, want %+v", *j.Searcher, c.want)
			}
			data, err := json.Marshal(j)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseJSON("round trip", data)
			if err != nil || !reflect.DeepEqual(back.Searcher, j.Searcher) {
				t.Fatalf("JSON round trip: %v\n%s", err, data)
			}
			if got := hparams(t, j); len(got) != c.want.MaxTrials {
				t.Fatalf("%d trials, want %d", len(got), c.want.MaxTrials)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
