package jobfile

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var fuzzSeeds = []string{
	"",
	"~",
	"- a\n",
	`{name: hello, entrypoint: "echo hi", resources: {slots: 2}}`,
	head + "resources: {slots: -2, priority_class: LOW, preemptible: false}\n",
	head + "environment: {A: 1, B: ~, ALLOT_X: y}\n",
	randomSrc,
	head + "hyperparameters:\n  a: {type: int, minval: 0, maxval: 9, count: 3}\n  b: [1, {c: 2}]\n",
	head + "hyperparameters: {a: &x [*x]}\n",
	head + "hyperparameters: {a: {type: log, minval: -300, maxval: 300, base: 2, count: 2}}\n",
	head + "resources: &r {<<: *r}\n",
	head + "searcher: {name: grid, max_trials: 3}\nhyperparameters: {a: {type: categorical, vals: [1, 2, 3, 4]}}\n",
	"{\"name\": \"a\", \"entrypoint\": \"b\", \"resources\": {\"slots\": 1e3}}",
	head + "---\n",
	head + "resources: {slots: 8, min_slots: 3, gpu: a100, topology: required, licenses: {matlab: 2, x: 1}, qos: high, nice: 7, checkpoint_every: 90}\n",
	head + "resources: {preemptible: true, on_preempt: fail, max_retries: 2}\n",
	head + "resources: {slots: 0, min_slots: 1, licenses: {a: 0, a: 1}, nice: -1}\n",
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "fuzz.yaml", Parse, data)
	})
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{
		"", "null", "[]", "{}", "{\"name\": \"a\", \"entrypoint\": \"b\"}",
		`{"name": "a", "entrypoint": "b", "resources": {"slots": "2", "weight": 1e400}}`,
		`{"name": "a", "entrypoint": "b", "hyperparameters": {"x": {"type": "const", "val": {"a": [1, 2.0, null]}}}}`,
		`{"name": "a", "name": "b"}`,
	} {
		f.Add([]byte(s))
	}
	for _, s := range fuzzSeeds {
		if j, err := Parse("seed", []byte(s)); err == nil {
			data, _ := json.Marshal(j)
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "fuzz.json", ParseJSON, data)
	})
}

// checkParse asserts what doc.go promises: no panic, a Job or an error
// naming the file but never both, and for a Job the invariants, working
// Tasks and an exact JSON round trip.
func checkParse(t *testing.T, name string, parse func(string, []byte) (*Job, error), data []byte) {
	j, err := parse(name, data)
	if err != nil {
		if j != nil {
			t.Fatalf("a job along with error %v", err)
		}
		if !strings.HasPrefix(err.Error(), name) {
			t.Fatalf("error does not start with the file name: %v", err)
		}
		return
	}
	checkInvariants(t, j)
	tasks, err := j.Tasks()
	if err != nil {
		t.Fatalf("Tasks of a parsed job: %v", err)
	}
	if j.Kind == KindExperiment && len(tasks) != j.Searcher.MaxTrials || j.Kind != KindExperiment && len(tasks) != 1 {
		t.Fatalf("%d tasks for %+v", len(tasks), j)
	}
	for _, task := range tasks {
		if !json.Valid(task.Hyperparameters) || len(task.Hyperparameters) > MaxHyperparametersBytes {
			t.Fatalf("bad hyperparameters %q", task.Hyperparameters)
		}
	}
	spec, err := json.Marshal(j)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	back, err := ParseJSON("roundtrip", spec)
	if err != nil {
		t.Fatalf("ParseJSON of the marshalled job %s: %v", spec, err)
	}
	if !reflect.DeepEqual(j, back) {
		t.Fatalf("round trip changed the job:\n%+v\n%+v", j, back)
	}
}

// checkInvariants asserts what doc.go promises of a Job from Parse.
func checkInvariants(t *testing.T, j *Job) {
	t.Helper()
	r := j.Resources
	switch {
	case checkName(j.Name) != "":
		t.Fatalf("bad name %q", j.Name)
	case !slices.Contains(Kinds, j.Kind):
		t.Fatalf("bad kind %q", j.Kind)
	case strings.TrimSpace(j.Entrypoint) == "":
		t.Fatalf("empty entrypoint")
	case r.Slots < 0 || r.Priority < MinPriority || r.Priority > MaxPriority || r.PriorityClass != ClassOf(r.Priority) ||
		!(r.Weight > 0) || r.MaxSlots < 0 || (r.MaxSlots > 0 && r.MaxSlots < r.Slots) || r.TimeLimit < 0 ||
		(r.PriorityClass == ClassLow && !r.Preemptible) ||
		r.MinSlots < 0 || (r.MinSlots > 0 && (r.Slots == 0 || r.MinSlots > r.Slots)) ||
		(r.GPU != "" && checkName(r.GPU) != "") || (r.QOS != "" && checkName(r.QOS) != "") ||
		(r.Topology != "" && r.Topology != TopologyPrefer && r.Topology != TopologyRequired) ||
		r.Nice < 0 || r.Nice > MaxNice || r.CheckpointEvery < 0 ||
		(r.OnPreempt != "" && r.OnPreempt != OnPreemptReschedule && r.OnPreempt != OnPreemptFail) ||
		(r.MaxRetries != nil && *r.MaxRetries < 0) || ((r.OnPreempt != "" || r.MaxRetries != nil) && !r.Preemptible) ||
		(r.Licenses != nil && (len(r.Licenses) == 0 || len(r.Licenses) > MaxLicenses)):
		t.Fatalf("resources break an invariant: %+v", r)
	case (j.Kind == KindExperiment) != (j.Searcher != nil):
		t.Fatalf("kind %s with searcher %v", j.Kind, j.Searcher)
	case j.Kind != KindExperiment && j.Hyperparameters != nil:
		t.Fatalf("hyperparameters on a %s", j.Kind)
	case j.Environment != nil && len(j.Environment) == 0:
		t.Fatalf("empty environment is not nil")
	}
	for lic, n := range j.Resources.Licenses {
		if checkName(lic) != "" || n < 1 {
			t.Fatalf("bad license use %q: %d", lic, n)
		}
	}
	for k := range j.Environment {
		if !envName.MatchString(k) || reservedEnv(k) {
			t.Fatalf("bad variable %q", k)
		}
	}
	if s := j.Searcher; s != nil && (s.MaxTrials < 1 || s.MaxTrials > MaxTrials || s.MaxConcurrentTrials < 1 || s.Seed < 0) {
		t.Fatalf("searcher breaks an invariant: %+v", s)
	}
}
