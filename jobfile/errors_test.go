package jobfile

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/yamlfield/fieldtest"
)

// head is a valid start of a job file; a key added after it is on line 3.
const head = "name: j\nentrypoint: train\n"

// errorCase is one bad input and what its first error must say.
type errorCase struct {
	name string
	src  string
	line int    // of the first error; 0 for whole-file errors
	want string // substring of the first error, which starts "bad.yaml:LINE: "
}

func runErrorCases(t *testing.T, parse func(string, []byte) (*Job, error), tests []errorCase) {
	t.Helper()
	fieldtest.Run(t, parse, fieldCases(tests))
}

func fieldCases(tests []errorCase) []fieldtest.Case {
	out := make([]fieldtest.Case, len(tests))
	for i, tc := range tests {
		out[i] = fieldtest.Case{Name: tc.name, Src: tc.src, Line: tc.line, Want: tc.want}
	}
	return out
}

func TestParseErrorsFile(t *testing.T) {
	runErrorCases(t, Parse, []errorCase{
		{"empty file", "", 0, "bad.yaml: empty file"},
		{"only comments", "# nothing\n", 0, "empty file"},
		{"null document", "~\n", 0, "empty file"},
		{"broken yaml", "name: a\n  entrypoint: b\n", 2, "invalid YAML: mapping values are not allowed in this context"},
		{"unterminated flow", "{name: a\n", 1, "invalid JSON or YAML: did not find expected ',' or '}': the file ends before what starts on this line is complete"},
		{"broken json", "{\n  \"name\": \"a\",\n  \"entrypoint\": \"b\"\n  \"pool\": \"c\"\n}\n", 4, "invalid JSON or YAML: did not find expected ',' or '}'"},
		{"tab indentation", "resources:\n\tslots: 1\n", 2, "invalid YAML: found character that cannot start any token: the line is indented with a tab"},
		{"unknown anchor", "name: *nope\n", 0, "invalid YAML: unknown anchor 'nope' referenced"},
		{"two documents", head + "---\nname: k\n", 3, "a second YAML document starts here"},
		{"root is a list", "- name\n", 1, "expected a mapping, got a list"},
		{"root is a scalar", "hello\n", 1, `expected a mapping, got "hello"`},
		{"unknown field with suggestion", head + "entrypont: x\n", 3, `unknown field "entrypont"; did you mean "entrypoint"?`},
		{"unknown field without suggestion", head + "zzz: 1\n", 3, `unknown field "zzz" (known fields: name, kind, description, project, pool, entrypoint, environment, resources, hyperparameters, searcher, pod_spec)`},
		{"duplicate key", head + "name: k\n", 3, `duplicate key "name" (first at line 1)`},
		{"null key", head + "~: 1\n", 3, "expected a field name, got null"},
		{"list as key", head + "? [a]\n: 1\n", 3, "expected a field name, got a list"},
		// Another kind of file is named once, for what it looks like, as
		// allot config check and allot sim name it (trial 2026-11-29g G5).
		// At the key's line, not its first item's (trial 2026-11-29h H4).
		{"a scenario", "pools:\n  - {name: p, policy: fifo, nodes: [{name: n, slots: 4}]}\njobs:\n  # one job\n  - {name: a, slots: 1, duration: 1h}\n", 3,
			`jobs: this looks like a scenario file (it has jobs), which allot sim reads; allot submit reads a job file`},
		{"the master's configuration", "pools:\n  - {name: p, policy: fifo}\nusers:\n  - {name: ana}\n", 3,
			`users: this looks like the master's configuration file (it has users), which allot master --config reads and allot config check checks; allot submit reads a job file`},
		// A job file with a stray key of another kind is still a job
		// file, with an unknown field (trial 2026-11-29h H4).
		{"stray scenario key", head + "jobs: 3\n", 3, `unknown field "jobs" (known fields: name,`},
		{"stray config key", head + "default_qos: high\n", 3, `unknown field "default_qos" (known fields: name,`},
	})
}

// TestOtherKindOneError: a file of another kind gets that one error, not
// also the job file's missing name and entrypoint and unknown fields.
func TestOtherKindOneError(t *testing.T) {
	for name, src := range map[string]string{
		"scenario": "pools:\n  - {name: p, policy: fifo, nodes: [{name: n, slots: 4}]}\njobs:\n  - {name: a, slots: 1, duration: 1h}\n",
		"config":   "pools:\n  - {name: p, policy: fifo}\ndefault_pool: p\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("bad.yaml", []byte(src))
			if err == nil || strings.Count(err.Error(), "\n") > 0 || !strings.Contains(err.Error(), "this looks like") {
				t.Errorf("Parse = %v, want one error saying what the file looks like", err)
			}
		})
	}
}

func TestParseErrorsTop(t *testing.T) {
	runErrorCases(t, Parse, []errorCase{
		{"no name", "entrypoint: x\n", 1, `missing required field "name"`},
		{"no entrypoint", "name: x\n", 1, `missing required field "entrypoint"`},
		{"empty name", "name: ''\nentrypoint: x\n", 1, `name: expected a non-empty name, got ""`},
		{"name is a bool", "name: true\nentrypoint: x\n", 1, "name: expected a string, got true"},
		{"name is a list", "name: [a]\nentrypoint: x\n", 1, "name: expected a string, got a list"},
		{"entrypoint is a bool", "name: a\nentrypoint: true\n", 2, `entrypoint: expected a shell command line as a string, got true, which YAML reads as a boolean: quote it (entrypoint: "true")`},
		{"entrypoint is a number", "name: a\nentrypoint: 42\n", 2, `entrypoint: expected a shell command line as a string, got 42, which YAML reads as a number: quote it (entrypoint: "42")`},
		{"name too long", "name: " + strings.Repeat("n", 129) + "\nentrypoint: x\n", 1, "name: expected a name of at most 128 bytes"},
		{"name with spaces around", "name: ' a'\nentrypoint: x\n", 1, "without leading or trailing spaces"},
		{"name with control character", "name: \"a\\tb\"\nentrypoint: x\n", 1, "without control characters"},
		{"blank entrypoint", "name: a\nentrypoint: '  '\n", 2, `entrypoint: expected a shell command line, got "  "`},
		{"entrypoint is a list", "name: a\nentrypoint: [python, train.py]\n", 2, "entrypoint: expected a string, got a list"},
		{"entrypoint with NUL", "name: a\nentrypoint: \"a\\0b\"\n", 2, "without NUL bytes"},
		{"unknown kind", head + "kind: notbook\n", 3, `kind: unknown kind "notbook"; did you mean "notebook"?`},
		{"kind wrong type", head + "kind: 3\n", 3, "kind: expected one of command, notebook, shell, tensorboard, experiment, got 3"},
		{"project empty", head + "project: ''\n", 3, "project: expected a non-empty name"},
		{"pool is a mapping", head + "pool: {a: b}\n", 3, "pool: expected a string, got a mapping"},
		{"description too long", head + "description: " + strings.Repeat("d", 4097) + "\n", 3, "description: expected at most 4096 bytes, got 4097"},
		{"hyperparameters on a command", head + "kind: command\nhyperparameters: {lr: 0.1}\n", 4,
			"hyperparameters: only experiments take hyperparameters, and this job's kind is command"},
		{"searcher on a notebook", head + "kind: notebook\nsearcher: {name: grid}\n", 4,
			"searcher: only experiments take searcher, and this job's kind is notebook"},
	})
}

func TestParseErrorsEnvironment(t *testing.T) {
	runErrorCases(t, Parse, []errorCase{
		{"environment is a list", head + "environment: [A=1]\n", 3, "environment: expected a mapping, got a list"},
		{"bad variable name", head + "environment:\n  1X: a\n", 4, "environment.1X: expected a variable name"},
		{"variable name with a dash", head + "environment:\n  A-B: a\n", 4, "environment.A-B: expected a variable name"},
		{"reserved ALLOT_ name", head + "environment:\n  ALLOT_JOB_ID: x\n", 4, "environment.ALLOT_JOB_ID: the agent sets ALLOT_JOB_ID itself"},
		{"reserved CUDA_VISIBLE_DEVICES", head + "environment: {CUDA_VISIBLE_DEVICES: '0'}\n", 3, "the agent sets CUDA_VISIBLE_DEVICES itself"},
		{"null value", head + "environment:\n  A:\n", 4, `environment.A: expected a string, got null (write "" for an empty value)`},
		{"mapping value", head + "environment:\n  A: {b: c}\n", 4, "environment.A: expected a string, got a mapping"},
		{"duplicate variable", head + "environment:\n  A: x\n  A: y\n", 5, `environment: duplicate key "A" (first at line 4)`},
		{"too large", head + "environment:\n  A: " + strings.Repeat("x", 40000) + "\n  B: " + strings.Repeat("x", 40000) +
			"\n  C: " + strings.Repeat("x", 40000) + "\n  D: " + strings.Repeat("x", 40000) + "\n  E: " + strings.Repeat("x", 40000) +
			"\n  F: " + strings.Repeat("x", 40000) + "\n  G: " + strings.Repeat("x", 40000) + "\n", 4, "more than the limit of 262144"},
	})
}

func TestParseErrorsResources(t *testing.T) {
	runErrorCases(t, Parse, []errorCase{
		{"negative slots", "name: j\nentrypoint: x\nresources:\n  slots: -2\n", 4, "bad.yaml:4: resources.slots: expected an integer >= 0, got -2"},
		{"slots as a string", head + "resources: {slots: '8'}\n", 3, `resources.slots: expected an integer >= 0, got "8"`},
		{"slots as a float", head + "resources: {slots: 1.5}\n", 3, "resources.slots: expected an integer >= 0, got 1.5"},
		{"slots beyond int64", head + "resources: {slots: 99999999999999999999}\n", 3, "resources.slots: expected an integer >= 0, got 99999999999999999999"},
		{"resources is a list", head + "resources: [1]\n", 3, "resources: expected a mapping, got a list"},
		{"Slurm's gpus", head + "resources:\n  gpus: 2\n", 4, `resources: unknown field "gpus"; the GPUs a task asks for are slots (slots: 2); gpu names their type (gpu: h100)`},
		{"unknown resources field", head + "resources:\n  gpux: 2\n", 4, `resources: unknown field "gpux"; did you mean "gpu"?`},
		{"unknown resources field without suggestion", head + "resources:\n  zzz: 2\n", 4, `resources: unknown field "zzz" (known fields: slots, priority, priority_class, weight, max_slots, preemptible, time_limit, min_slots, gpu, topology, licenses, qos, nice, checkpoint_every, on_preempt, max_retries)`},
		{"typo in resources field", head + "resources:\n  slot: 2\n", 4, `unknown field "slot"; did you mean "slots"?`},
		{"priority zero", head + "resources: {priority: 0}\n", 3, "resources.priority: expected an integer from 1 to 99, got 0"},
		{"priority 100", head + "resources: {priority: 100}\n", 3, "expected an integer from 1 to 99, got 100"},
		{"unknown class", head + "resources: {priority_class: MEDIUM}\n", 3, `resources.priority_class: unknown priority class "MEDIUM" (expected one of HIGH, NORMAL, LOW)`},
		{"class typo", head + "resources: {priority_class: HIHG}\n", 3, `unknown priority class "HIHG"; did you mean "HIGH"?`},
		{"class wrong type", head + "resources: {priority_class: 1}\n", 3, "expected one of HIGH, NORMAL, LOW, got 1"},
		{"class and priority disagree", head + "resources:\n  priority: 42\n  priority_class: LOW\n", 5,
			"resources.priority_class: LOW covers priorities 60-99, but priority is 42 (give one or the other)"},
		{"weight zero", head + "resources: {weight: 0}\n", 3, "resources.weight: expected a number > 0, got 0"},
		{"weight nan", head + "resources: {weight: .nan}\n", 3, "resources.weight: expected a number > 0, got .nan"},
		{"weight infinite", head + "resources: {weight: .inf}\n", 3, "expected a number > 0, got .inf"},
		{"max_slots zero", head + "resources: {max_slots: 0}\n", 3, "resources.max_slots: expected an integer >= 1, got 0"},
		{"max_slots below slots", head + "resources:\n  slots: 4\n  max_slots: 2\n", 5, "resources.max_slots: max_slots 2 is less than the 4 slots of one task"},
		{"preemptible yes", head + "resources: {preemptible: yes}\n", 3, `resources.preemptible: expected true or false, got "yes"`},
		{"LOW not preemptible", head + "resources:\n  priority_class: LOW\n  preemptible: false\n", 5,
			"resources.preemptible: LOW-class work (priority 60-99) is always preemptible"},
		{"low priority number not preemptible", head + "resources: {priority: 70, preemptible: false}\n", 3, "always preemptible"},
		{"time_limit zero", head + "resources: {time_limit: 0}\n", 3, "resources.time_limit: expected a duration > 0, got 0"},
		{"time_limit negative", head + "resources: {time_limit: -5s}\n", 3, `expected a duration > 0, got "-5s"`},
		{"time_limit fractional", head + "resources: {time_limit: 1.5}\n", 3, "expected a whole number of seconds, got 1.5"},
		{"time_limit sub-second", head + "resources: {time_limit: 1500ms}\n", 3, `expected a whole number of seconds, got "1500ms"`},
		{"time_limit garbage", head + "resources: {time_limit: soon}\n", 3, `expected a duration (whole seconds like 90, or a string like 90s, 1h30m, 2d or 1:30:00), got "soon"`},
		{"time_limit too long", head + "resources: {time_limit: 1e30}\n", 3, "is too long"},
		{"time_limit Slurm minutes out of range", head + "resources:\n  time_limit: 1:75:00\n", 4, `resources.time_limit: expected minutes from 0 to 59 in H:MM:SS, got "1:75:00"`},
		{"merge of a scalar", head + "resources: {<<: 3}\n", 3, "resources.<<: expected a mapping or a list of mappings to merge, got 3"},
	})
}

func TestParseErrorsExperiment(t *testing.T) {
	hp := head + "hyperparameters:\n"
	runErrorCases(t, Parse, []errorCase{
		{"hyperparameters is a list", head + "hyperparameters: [a]\n", 3, "hyperparameters: expected a mapping, got a list"},
		{"mapping without type", hp + "  opt: {name: adam}\n", 4,
			"hyperparameters.opt: expected a value, or a mapping with type (one of const, categorical, int, double, log)"},
		{"unknown type", hp + "  lr: {type: float, minval: 0, maxval: 1}\n", 4, `hyperparameters.lr.type: unknown hyperparameter type "float"`},
		{"type typo", hp + "  lr: {type: dobule, minval: 0, maxval: 1}\n", 4, `did you mean "double"?`},
		{"const without val", hp + "  a: {type: const}\n", 4, `hyperparameters.a: missing required field "val"`},
		{"const with vals", hp + "  a: {type: const, val: 1, vals: [1]}\n", 4, `hyperparameters.a: unknown field "vals"; did you mean "val"?`},
		{"categorical empty", hp + "  a: {type: categorical, vals: []}\n", 4, "hyperparameters.a.vals: expected a non-empty list of values, got a list"},
		{"categorical scalar", hp + "  a: {type: categorical, vals: 3}\n", 4, "expected a non-empty list of values, got 3"},
		{"categorical NaN", hp + "  a:\n    type: categorical\n    vals: [1, .nan]\n", 6, "hyperparameters.a.vals[1]: expected a finite number (JSON has no NaN or infinity), got .nan"},
		{"int without maxval", hp + "  n: {type: int, minval: 1, count: 2}\n", 4, `hyperparameters.n: missing required field "maxval"`},
		{"int float bound", hp + "  n: {type: int, minval: 1.5, maxval: 3, count: 2}\n", 4, "hyperparameters.n.minval: expected an integer from -9007199254740992 to 9007199254740992, got 1.5"},
		{"int huge bound", hp + "  n: {type: int, minval: 1, maxval: 9007199254740993, count: 2}\n", 4, "maxval: expected an integer from"},
		{"int inverted", hp + "  n:\n    type: int\n    minval: 5\n    maxval: 1\n    count: 2\n", 7, "hyperparameters.n.maxval: expected maxval > minval (5), got 1"},
		{"double equal bounds", hp + "  d: {type: double, minval: 0.5, maxval: 0.5, count: 2}\n", 4, "expected maxval > minval (0.5), got 0.5"},
		{"double too wide", hp + "  d: {type: double, minval: -1e308, maxval: 1e308, count: 2}\n", 4, "too wide for a float64"},
		{"double string bound", hp + "  d: {type: double, minval: '0', maxval: 1, count: 2}\n", 4, `hyperparameters.d.minval: expected a finite number, got "0"`},
		{"count zero", hp + "  d: {type: double, minval: 0, maxval: 1, count: 0}\n", 4, "hyperparameters.d.count: expected an integer from 1 to 10000, got 0"},
		{"count on categorical", hp + "  a: {type: categorical, vals: [1], count: 1}\n", 4, `hyperparameters.a: unknown field "count"`},
		{"log base one", hp + "  l: {type: log, minval: 1, maxval: 2, base: 1, count: 2}\n", 4, "hyperparameters.l.base: expected a base > 0 other than 1, got 1"},
		{"log base negative", hp + "  l: {type: log, minval: 1, maxval: 2, base: -2, count: 2}\n", 4, "hyperparameters.l.base: expected a number > 0, got -2"},
		{"log overflow", hp + "  l: {type: log, minval: 1, maxval: 400, count: 2}\n", 4, "10.0 ** 400.0 is outside the range of a float64"},
		{"grid needs count", hp + "  lr: {type: double, minval: 0, maxval: 1}\n", 4,
			"hyperparameters.lr: grid search needs count, the number of grid points of this double hyperparameter"},
		{"grid too large", hp + "  a: {type: int, minval: 0, maxval: 1000, count: 200}\n  b: {type: int, minval: 0, maxval: 1000, count: 200}\n", 3,
			"hyperparameters: the grid has 40000 points, more than the limit of 10000 trials"},
		{"const NaN", hp + "  a: .nan\n", 4, "hyperparameters.a: expected a finite number"},
		{"const binary", hp + "  a: !!binary aGVsbG8=\n", 4, "hyperparameters.a: expected a string, number, boolean, null, list or mapping, got !!binary"},
		{"const huge int", hp + "  a: !!int 999999999999999999999\n", 4, "integer !!int 999999999999999999999 is out of range (beyond 64 bits)"},
		{"const too large", hp + "  a: " + strings.Repeat("x", 70000) + "\n", 4, "the value is larger than 65536 bytes as JSON"},
		{"const self alias", hp + "  a: &x [*x]\n", 4, "hyperparameters.a: the value nests deeper than 64 levels"},
		{"const duplicate key", hp + "  a: {type: const, val: {k: 1, k: 2}}\n", 4, `hyperparameters.a.val: duplicate key "k"`},
		{"trial too large", hp + "  a: " + strings.Repeat("x", 40000) + "\n  b: " + strings.Repeat("y", 40000) + "\n", 3,
			"hyperparameters: one trial's hyperparameters may take 80016 bytes as JSON, more than the limit of 65536"},
		{"expansion too large", hp + "  a: " + strings.Repeat("x", 10000) + "\n  n: {type: int, minval: 1, maxval: 10000, count: 10000}\n", 3,
			"hyperparameters: 10000 trials of up to 10019 bytes of hyperparameters each exceed the limit of 67108864 bytes in all"},
		{"searcher is a scalar", head + "searcher: grid\n", 3, `searcher: expected a mapping, got "grid"`},
		{"unknown searcher", head + "searcher: {name: bayes}\n", 3, `searcher.name: unknown searcher "bayes" (expected one of grid, random, asha, adaptive_asha)`},
		{"searcher typo", head + "searcher: {name: randm, max_trials: 2}\n", 3, `did you mean "random"?`},
		{"random without max_trials", head + "searcher:\n  name: random\n", 3, "searcher: random search needs max_trials (1 to 10000)"},
		{"max_trials zero", head + "searcher: {name: random, max_trials: 0}\n", 3, "searcher.max_trials: expected an integer from 1 to 10000, got 0"},
		{"max_trials huge", head + "searcher: {name: random, max_trials: 10001}\n", 3, "expected an integer from 1 to 10000, got 10001"},
		{"max_concurrent zero", head + "searcher: {max_concurrent_trials: 0}\n", 3, "searcher.max_concurrent_trials: expected an integer >= 1, got 0"},
		{"negative seed", head + "searcher: {name: random, max_trials: 2, seed: -1}\n", 3, "searcher.seed: expected an integer >= 0, got -1"},
		{"metric on grid", head + "searcher: {name: grid, metric: loss}\n", 3, `searcher.metric: only the asha and adaptive_asha searchers take metric, and this one is grid`},
		{"unknown searcher field", head + "searcher: {name: grid, metrc: loss}\n", 3, `searcher: unknown field "metrc"`},
		{"asha without metric", head + "searcher: {name: asha, max_trials: 4, max_length: 64}\n", 3, `searcher: missing required field "metric"`},
		{"asha without max_length", head + "searcher: {name: asha, max_trials: 4, metric: loss}\n", 3, `searcher: missing required field "max_length"`},
		{"asha without max_trials", head + "searcher: {name: asha, metric: loss, max_length: 64}\n", 3, "searcher: asha search needs max_trials (1 to 10000)"},
		{"asha with brackets", head + "searcher: {name: asha, max_trials: 4, metric: loss, max_length: 64, brackets: 2}\n", 3,
			"searcher.brackets: only adaptive_asha runs several brackets"},
		{"asha divisor one", head + "searcher: {name: asha, max_trials: 4, metric: loss, max_length: 64, divisor: 1}\n", 3,
			"bad.yaml:3: searcher.divisor: 1, expected a number > 1"},
		{"asha too short", head + "searcher: {name: asha, max_trials: 4, metric: loss, max_length: 8}\n", 3,
			"bad.yaml:3: searcher.max_length: 8 steps are too few for 4 rungs with divisor 4"},
		{"adaptive too many brackets", head + "searcher: {name: adaptive_asha, max_trials: 4, metric: loss, max_length: 64, brackets: 5}\n", 3,
			"bad.yaml:3: searcher.brackets: 5, expected 1 to num_rungs (4)"},
		{"hyperparameter name with dot", hp + "  a.b: {type: int, minval: 1, maxval: 2}\n", 4, `hyperparameters."a.b": grid search needs count`},
	})
}

// TestParseErrorsSeveral checks that independent mistakes are all
// reported, in line order, with one *Error each.
func TestParseErrorsSeveral(t *testing.T) {
	src := "name: j\nentrypoint: x\nresources:\n  slots: -1\n  weight: 0\nkind: nope\n"
	_, err := Parse("bad.yaml", []byte(src))
	want := "bad.yaml:4: resources.slots: expected an integer >= 0, got -1\n" +
		"bad.yaml:5: resources.weight: expected a number > 0, got 0\n" +
		`bad.yaml:6: kind: unknown kind "nope" (expected one of command, notebook, shell, tensorboard, experiment)`
	if err == nil || err.Error() != want {
		t.Fatalf("error:\n%v\nwant:\n%s", err, want)
	}
	var many strings.Builder
	many.WriteString(head + "environment:\n")
	for i := range 30 {
		many.WriteString("  " + strings.Repeat("A", i+1) + ": ~\n")
	}
	_, err = Parse("bad.yaml", []byte(many.String()))
	if err == nil || !strings.HasSuffix(err.Error(), "bad.yaml: 20 more errors not shown") {
		t.Fatalf("error does not end with the count of hidden errors:\n%v", err)
	}
}

// TestUnknownSearcherOneError: a searcher name refused is the one
// error, not followed by the ASHA fields under it as unknown ones.
func TestUnknownSearcherOneError(t *testing.T) {
	for _, tc := range []struct{ name, searcher, want string }{
		{"asha fields under an unknown name", "searcher:\n  name: hyperband\n  max_trials: 4\n  metric: loss\n  max_length: 81\n  divisor: 3\n  num_rungs: 4\n  brackets: 2\n  smaller_is_better: true\n",
			`bad.yaml:4: searcher.name: unknown searcher "hyperband" (expected one of grid, random, asha, adaptive_asha)`},
		{"a real unknown field still reported", "searcher:\n  name: hyperband\n  metrc: loss\n",
			"bad.yaml:4: searcher.name: unknown searcher \"hyperband\" (expected one of grid, random, asha, adaptive_asha)\n" +
				`bad.yaml:5: searcher: unknown field "metrc"; did you mean "metric"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("bad.yaml", []byte(head+tc.searcher))
			if err == nil || err.Error() != tc.want {
				t.Errorf("error:\n%v\nwant:\n%s", err, tc.want)
			}
		})
	}
}

func TestParseJSONErrors(t *testing.T) {
	runErrorCases(t, ParseJSON, []errorCase{
		{"empty body", "", 0, "bad.yaml: empty document"},
		{"blank body", " \n ", 0, "empty document"},
		{"null", "null", 1, "expected a JSON object with at least name and entrypoint, got null"},
		{"syntax error", "{\n\"name\": \"a\",\n\"entrypoint\": }\n", 3, "invalid JSON: invalid character '}' looking for beginning of value"},
		{"trailing data", `{"name": "a", "entrypoint": "b"} {}`, 1, "invalid JSON: invalid character '{' after top-level value"},
		{"truncated", `{"name": "a"`, 1, "invalid JSON: unexpected end of JSON input"},
		{"array body", "[1]", 1, "expected a mapping, got a list"},
		{"unknown field", "{\n  \"name\": \"a\",\n  \"entrypoint\": \"b\",\n  \"slots\": 2\n}", 4, `unknown field "slots"; did you mean "resources.slots"?`},
		{"unknown field without suggestion", "{\n  \"name\": \"a\",\n  \"entrypoint\": \"b\",\n  \"zzz\": 2\n}", 4, `unknown field "zzz" (known fields:`},
		{"negative slots", "{\"name\": \"a\", \"entrypoint\": \"b\",\n \"resources\": {\n  \"slots\": -2}}", 3, "bad.yaml:3: resources.slots: expected an integer >= 0, got -2"},
		{"slots as a string", `{"name": "a", "entrypoint": "b", "resources": {"slots": "2"}}`, 1, `resources.slots: expected an integer >= 0, got "2"`},
		{"slots as a float", `{"name": "a", "entrypoint": "b", "resources": {"slots": 2.0}}`, 1, "resources.slots: expected an integer >= 0, got 2.0"},
		{"duplicate key", "{\"name\": \"a\",\n\"name\": \"b\", \"entrypoint\": \"c\"}", 2, `duplicate key "name" (first at line 1)`},
		{"time_limit as a string", `{"name": "a", "entrypoint": "b", "resources": {"time_limit": "9x"}}`, 1, `got "9x"`},
		{"huge number", `{"name": "a", "entrypoint": "b", "hyperparameters": {"x": 1e999}}`, 1, "hyperparameters.x: expected a finite number"},
		{"unknown field in hyperparameter", "{\"name\": \"a\", \"entrypoint\": \"b\", \"hyperparameters\": {\"x\": {\"type\": \"int\", \"minval\": 1,\n\"maxval\": 2, \"min\": 1}}}", 2, `hyperparameters.x: unknown field "min" (known fields: type, minval, maxval, count)`},
		{"missing name", `{"entrypoint": "b"}`, 1, `missing required field "name"`},
		{"yaml is not json", "name: a\nentrypoint: b\n", 1, "invalid JSON"},
	})
}

// TestParseErrorsMisplacedResources: a field of resources written at the
// top level, or a likely typo of one, is answered with where it belongs,
// not with the list of top-level fields.
func TestParseErrorsMisplacedResources(t *testing.T) {
	tests := []errorCase{
		{"preemptible", head + "preemptible: true\n", 3, `bad.yaml:3: unknown field "preemptible"; did you mean "resources.preemptible"?`},
		{"typo of preemptible", head + "preemptable: true\n", 3, `unknown field "preemptable"; did you mean "resources.preemptible"?`},
		{"top-level typo first", head + "resorces: {slots: 2}\n", 3, `unknown field "resorces"; did you mean "resources"?`},
	}
	for _, f := range resourceFields {
		tests = append(tests, errorCase{"every field: " + f, head + f + ": 1\n", 3,
			`unknown field "` + f + `"; did you mean "resources.` + f + `"?`})
	}
	runErrorCases(t, Parse, tests)
	runErrorCases(t, ParseJSON, []errorCase{
		{"in JSON", `{"name": "a", "entrypoint": "b", "time_limit": 60}`, 1, `unknown field "time_limit"; did you mean "resources.time_limit"?`},
	})
}

// TestResourceFields: resourceFields, which the top level names in its
// hints, are the fields the resources parser reads, in its order.
func TestResourceFields(t *testing.T) {
	_, err := Parse("bad.yaml", []byte(head+"resources: {zzz: 1}\n"))
	want := "(known fields: " + strings.Join(resourceFields, ", ") + ")"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want the hint %s", err, want)
	}
}
