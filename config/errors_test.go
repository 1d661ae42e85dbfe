package config

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/yamlfield/fieldtest"
)

// errorCase is one bad input and what its first error must say.
type errorCase struct {
	name string
	src  string
	line int    // of the first error; 0 for whole-file errors
	want string // substring of the first error's message
}

func runErrorCases(t *testing.T, tests []errorCase) {
	t.Helper()
	fieldtest.Run(t, Parse, fieldCases(tests))
}

func fieldCases(tests []errorCase) []fieldtest.Case {
	out := make([]fieldtest.Case, len(tests))
	for i, tc := range tests {
		out[i] = fieldtest.Case{Name: tc.name, Src: tc.src, Line: tc.line, Want: tc.want}
	}
	return out
}

// onePool is a valid pools section of one pool "gpu" named as the
// default; it takes lines 1-4, so a key added after it is on line 5.
const onePool = `default_pool: gpu
pools:
  - name: gpu
    policy: priority
`

func TestParseErrorsFile(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"empty file", "", 0, "empty file: expected a mapping with pools, nodes, projects or users"},
		{"null document", "~\n", 0, "empty file"},
		// The badly indented line, not the start of the sequence.
		{"broken yaml", "pools:\n  - name: a\n   policy: fifo\n", 3, "invalid YAML: did not find expected '-' indicator"},
		{"two documents", onePool + "---\npools: []\n", 5, "a second YAML document starts here; a config file is a single document"},
		{"root is a list", "- pools\n", 1, "expected a mapping, got a list"},
		{"unknown top-level field", "pool: []\n", 1, `unknown field "pool"; did you mean "pools"?`},
		{"unknown field without suggestion", "zzz: 1\n", 1,
			`unknown field "zzz" (known fields: pools, projects, nodes, default_pool, default_project, agent_timeout, lost_node_grace, fence, max_node_gpus, history_retention, users, licenses, qos, default_qos, decay)`},
		// One error naming the other format, not one per field a
		// scenario has and a configuration lacks.
		{"a scenario file", "pools:\n  - {name: gpu, policy: fifo, nodes: [{name: n, count: 2, slots: 8}]}\njobs: []\nevents: []\n", 3,
			"this looks like a scenario file (it has jobs, events), which allot sim reads"},
		{"a job file", "name: train\nproject: vision\nentrypoint: python train.py\nresources: {slots: 4}\n", 3,
			"this looks like a job file (it has entrypoint, resources), which allot submit reads"},
		// A config with its own keys and a stray one of another kind gets
		// the unknown field (trial 2026-11-29h H4).
		{"stray scenario key", onePool + "jobs: []\n", 5, `unknown field "jobs" (known fields: pools,`},
		{"duplicate key", onePool + "pools: []\n", 5, `duplicate key "pools" (first at line 2)`},
		{"null key", "~: 1\n", 1, "expected a field name, got null"},
		{"agent timeout zero", "agent_timeout: 0\n", 1, "agent_timeout: expected a duration > 0, got 0"},
		{"agent timeout negative", "agent_timeout: -5s\n", 1, `agent_timeout: expected a duration > 0, got "-5s"`},
		{"agent timeout sub-second", "agent_timeout: 1500ms\n", 1, `agent_timeout: expected a whole number of seconds, got "1500ms"`},
		{"agent timeout garbage", "agent_timeout: soon\n", 1, "agent_timeout: expected a duration"},
		{"lost node grace negative", "lost_node_grace: -1m\n", 1, `lost_node_grace: expected a duration >= 0, got "-1m"`},
		{"default pool wrong type", "default_pool: [a]\n", 1, "default_pool: expected a string, got a list"},
		{"default pool empty", "default_pool: ''\n", 1, `default_pool: expected a non-empty name, got ""`},
		{"default pool unknown", "default_pool: gpu\n", 1, `default_pool: "gpu" is not a pool (pools: default); set default_pool to one of them`},
		{"default pool implied", "\npools:\n  - {name: gpu, policy: fifo}\n", 2, `default_pool: "default" is not a pool (pools: gpu)`},
		{"default pool typo", "default_pool: gpx\npools: [{name: gpu, policy: fifo}]\n", 1, `default_pool: "gpx" is not a pool; did you mean "gpu"? (pools: gpu)`},
		{"default project unknown", "default_project: vision\n", 1, `default_project: "vision" is not a project (projects: default); add it`},
		{"default project implied", "projects:\n  - name: vision\n", 1, `default_project: "default" is not a project (projects: vision)`},
		{"default project typo", "default_project: visoin\nprojects: [{name: vision}]\n", 1, `"visoin" is not a project; did you mean "vision"?`},
		{"default project has children", "default_project: lab\nprojects: [{name: lab}, {name: a, parent: lab}]\n", 1,
			`default_project: "lab" has sub-projects; jobs run in projects without sub-projects`},
	})
}

func TestParseErrorsPools(t *testing.T) {
	pool := func(fields string) string { return "default_pool: gpu\npools:\n  - {name: gpu, " + fields + "}\n" }
	runErrorCases(t, []errorCase{
		{"pools not a list", "pools: {a: 1}\n", 1, "pools: expected a list of pools, got a mapping"},
		{"pool not a mapping", "pools: [gpu]\n", 1, `pools[0]: expected a mapping, got "gpu"`},
		{"missing name", "pools:\n  - policy: fifo\n", 2, `pools[0]: missing required field "name"`},
		{"missing policy", "pools:\n  - name: default\n", 2, `pools[0] "default": missing required field "policy"`},
		{"name not a string", "pools: [{name: true, policy: fifo}]\n", 1, "pools[0]: name: expected a string, got true"},
		{"name with spaces", "pools: [{name: ' a', policy: fifo}]\n", 1, `expected a name without leading or trailing spaces, got " a"`},
		{"name too long", "pools: [{name: " + strings.Repeat("a", 129) + ", policy: fifo}]\n", 1, "expected a name of at most 128 bytes"},
		{"name with control character", "pools: [{name: \"a\\tb\", policy: fifo}]\n", 1, "expected a name without control characters"},
		{"duplicate name", onePool + "  - name: gpu\n    policy: fifo\n", 5, `pools[1] "gpu": name: duplicate pool name "gpu" (first at line 3)`},
		{"unknown policy", pool("policy: fare_share"), 3, `policy: unknown policy "fare_share"; did you mean "fair_share"? (expected one of fifo, backfill, fair_share, priority, quota, multifactor)`},
		{"policy wrong type", pool("policy: 3"), 3, "policy: expected one of fifo, backfill, fair_share, priority, quota, multifactor, got 3"},
		{"unknown pool field", pool("policy: fifo, polcy: x"), 3, `pools[0] "gpu": unknown field "polcy"; did you mean "policy"?`},
		{"a scenario's shared pool", pool("policy: quota, shares_nodes_with: x"), 3,
			`pools[0] "gpu": shares_nodes_with: pools that share another's nodes (OSMO pools) are a scenario's only: here, make one quota pool`},
		{"a scenario's pool quota", pool("policy: quota, quota: 4"), 3, `pools[0] "gpu": quota: a pool's quota is a scenario's (OSMO pools)`},
		{"a scenario's pool nodes", pool("policy: fifo, nodes: []"), 3, `pools[0] "gpu": nodes: a pool's list of nodes is a scenario's`},
		{"a scenario's checkpoint cost", pool("policy: priority, preemption: true, checkpoint_cost: 30s"), 3,
			`checkpoint_cost: checkpoint_cost is a scenario's (how long a simulated checkpoint takes): here grace says`},
		{"preemption not a bool", pool("policy: priority, preemption: yes"), 3, `preemption: expected true or false, got "yes"`},
		{"preemption on fifo", pool("policy: fifo, preemption: true"), 3,
			"preemption: only priority, fair_share, quota and multifactor pools preempt, and this pool's policy is fifo"},
		{"preemption on backfill", pool("policy: backfill, preemption: true"), 3, "this pool's policy is backfill"},
		{"quota without preemption", pool("policy: quota, preemption: false"), 3, "preemption: quota pools always reclaim quota by preemption"},
		{"backfill on fifo", pool("policy: fifo, backfill: true"), 3, "backfill: only priority and multifactor pools take backfill: true"},
		{"backfill on fair share", pool("policy: fair_share, backfill: true"), 3, "this pool's policy is fair_share"},
		{"reservations without backfill", pool("policy: priority, reservations: easy"), 3,
			"reservations: only backfill pools and multifactor pools with backfill: true take reservations, and this pool's policy is priority"},
		{"unknown reservations", pool("policy: backfill, reservations: lazy"), 3, `unknown reservations "lazy" (expected one of easy, conservative)`},
		{"unknown placement", pool("policy: fifo, placement: spred"), 3, `unknown placement "spred"; did you mean "spread"?`},
		{"negative grace", pool("policy: priority, preemption: true, grace: -1"), 3, "grace: expected a duration >= 0, got -1"},
		{"negative zero slot limit", pool("policy: fifo, zero_slot_limit: -1"), 3, "zero_slot_limit: expected an integer >= 0, got -1"},
		{"zero slot limit as string", pool("policy: fifo, zero_slot_limit: '5'"), 3, `zero_slot_limit: expected an integer >= 0, got "5"`},
		{"negative kill grace", pool("policy: fifo, kill_grace: -5s"), 3, `pools[0] "gpu": kill_grace: expected a duration >= 0, got "-5s"`},
		{"kill grace not a duration", pool("policy: fifo, kill_grace: soon"), 3,
			`pools[0] "gpu": kill_grace: expected a duration (whole seconds like 90, or a string like 90s, 1h30m, 2d or 1:30:00), got "soon"`},
		{"kill grace as a list", "default_pool: gpu\npools:\n  - name: gpu\n    policy: fifo\n    kill_grace: [30]\n", 5,
			`pools[0] "gpu": kill_grace: expected a duration (whole seconds like 90, or a string like 90s, 1h30m, 2d or 1:30:00), got a list`},
		{"unknown on_preempt", pool("policy: quota, on_preempt: retry"), 3, `on_preempt: unknown on_preempt "retry" (expected one of reschedule, fail)`},
		{"negative max_retries", pool("policy: quota, max_retries: -1"), 3, "max_retries: expected an integer >= 0, got -1"},
	})
}

func TestParseErrorsNodes(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"nodes not a list", "nodes: a\n", 1, `nodes: expected a list of nodes, got "a"`},
		{"missing name", "nodes:\n  - pool: default\n", 2, `nodes[0]: missing required field "name"`},
		{"duplicate name", "nodes:\n  - name: n1\n  - name: n1\n", 3, `nodes[1] "n1": name: duplicate node name "n1" (first at line 2)`},
		{"unknown pool", "nodes: [{name: n1, pool: gpu}]\n", 1, `nodes[0] "n1": pool: unknown pool "gpu" (pools: default)`},
		{"pool typo", onePool + "nodes: [{name: n1, pool: gpv}]\n", 5, `unknown pool "gpv"; did you mean "gpu"?`},
		{"labels not a mapping", "nodes: [{name: n1, labels: [a]}]\n", 1, `nodes[0] "n1": labels: expected a mapping, got a list`},
		{"label value a list", "nodes: [{name: n1, labels: {rack: [1]}}]\n", 1, "labels: rack: expected a string, got a list"},
		{"label value a bool", "nodes: [{name: n1, labels: {ib: true}}]\n", 1, "labels: ib: expected a string, got true"},
		{"empty label name", "nodes: [{name: n1, labels: {'': x}}]\n", 1, "labels: expected a non-empty label name"},
		{"unknown node field", "nodes: [{name: n1, slots: 8}]\n", 1, `nodes[0] "n1": unknown field "slots" (known fields: name, pool, labels)`},
	})
}

func TestParseErrorsProjects(t *testing.T) {
	const head = "default_project: a\nprojects:\n" // projects start on line 3
	runErrorCases(t, []errorCase{
		{"projects not a list", "projects: 3\n", 1, "projects: expected a list of projects, got 3"},
		{"missing name", head + "  - quota: 3\n", 3, `projects[0]: missing required field "name"`},
		{"duplicate name", head + "  - name: a\n  - name: a\n", 4, `projects[1] "a": name: duplicate project name "a" (first at line 3)`},
		{"negative quota", head + "  - {name: a, quota: -2}\n", 3, `projects[0] "a": quota: expected an integer >= 0, got -2`},
		{"unknown max_priority_class", head + "  - {name: a, max_priority_class: URGENT}\n", 3,
			`projects[0] "a": max_priority_class: expected one of HIGH, NORMAL, LOW, got "URGENT"`},
		{"quota as float", head + "  - {name: a, quota: 1.5}\n", 3, "quota: expected an integer >= 0, got 1.5"},
		{"negative limit", head + "  - {name: a, limit: -1}\n", 3, "limit: expected an integer >= 0, got -1"},
		{"limit below quota", head + "  - {name: a, quota: 8, limit: 4}\n", 3, "limit: limit 4 is below the quota 8"},
		{"zero weight", head + "  - {name: a, over_quota_weight: 0}\n", 3, "over_quota_weight: expected a number > 0, got 0"},
		{"negative weight", head + "  - {name: a, over_quota_weight: -1}\n", 3, "over_quota_weight: expected a number > 0, got -1"},
		{"NaN weight", head + "  - {name: a, over_quota_weight: .nan}\n", 3, "over_quota_weight: expected a number > 0, got .nan"},
		{"infinite weight", head + "  - {name: a, over_quota_weight: .inf}\n", 3, "expected a number > 0, got .inf"},
		{"unknown parent", head + "  - {name: a}\n  - {name: b, parent: lba}\n", 4, `projects[1] "b": parent: unknown project "lba" (projects: a, b)`},
		{"parent typo", head + "  - {name: a, parent: lba}\n  - {name: lab}\n", 3, `unknown project "lba"; did you mean "lab"?`},
		{"own parent", head + "  - {name: a}\n  - {name: b, parent: b}\n", 4, `projects[1] "b": parent: a project cannot be its own parent`},
		{"cycle", head + "  - {name: a}\n  - {name: b, parent: c}\n  - {name: c, parent: b}\n", 4,
			`projects[1] "b": parent: the parents form a cycle: b → c → b`},
		{"long cycle", head + "  - {name: a}\n  - {name: x, parent: z}\n  - {name: y, parent: x}\n  - {name: z, parent: y}\n", 4,
			"the parents form a cycle: x → z → y → x"},
		{"children over quota", head + "  - {name: lab, quota: 10}\n  - {name: a, parent: lab, quota: 8}\n  - {name: b, parent: lab, quota: 4}\n", 3,
			`projects[0] "lab": quota: the sub-projects' quotas add up to 12 (a 8, b 4), more than this project's quota of 10`},
		{"children over an absent quota", head + "  - {name: lab}\n  - {name: a, parent: lab, quota: 1}\n", 3,
			"quotas add up to 1 (a 1), more than this project's quota of 0"},
		{"unknown project field", head + "  - {name: a, qouta: 3}\n", 3, `unknown field "qouta"; did you mean "quota"?`},
	})
}

func TestParseErrorsUsers(t *testing.T) {
	const projects = "projects:\n  - {name: default}\n  - {name: lab}\n  - {name: vision, parent: lab}\n  - {name: nlp, parent: lab}\n" // users: line 6
	runErrorCases(t, []errorCase{
		{"users not a list", "users: ana\n", 1, `users: expected a list of users, got "ana"`},
		{"missing name", "users:\n  - projects: [default]\n", 2, `users[0]: missing required field "name"`},
		{"duplicate name", "users:\n  - name: ana\n  - name: ana\n", 3, `users[1] "ana": name: duplicate user name "ana" (first at line 2)`},
		{"projects not a list", "users: [{name: ana, projects: default}]\n", 1, `users[0] "ana": projects: expected a list of project names, got "default"`},
		{"unknown project", projects + "users: [{name: ana, projects: [visoin]}]\n", 6, `users[0] "ana": projects[0]: unknown project "visoin"; did you mean "vision"?`},
		{"project twice", projects + "users: [{name: ana, projects: [nlp, nlp]}]\n", 6, `projects[1]: project "nlp" is listed twice`},
		{"project name a bool", "users: [{name: ana, projects: [true]}]\n", 1, "projects[0]: expected a string, got true"},
		{"unknown default", projects + "users: [{name: ana, default_project: nope}]\n", 6, `users[0] "ana": default_project: unknown project "nope"`},
		{"default with children", projects + "users: [{name: ana, default_project: lab}]\n", 6, `default_project: "lab" has sub-projects`},
		{"default not the user's", projects + "users: [{name: ana, projects: [nlp], default_project: vision}]\n", 6,
			`default_project: "vision" is not among the user's projects (nlp)`},
		{"unknown user field", "users: [{name: ana, project: x}]\n", 1, `unknown field "project"; did you mean "projects"?`},
	})
}

// TestParseErrorsMany checks that independent mistakes are all reported,
// in line order, and that consequences of a broken part are not.
func TestParseErrorsMany(t *testing.T) {
	src := `pools:
  - {name: gpu, policy: fifo, preemption: true}
  - {policy: priority}
nodes:
  - {name: n1, pool: nope}
projects:
  - {name: a, quota: -1}
  - {name: b, parent: c}
agent_timeout: 0
`
	_, err := Parse("bad.yaml", []byte(src))
	if err == nil {
		t.Fatal("Parse succeeded")
	}
	want := []string{
		`bad.yaml:2: pools[0] "gpu": preemption: only priority, fair_share, quota and multifactor pools preempt, and this pool's policy is fifo`,
		`bad.yaml:3: pools[1]: missing required field "name"`,
		`bad.yaml:6: default_project: "default" is not a project (projects: a, b); add it or set default_project to one of them`,
		`bad.yaml:7: projects[0] "a": quota: expected an integer >= 0, got -1`,
		`bad.yaml:8: projects[1] "b": parent: unknown project "c" (projects: a, b)`,
		`bad.yaml:9: agent_timeout: expected a duration > 0, got 0`,
	}
	if got := strings.Split(err.Error(), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", err, strings.Join(want, "\n"))
	}
}

// TestParseErrorsDefaultQOS: a default project whose qos list leaves out
// the default QOS is refused, at default_qos when given, else at
// default_project: every job there naming none would be refused.
func TestParseErrorsDefaultQOS(t *testing.T) {
	const head = "pools: [{name: default, policy: priority}]\ndefault_project: a\n"
	runErrorCases(t, []errorCase{
		{"at default_project", head + "projects:\n  - {name: a, qos: [high]}\n", 2,
			`default_project: project a may not use QOS "normal" (its qos: high), and "normal" is the default QOS of the default project`},
		{"at default_qos", head + "default_qos: normal\nprojects:\n  - {name: a, qos: [high]}\n", 3,
			`default_qos: project a may not use QOS "normal" (its qos: high)`},
		{"a parent's list", head + "projects:\n  - {name: org, qos: [high]}\n  - {name: a, parent: org}\n", 2,
			`(the qos of its parent org: high)`},
	})
}
