package scenario

import (
	"errors"
	"strings"
	"testing"

	"github.com/allot-sched/allot/yamlfield"
	"github.com/allot-sched/allot/yamlfield/fieldtest"
)

// pools is a valid pools section with 16 slots in pool "gpu" and 4 in "cpu";
// it takes lines 1-8, so a key added after it is on line 9.
const pools = `pools:
  - name: gpu
    policy: priority
    nodes:
      - {name: g, count: 2, slots: 8}
  - name: cpu
    policy: fifo
    nodes: [{name: c, slots: 4}]
`

// jobs is pools plus a jobs section whose first job is on line 10.
const jobs = pools + `jobs:
  - name: asha
    kind: experiment
`

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

func TestParseErrorsFile(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"empty file", "", 0, "empty file"},
		{"only comments", "# nothing here\n", 0, "empty file"},
		{"null document", "~\n", 0, "empty file"},
		// Syntax errors name the badly indented line, not the start of
		// the sequence that it breaks.
		{"broken yaml", "pools:\n  - name: a\n   policy: fifo\n", 3, "invalid YAML: did not find expected '-' indicator"},
		{"broken yaml later on", pools + "jobs:\n  - name: a\n  slots: 2\n", 11, "invalid YAML: did not find expected '-' indicator"},
		{"unterminated flow", "pools: [{name: a\n", 1, "invalid YAML: did not find expected ',' or '}': the file ends before what starts on this line is complete"},
		{"tab indentation", "pools:\n\t- name: a\n", 2, "invalid YAML: found character that cannot start any token: the line is indented with a tab"},
		{"unknown anchor", "pools: *nope\n", 0, "invalid YAML: unknown anchor 'nope' referenced"},
		{"two documents", pools + "---\npools: []\n", 9, "single document"},
		{"root is a list", "- pools\n", 1, "expected a mapping, got a list"},
		{"root is a scalar", "hello\n", 1, `expected a mapping, got "hello"`},
		{"unknown top-level field", pools + "job: []\n", 9, `unknown field "job"; did you mean "jobs"?`},
		{"unknown top-level field without suggestion", pools + "zzz: 1\n", 9, `unknown field "zzz" (known fields: pools, projects, licenses, qos, accounts, decay, epoch, lost_node_grace, jobs, events)`},
		{"duplicate top-level key", pools + "pools: []\n", 9, `duplicate key "pools" (first at line 1)`},
		{"a master configuration", "pools:\n  - {name: a, policy: fifo}\ndefault_pool: a\nusers:\n  - {name: ana}\n", 3,
			"this looks like the master's configuration file (it has default_pool, users), which allot master --config reads"},
		// A scenario with a stray key of another kind is a scenario with
		// an unknown field, not a config (trial 2026-11-29h H4).
		{"stray config key", pools + "jobs: []\ndefault_qos: high\n", 10, `unknown field "default_qos" (known fields: pools,`},
		{"stray job file key", pools + "jobs: []\nentrypoint: x\n", 10, `unknown field "entrypoint" (known fields: pools,`},
		// As allot config check names a job file (trial 2026-11-29g G5).
		{"a job file", "name: j\nentrypoint: train\nresources: {slots: 1}\n", 2,
			"entrypoint: this looks like a job file (it has entrypoint, resources), which allot submit reads (allot submit FILE --dry-run checks one); allot sim reads a scenario"},
	})
}

func TestParseErrorsPools(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"no pools key", "jobs: []\n", 1, `missing required field "pools"`},
		{"empty pools", "pools: []\n", 1, "pools: at least one pool is required"},
		{"null pools", "pools:\n", 1, "pools: at least one pool is required"},
		{"pools is a mapping", "pools: {name: a}\n", 1, "pools: expected a list of pools, got a mapping"},
		{"pool is a list", "pools:\n  - [a, b]\n", 2, "pools[0]: expected a mapping, got a list"},
		{"pool without name", "pools: [{policy: fifo, nodes: [{name: n, slots: 1}]}]", 1, `pools[0]: missing required field "name"`},
		{"pool without policy", "pools: [{name: a, nodes: [{name: n, slots: 1}]}]", 1, `pools[0] "a": missing required field "policy"`},
		{"unknown policy", "pools:\n- name: a\n  policy: prority\n  nodes: [{name: n, slots: 1}]\n", 3,
			`pools[0] "a": policy: unknown policy "prority"; did you mean "priority"?`},
		{"policy wrong type", "pools:\n- name: a\n  policy: [fifo]\n  nodes: [{name: n, slots: 1}]\n", 3,
			"policy: expected one of fifo, backfill, fair_share, priority, quota, multifactor, got a list"},
		{"unknown pool field", "pools:\n- name: a\n  polcy: fifo\n  policy: fifo\n  nodes: [{name: n, slots: 1}]\n", 3,
			`pools[0] "a": unknown field "polcy"; did you mean "policy"?`},
		{"the configuration's grace", "pools:\n- name: a\n  policy: priority\n  grace: 20s\n  nodes: [{name: n, slots: 1}]\n", 4,
			`pools[0] "a": grace: grace is the master's configuration's (how long a preempted task may take to checkpoint): a scenario gives how long its checkpoints take, checkpoint_cost`},
		{"duplicate pool", pools + "  - {name: gpu, policy: fifo, nodes: [{name: z, slots: 1}]}\n", 9,
			// The cluster spec's path names the entry, as the master's does.
			`pools[2] "gpu": name: duplicate pool name "gpu" (first at line 2)`},
		{"duplicate key in pool", "pools:\n- name: a\n  policy: fifo\n  policy: fifo\n  nodes: [{name: n, slots: 1}]\n", 4,
			`duplicate key "policy" (first at line 3)`},
		{"unknown placement", "pools: [{name: a, policy: fifo, placement: pack, nodes: [{name: n, slots: 1}]}]", 1,
			`placement: unknown placement "pack"`},
		{"unknown reservations", "pools: [{name: a, policy: backfill, reservations: eazy, nodes: [{name: n, slots: 1}]}]", 1,
			`reservations: unknown reservations "eazy"; did you mean "easy"?`},
		{"reservations on fifo", "pools: [{name: a, policy: fifo, reservations: easy, nodes: [{name: n, slots: 1}]}]", 1,
			// The cluster spec's message, shared with the master's configuration.
			"reservations: only backfill pools and multifactor pools with backfill: true take reservations, and this pool's policy is fifo"},
		// The cluster spec's message, which counts quota pools among those
		// that preempt: they reclaim quota by preempting.
		{"preemption on fifo", "pools: [{name: a, policy: fifo, preemption: true, nodes: [{name: n, slots: 1}]}]", 1,
			"preemption: only priority, fair_share, quota and multifactor pools preempt, and this pool's policy is fifo"},
		{"preemption on backfill", "pools:\n- name: a\n  policy: backfill\n  preemption: true\n  nodes: [{name: n, slots: 1}]\n", 4,
			"preemption: only priority, fair_share, quota and multifactor pools preempt"},
		{"preemption on quota", "pools: [{name: a, policy: quota, preemption: true, nodes: [{name: n, slots: 1}]}]", 1,
			"preemption: quota pools always reclaim quota by preemption; leave preemption out"},
		// false was taken, and the pool preempted anyway (trial
		// 2026-11-29g G3); the master's configuration refuses it too.
		{"no preemption on quota", "pools:\n- name: a\n  policy: quota\n  preemption: false\n  nodes: [{name: n, slots: 1}]\n", 4,
			`pools[0] "a": preemption: quota pools always reclaim quota by preemption; leave preemption out`},
		{"backfill on fair_share", "pools: [{name: a, policy: fair_share, backfill: true, nodes: [{name: n, slots: 1}]}]", 1,
			"backfill: only priority and multifactor pools take backfill: true"},
		{"serial on priority", "pools: [{name: a, policy: priority, serial: true, nodes: [{name: n, slots: 1}]}]", 1,
			"serial: only fifo pools can be serial"},
		{"preemption wrong type", "pools: [{name: a, policy: priority, preemption: yes, nodes: [{name: n, slots: 1}]}]", 1,
			`preemption: expected true or false, got "yes"`},
		{"malformed checkpoint_cost", "pools: [{name: a, policy: priority, checkpoint_cost: 3 min, nodes: [{name: n, slots: 1}]}]", 1,
			`checkpoint_cost: expected a duration`},
		{"pool without nodes key", "pools: [{name: a, policy: fifo}]", 1, `missing required field "nodes"`},
		{"pool with empty nodes", "pools:\n- name: a\n  policy: fifo\n  nodes: []\n", 4, `pools[0] "a": nodes: a pool needs at least one node`},
	})
}

func TestParseErrorsNodes(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"node count zero", "pools:\n- name: a\n  policy: fifo\n  nodes:\n  - {name: n, count: 0, slots: 1}\n", 5,
			`pools[0] "a": nodes[0] "n": count: expected an integer from 1 to 100000, got 0`},
		{"node count huge", "pools: [{name: a, policy: fifo, nodes: [{name: n, count: 1000000000, slots: 1}]}]", 1,
			"count: expected an integer from 1 to 100000"},
		{"too many nodes in all", "pools: [{name: a, policy: fifo, nodes: [{name: n, count: 60000, slots: 1}, {name: m, count: 60000, slots: 1}]}]", 1,
			"count: the file would have more than 100000 nodes"},
		{"node slots zero", "pools:\n- name: a\n  policy: fifo\n  nodes:\n  - name: n\n    slots: 0\n", 6,
			`nodes[0] "n": slots: expected an integer >= 1, got 0`},
		{"node slots missing", "pools:\n- name: a\n  policy: fifo\n  nodes:\n  - name: n\n", 5, `nodes[0] "n": missing required field "slots"`},
		{"node slots as string", "pools: [{name: a, policy: fifo, nodes: [{name: n, slots: '8'}]}]", 1, `slots: expected an integer >= 1, got "8"`},
		{"node slots as float", "pools: [{name: a, policy: fifo, nodes: [{name: n, slots: 8.5}]}]", 1, `slots: expected an integer >= 1, got 8.5`},
		{"duplicate node across pools", pools + "  - name: more\n    policy: fifo\n    nodes: [{name: c, slots: 1}]\n", 11,
			`pools[2] "more": nodes[0] "c": name: duplicate node name "c" (first at line 8)`},
		{"duplicate node after expansion", "pools:\n- name: a\n  policy: fifo\n  nodes:\n  - {name: n-2, slots: 1}\n  - {name: n, count: 3, slots: 1}\n", 6,
			`duplicate node name "n-2" (made by count: 3) (first at line 5)`},
		{"unknown node field", "pools: [{name: a, policy: fifo, nodes: [{name: n, slots: 1, gpus: h100}]}]", 1, `nodes[0] "n": unknown field "gpus"; did you mean "gpu"?`},
		{"labels is a list", "pools: [{name: a, policy: fifo, nodes: [{name: n, slots: 1, labels: [a]}]}]", 1, "labels: expected a mapping, got a list"},
		{"label value is a mapping", "pools: [{name: a, policy: fifo, nodes: [{name: n, slots: 1, labels: {a: {b: c}}}]}]", 1,
			"labels: a: expected a string, got a mapping"},
		{"duplicate label", "pools: [{name: a, policy: fifo, nodes: [{name: n, slots: 1, labels: {a: x, a: y}}]}]", 1, `duplicate key "a"`},
		{"node is a scalar", "pools: [{name: a, policy: fifo, nodes: [n1]}]", 1, `nodes[0]: expected a mapping, got "n1"`},
	})
}

func TestParseErrorsJobs(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"jobs is a scalar", pools + "jobs: asha\n", 9, `jobs: expected a list of jobs or a {trace: FILE} mapping, got "asha"`},
		{"job is a list", pools + "jobs:\n  - [asha]\n", 10, "jobs[0]: expected a mapping, got a list"},
		{"job without name", pools + "jobs:\n  - {tasks: 2}\n", 10, `jobs[0]: missing required field "name"`},
		{"job with empty name", pools + "jobs:\n  - {name: ''}\n", 10, `jobs[0]: name: expected a non-empty name`},
		{"job name is a bool", pools + "jobs:\n  - {name: true}\n", 10, `jobs[0]: name: expected a string, got true`},
		{"duplicate job", jobs + "  - {name: asha}\n", 12, `jobs[1]: name: duplicate job name "asha" (first at line 10)`},
		{"unknown job field", jobs + "    prioity: 3\n", 12, `jobs[0] "asha": unknown field "prioity"; did you mean "priority"?`},
		{"first_pass before submit", pools + "jobs:\n  - {name: a, submit: 10, first_pass: 9}\n", 10,
			`jobs[0] "a": first_pass: 9s comes before the job's submit (10s)`},
		{"unknown kind", pools + "jobs:\n  - {name: a, kind: experment}\n", 10, `kind: unknown kind "experment"; did you mean "experiment"?`},
		{"unknown pool", jobs + "    pool: gpus\n", 12, `jobs[0] "asha": pool: unknown pool "gpus"; did you mean "gpu"? (pools: gpu, cpu)`},
		{"tasks zero", jobs + "    tasks: 0\n", 12, `tasks: expected an integer >= 1, got 0`},
		{"max_concurrent zero", jobs + "    max_concurrent: 0\n", 12, `max_concurrent: expected an integer >= 1, got 0`},
		{"negative slots", jobs + "    slots: -3\n", 12, `jobs[0] "asha": slots: expected an integer >= 0, got -3`},
		{"task larger than its pool", jobs + "    slots: 17\n", 12, `slots: a task needs 17 slots, but pool "gpu" has only 16 in all`},
		{"task larger than a named pool", jobs + "    pool: cpu\n    slots: 5\n", 13, `pool "cpu" has only 4`},
		{"malformed duration 9x", jobs + "    duration: 9x\n", 12, `duration: expected a duration (whole seconds like 90, or a string like 90s, 1h30m, 2d or 1:30:00), got "9x"`},
		{"negative duration", jobs + "    duration: -5\n", 12, `duration: expected a duration >= 0, got -5`},
		{"negative duration string", jobs + "    duration: -5s\n", 12, `duration: expected a duration >= 0, got "-5s"`},
		{"fractional duration", jobs + "    duration: 1.5s\n", 12, `duration: expected a whole number of seconds, got "1.5s"`},
		{"fractional duration number", jobs + "    submit: 1.5\n", 12, `submit: expected a whole number of seconds, got 1.5`},
		{"sub-second duration", jobs + "    duration: 1500ms\n", 12, `whole number of seconds, got "1500ms"`},
		{"unitless duration string", jobs + "    duration: '90'\n", 12, `expected a duration`},
		{"duration too long", jobs + "    duration: 1e30\n", 12, "is too long"},
		{"duration is a bool", jobs + "    duration: true\n", 12, `expected a duration (whole seconds`},
		{"duration is null", jobs + "    duration:\n", 12, `expected a duration (whole seconds like 90, or a string like 90s, 1h30m, 2d or 1:30:00), got null`},
		{"time_limit zero", jobs + "    time_limit: 0\n", 12, `time_limit: expected a duration > 0, got 0`},
		{"priority zero", jobs + "    priority: 0\n", 12, `priority: expected an integer from 1 to 99, got 0`},
		{"priority too high", jobs + "    priority: 100\n", 12, `priority: expected an integer from 1 to 99, got 100`},
		{"weight zero", jobs + "    weight: 0\n", 12, `weight: expected a number > 0, got 0`},
		{"weight negative", jobs + "    weight: -1.5\n", 12, `weight: expected a number > 0, got -1.5`},
		{"weight nan", jobs + "    weight: .nan\n", 12, `weight: expected a number > 0, got .nan`},
		{"preemptible wrong type", jobs + "    preemptible: 1\n", 12, `preemptible: expected true or false, got 1`},
		{"tasks as a list", jobs + "    tasks: [1]\n", 12, `tasks: expected an integer >= 1, got a list`},
		{"trace without path", pools + "jobs: {format: swf}\n", 9, `jobs: missing required field "trace"`},
		{"trace unknown format", pools + "jobs: {trace: x, format: sfw}\n", 9, `jobs: format: unknown trace format "sfw"; did you mean "swf"?`},
		{"trace unknown field", pools + "jobs: {trace: x, fromat: swf}\n", 9, `unknown field "fromat"; did you mean "format"?`},
		{"trace misspelt", pools + "jobs: {trcae: x}\n", 9, `jobs: missing required field "trace"`},
		{"jobs mapping without a dash", pools + "jobs:\n  name: a\n  slots: 2\n", 10,
			`jobs: expected a list of jobs (- name: ...) or a mapping {trace: FILE, format: ...}`},
		{"jobs mapping of one job", pools + "jobs: {slots: 2}\n", 9,
			`jobs: expected a list of jobs (- name: ...) or a mapping {trace: FILE, format: ...}`},
		{"trace with a job field", pools + "jobs: {trace: x, slots: 2}\n", 9, `jobs: unknown field "slots"`},
		{"jobs keyed by name", pools + "jobs:\n  a: {slots: 2, duration: 1h}\n  b: {slots: 1, duration: 1h}\n", 10,
			`jobs: expected a list of jobs, got jobs keyed by name: write each as a list item, - name: a, with its fields under it`},
		{"jobs keyed by name, one not a job", pools + "jobs:\n  a: {slots: 2}\n  trace: x\n", 10, `jobs: unknown field "a"`},
	})
}

func TestParseErrorsEvents(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"events is a mapping", jobs + "events: {at: 1}\n", 12, "events: expected a list of events, got a mapping"},
		{"event without action", jobs + "events:\n  - {at: 1h}\n", 13, "events[0]: missing action: expected one of kill, set_priority, set_weight, set_time_limit, set_qos, set_nice, node_down, node_up, drain, resume"},
		{"node_down past a count", jobs + "events:\n  - {at: 1h, node_down: g-3}\n", 13,
			`events[0]: node_down: unknown node "g-3": the entry "g" on line 5 (count: 2) makes the nodes "g-1" to "g-2"`},
		{"node_down counted from 0", jobs + "events:\n  - {at: 1h, node_down: g-0}\n", 13,
			`events[0]: node_down: unknown node "g-0": the entry "g" on line 5 (count: 2) makes the nodes "g-1" to "g-2"`},
		{"node_down names a counted entry", jobs + "events:\n  - {at: 1h, node_down: g}\n", 13,
			`events[0]: node_down: unknown node "g": the entry on line 5 makes 2 nodes (count: 2), named "g-1" to "g-2"; name one of them`},
		{"node_down unknown node", jobs + "events:\n  - {at: 1h, node_down: tpu}\n", 13, `events[0]: node_down: unknown node "tpu" (nodes: g-1 to g-2, c)`},
		// scenario.md's node-2 where the nodes are n-1, n-2 (trial
		// 2026-11-29g G10): the names that exist, the first few.
		{"unknown node, the names listed", "pools:\n  - {name: p, policy: fifo, nodes: [{name: n, count: 2, slots: 4}]}\nevents:\n  - {at: 40m, node_down: node-2}\n", 4,
			`events[0]: node_down: unknown node "node-2" (nodes: n-1 to n-2)`},
		{"unknown node, many nodes", "pools:\n  - {name: p, policy: fifo, nodes: [{name: n, count: 9, slots: 4}]}\nevents:\n  - {at: 40m, drain: m}\n", 4,
			`events[0]: drain: unknown node "m" (nodes: n-1 to n-9)`},
		// The entries are listed, a count's nodes as one, so that a large
		// count hides no other entry; a name-1 of an entry without a count
		// is pointed at the entry (trial 2026-11-29h H6).
		{"unknown node, the entries listed", "pools:\n  - {name: p, policy: fifo, nodes: [{name: gpu, count: 12, slots: 4}, {name: big, slots: 8}]}\nevents:\n  - {at: 40m, drain: tpu}\n", 4,
			`events[0]: drain: unknown node "tpu" (nodes: gpu-1 to gpu-12, big)`},
		{"unknown node, the one node of an entry", "pools:\n  - {name: p, policy: fifo, nodes: [{name: gpu, count: 12, slots: 4}, {name: big, slots: 8}]}\nevents:\n  - {at: 40m, node_up: big-1}\n", 4,
			`events[0]: node_up: unknown node "big-1"; did you mean "big"? (the entry on line 2 has no count, so its one node is named "big")`},
		{"unknown node, many entries", "pools:\n  - {name: p, policy: fifo, nodes: [{name: a, slots: 1}, {name: b, slots: 1}, {name: c, count: 3, slots: 1}, {name: d, slots: 1}, {name: e, slots: 1}, {name: f, slots: 1}, {name: g, slots: 1}]}\nevents:\n  - {at: 40m, drain: zzz}\n", 4,
			`events[0]: drain: unknown node "zzz" (nodes: a, b, c-1 to c-3, d, e and 2 more)`},
		{"node_up unknown node", jobs + "events:\n  - {at: 1h, kill: asha}\n  - {at: 2h, node_up: gpu}\n", 14, `events[1]: node_up: unknown node "gpu"`},
		{"node_down is a mapping", jobs + "events:\n  - {at: 1h, node_down: {node: c}}\n", 13, `events[0]: node_down: expected`},
		{"drain unknown node", jobs + "events:\n  - {at: 1h, drain: tpu}\n", 13, `events[0]: drain: unknown node "tpu"`},
		{"drain past a count", jobs + "events:\n  - {at: 1h, drain: g-3}\n", 13,
			`events[0]: drain: unknown node "g-3": the entry "g" on line 5 (count: 2) makes the nodes "g-1" to "g-2"`},
		{"resume unknown node", jobs + "events:\n  - {at: 1h, kill: asha}\n  - {at: 2h, resume: gpu}\n", 14, `events[1]: resume: unknown node "gpu"`},
		{"node_reshape unknown node", jobs + "events:\n  - at: 1h\n    node_reshape: {node: tpu, slots: 2}\n", 14,
			`events[0]: node_reshape: node: unknown node "tpu"`},
		{"node_reshape past a count", jobs + "events:\n  - {at: 1h, node_reshape: {node: g-3, slots: 2}}\n", 13,
			`events[0]: node_reshape: node: unknown node "g-3": the entry "g" on line 5 (count: 2) makes the nodes "g-1" to "g-2"`},
		{"node_reshape without slots", jobs + "events:\n  - at: 1h\n    node_reshape: {node: c, gpu: a100}\n", 14,
			`events[0]: node_reshape: missing required field "slots"`},
		{"node_reshape without node", jobs + "events:\n  - {at: 1h, node_reshape: {slots: 2}}\n", 13,
			`events[0]: node_reshape: missing required field "node"`},
		{"node_reshape of no slots", jobs + "events:\n  - at: 1h\n    node_reshape:\n      node: c\n      slots: 0\n", 16,
			`events[0]: node_reshape: slots: expected an integer >= 1, got 0`},
		{"node_reshape unknown field", jobs + "events:\n  - {at: 1h, node_reshape: {node: c, slots: 2, poll: gpu}}\n", 13,
			`events[0]: node_reshape: unknown field "poll"; did you mean "pool"?`},
		{"node_reshape to an unknown pool", jobs + "events:\n  - at: 1h\n    node_reshape: {node: c, slots: 2, pool: gpus}\n", 14,
			`events[0]: node_reshape: pool: unknown pool "gpus"; did you mean "gpu"? (pools: gpu, cpu)`},
		{"node_reshape to a pool that is no name", jobs + "events:\n  - {at: 1h, node_reshape: {node: c, slots: 2, pool: [gpu]}}\n", 13,
			`events[0]: node_reshape: pool: expected`},
		{"node_reshape to an empty pool", jobs + "events:\n  - {at: 1h, node_reshape: {node: c, slots: 2, pool: \"\"}}\n", 13,
			`events[0]: node_reshape: pool:`},
		{"node_reshape to a sharing pool", "pools:\n  - {name: a, policy: quota, quota: 1, nodes: [{name: n, slots: 2}]}\n" +
			"  - {name: b, quota: 1, shares_nodes_with: a}\n  - {name: c, policy: fifo, nodes: [{name: m, slots: 1}]}\n" +
			"events:\n  - at: 1h\n    node_reshape:\n      node: m\n      slots: 1\n      pool: b\n", 10,
			`events[0]: node_reshape: pool: pool "b" shares the nodes of pool "a" (shares_nodes_with) and has none of its own: move the node to "a"`},
		{"node_reshape is a name", jobs + "events:\n  - {at: 1h, node_reshape: c}\n", 13, `events[0]: node_reshape: expected a mapping, got "c"`},
		{"node_reshape bad label", jobs + "events:\n  - {at: 1h, node_reshape: {node: c, slots: 2, labels: {rack: [1]}}}\n", 13,
			`events[0]: node_reshape: labels`},
		{"drain is a mapping", jobs + "events:\n  - {at: 1h, drain: {node: c}}\n", 13, `events[0]: drain: expected`},
		{"drain and node_down", jobs + "events:\n  - {at: 1h, node_down: c, drain: c}\n", 13, "events[0]: drain: an event has one action, and this one already has node_down"},
		{"node_down and kill", jobs + "events:\n  - {at: 1h, kill: asha, node_down: c}\n", 13, "events[0]: node_down: an event has one action, and this one already has kill"},
		{"event with two actions", jobs + "events:\n  - at: 1h\n    kill: asha\n    set_weight: {job: asha, weight: 2}\n", 15,
			"events[0]: set_weight: an event has one action, and this one already has kill"},
		{"event without at", jobs + "events:\n  - {kill: asha}\n", 13, `events[0]: missing required field "at"`},
		{"event unknown job", jobs + "events:\n  - {at: 1h, kill: ash}\n", 13, `events[0]: kill: unknown job "ash"; did you mean "asha"? (jobs: asha)`},
		{"event unknown job in set_priority", jobs + "events:\n  - at: 1h\n    set_priority: {job: nope, priority: 3}\n", 14,
			`events[0]: set_priority: job: unknown job "nope" (jobs: asha)`},
		{"event priority out of range", jobs + "events:\n  - {at: 1h, set_priority: {job: asha, priority: 120}}\n", 13,
			`events[0]: set_priority: priority: expected an integer from 1 to 99, got 120`},
		{"event weight zero", jobs + "events:\n  - {at: 1h, set_weight: {job: asha, weight: 0}}\n", 13, `set_weight: weight: expected a number > 0`},
		{"event set_weight missing weight", jobs + "events:\n  - {at: 1h, set_weight: {job: asha}}\n", 13, `set_weight: missing required field "weight"`},
		{"event set_priority with weight", jobs + "events:\n  - {at: 1h, set_priority: {job: asha, weight: 2, priority: 1}}\n", 13,
			`set_priority: unknown field "weight" (known fields: job, priority)`},
		{"event set_priority is a scalar", jobs + "events:\n  - {at: 1h, set_priority: asha}\n", 13, `set_priority: expected a mapping, got "asha"`},
		{"event negative at", jobs + "events:\n  - {at: -5, kill: asha}\n", 13, `at: expected a duration >= 0, got -5`},
		{"event unknown field", jobs + "events:\n  - {at: 1h, kill: asha, jbo: asha}\n", 13, `events[0]: unknown field "jbo" (known fields: at, kill, set_priority, set_weight, set_time_limit, set_qos, set_nice, node_down, node_up, drain, resume, node_delete, node_reshape, hold, release, requeue, after_pass, before)`},
		{"event before unknown job", jobs + "events:\n  - {at: 0, drain: c, before: ash}\n", 13, `events[0]: before: unknown job "ash"; did you mean "asha"?`},
		{"event before another instant", jobs + "events:\n  - {at: 1h, drain: c, before: asha}\n", 13,
			`events[0]: before: job "asha" is submitted at 0s, not at the event's time (3600s)`},
	})
}

func TestParseErrorsMerge(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"merge of a scalar", jobs + "  - {<<: 3, name: b}\n", 12, `jobs[1]: <<: expected a mapping or a list of mappings to merge, got 3`},
		{"merged bad value keeps the anchor's line", jobs + "    <<: &bad {slots: -1}\n  - {<<: *bad, name: b}\n", 12, `slots: expected an integer >= 0, got -1`},
	})
}

// TestErrorFormat pins the exact shape of a message.
func TestErrorFormat(t *testing.T) {
	_, err := Parse("s.yaml", []byte(jobs+"    slots: -3\n"))
	want := `s.yaml:12: jobs[0] "asha": slots: expected an integer >= 0, got -3`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}

func TestSeveralErrors(t *testing.T) {
	// Jobs come after pools in the report even though they come first in
	// the file's walk order, because errors are sorted by line.
	src := "jobs:\n  - {name: a, slots: -1}\n" + strings.Replace(pools, "policy: fifo", "policy: lifo", 1)
	_, err := Parse("m.yaml", []byte(src))
	if err == nil {
		t.Fatal("want errors")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "m.yaml:2: ") || !strings.HasPrefix(lines[1], "m.yaml:9: ") {
		t.Errorf("want two errors, line 2 then line 9; got:\n%v", err)
	}
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != 2 {
		t.Errorf("want a joined error of two")
	}
}

func TestTooManyErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString(pools + "jobs:\n")
	for range 15 {
		b.WriteString("  - {slots: -1}\n")
	}
	_, err := Parse("many.yaml", []byte(b.String()))
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != yamlfield.MaxReported+1 || !strings.Contains(lines[yamlfield.MaxReported], "more errors not shown") {
		t.Errorf("want %d errors and a count of the rest; got:\n%v", yamlfield.MaxReported, err)
	}
}

func TestNoCascade(t *testing.T) {
	// A pool with a broken node has an unknown size, so its jobs are not
	// also told they do not fit; a pool without a name makes unknown pool
	// names in jobs unremarkable.
	src := `pools:
  - {name: a, policy: fifo, nodes: [{name: n, slots: zero}]}
  - {policy: fifo, nodes: [{name: m, slots: 1}]}
jobs:
  - {name: j, pool: a, slots: 4}
  - {name: k, pool: b}
`
	_, err := Parse("c.yaml", []byte(src))
	if err == nil || strings.Count(err.Error(), "\n") != 1 {
		t.Errorf("want exactly the two pool errors; got:\n%v", err)
	}
}

func TestThousandsOfErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString(pools + "jobs:\n")
	for range 3000 {
		b.WriteString("  - {slots: -1}\n")
	}
	_, err := Parse("huge.yaml", []byte(b.String()))
	lines := strings.Split(err.Error(), "\n")
	// Each job has two errors: no name, and negative slots.
	if len(lines) != yamlfield.MaxReported+1 || !strings.HasSuffix(lines[yamlfield.MaxReported], "huge.yaml: 5990 more errors not shown") {
		t.Errorf("want %d errors and a count of the rest; got last line %q", yamlfield.MaxReported, lines[len(lines)-1])
	}
}

func TestErrorFields(t *testing.T) {
	_, err := Parse("f.yaml", []byte(jobs+"    duration: 9x\n"))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("no *Error in %v", err)
	}
	if e.File != "f.yaml" || e.Line != 12 || e.Path != `jobs[0] "asha": duration` || !strings.HasPrefix(e.Msg, "expected a duration") {
		t.Errorf("Error = %+v", e)
	}
	if e.Err == nil || !strings.Contains(e.Err.Error(), `unknown unit "x"`) {
		t.Errorf("Err = %v, want time.ParseDuration's error", e.Err)
	}

	_, err = Parse("g.yaml", []byte("a: [\n"))
	if !errors.As(err, &e) || e.Err == nil || !strings.HasPrefix(e.Err.Error(), "yaml: ") {
		t.Errorf("syntax error %+v does not wrap the YAML library's error", e)
	}
}

// remarshal writes s with Marshal and parses it back, as a round trip
// does, failing the test if either refuses.
func remarshal(t *testing.T, s *Scenario) (*Scenario, []byte) {
	t.Helper()
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("back.yaml", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return back, out
}
