package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// twoPools is a master with a priority pool and an EASY backfill pool.
const twoPools = `
agent_timeout: 20s
pools:
  - {name: default, policy: priority, preemption: true, backfill: true, grace: 5s}
  - {name: batch, policy: backfill, reservations: easy}
projects:
  - {name: default}
  - {name: vision, quota: 2}
`

// printGPUs is the start of every submission test entrypoint: it prints
// what the task sees, so the test can compare it with the placement.
const printGPUs = `echo "CVD=[$CUDA_VISIBLE_DEVICES] order=$CUDA_DEVICE_ORDER task=$ALLOT_TASK_INDEX attempt=$ALLOT_ATTEMPT"`

// submission is one job of TestSubmission and what it must end as.
type submission struct {
	name     string
	file     string
	kind     string
	pool     string
	project  string
	slots    int
	tasks    int
	state    string // the job's end state
	exitCode int    // of every task's attempt
	node     string // where its tasks run
	stdout   []string
	stderr   []string
}

func submissions() []submission {
	return []submission{
		{name: "command", kind: "command", pool: "default", project: "vision", slots: 2, tasks: 1, state: "completed",
			node: "gpu-1", stdout: []string{"out 1", "out 2"}, stderr: []string{"to stderr"},
			file: `{name: command, project: vision, resources: {slots: 2},
  entrypoint: '` + printGPUs + `; echo "out 1"; echo "to stderr" >&2; echo "out 2"'}`},
		{name: "notebook", kind: "notebook", pool: "default", project: "default", slots: 1, tasks: 1, state: "completed",
			node: "gpu-1", stdout: []string{"notebook up"},
			file: `{name: notebook, kind: notebook, resources: {slots: 1}, entrypoint: '` + printGPUs + `; echo "notebook up"'}`},
		{name: "shell", kind: "shell", pool: "default", project: "default", slots: 0, tasks: 1, state: "completed",
			node: "gpu-1", stdout: []string{"shell up"},
			file: `{name: shell, kind: shell, resources: {slots: 0}, entrypoint: '` + printGPUs + `; echo "shell up"'}`},
		{name: "tensorboard", kind: "tensorboard", pool: "batch", project: "default", slots: 0, tasks: 1, state: "completed",
			node: "cpu-1", stdout: []string{"tensorboard up"},
			file: `{name: tensorboard, kind: tensorboard, pool: batch, resources: {slots: 0}, entrypoint: '` + printGPUs + `; echo "tensorboard up"'}`},
		{name: "experiment", kind: "experiment", pool: "batch", project: "vision", slots: 1, tasks: 3, state: "completed",
			node: "cpu-1", stdout: []string{"hparams="},
			file: `name: experiment
pool: batch
project: vision
entrypoint: '` + printGPUs + `; echo "hparams=$ALLOT_HPARAMS"; cat "$ALLOT_HPARAMS_FILE"; echo'
resources: {slots: 1}
hyperparameters:
  lr: {type: categorical, vals: [0.1, 0.01, 0.001]}
  layers: 2
searcher: {name: grid, max_concurrent_trials: 2}
`},
		{name: "exit3", kind: "command", pool: "default", project: "default", slots: 1, tasks: 1, state: "failed", exitCode: 3,
			node: "gpu-1", stdout: []string{"about to fail"},
			file: `{name: exit3, resources: {slots: 1}, entrypoint: '` + printGPUs + `; echo "about to fail"; exit 3'}`},
	}
}

// TestSubmission submits a job of every kind through `allot submit` to a
// master with two agents in two pools, on each store backend, and checks
// how they ran through the CLI: GPUs, logs, exit codes and job fields.
func TestSubmission(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			c := newCluster(t, clusterSpec{config: twoPools, postgres: backend == "postgres", agents: []agentSpec{
				{name: "gpu-1", pool: "default", gpus: 4},
				{name: "cpu-1", pool: "batch", gpus: 2, gpuType: "a100"},
			}})
			subs := submissions()
			ids := map[string]int64{}
			for _, s := range subs {
				ids[s.name] = c.submit(s.name, s.file)
			}
			for _, s := range subs {
				c.waitEnded(ids[s.name])
			}
			for _, s := range subs {
				t.Run(s.name, func(t *testing.T) {
					checkSubmission(t, c.sub(t), ids[s.name], s)
				})
			}
			t.Run("jobs list", func(t *testing.T) {
				checkJobsList(t, c.sub(t), subs, ids)
			})
		})
	}
}

// checkSubmission checks one ended job through `allot job show -o json`
// and `allot job logs`.
func checkSubmission(t *testing.T, c *cluster, id int64, s submission) {
	j := c.show(id)
	if j.State != s.state || j.Kind != s.kind || j.Pool != s.pool || j.Project != s.project || j.Slots != s.slots || j.Tasks != s.tasks {
		t.Errorf("job %d = state %s kind %s pool %s project %s slots %d tasks %d; want %s %s %s %s %d %d",
			id, j.State, j.Kind, j.Pool, j.Project, j.Slots, j.Tasks, s.state, s.kind, s.pool, s.project, s.slots, s.tasks)
	}
	if len(j.TaskList) != s.tasks {
		t.Fatalf("job %d has %d tasks in its task list, want %d: %s", id, len(j.TaskList), s.tasks, describeJob(j))
	}
	var hparams []string
	for _, task := range j.TaskList {
		if len(task.Attempts) != 1 {
			t.Errorf("task %d has %d attempts, want 1: %s", task.Index, len(task.Attempts), describeJob(j))
			continue
		}
		a := task.Attempts[0]
		wantEnd := map[string]string{"completed": "completed", "failed": "failed"}[s.state]
		if a.EndState != wantEnd || a.ExitCode == nil || *a.ExitCode != s.exitCode {
			t.Errorf("task %d attempt: end %q exit %v, want %q exit %d", task.Index, a.EndState, fmtCode(a.ExitCode), wantEnd, s.exitCode)
		}
		if len(a.Placement) != 1 || a.Placement[0].Node != s.node || len(a.Placement[0].GPUs) != s.slots {
			t.Errorf("task %d placement %v, want %d GPUs on %s", task.Index, a.Placement, s.slots, s.node)
			continue
		}
		out := c.cliOK("job", "logs", strconv.FormatInt(id, 10), "--task", strconv.Itoa(task.Index))
		checkVisibleGPUs(t, task.Index, out, a.Placement[0].GPUs)
		for _, want := range s.stdout {
			if !strings.Contains(out, want) {
				t.Errorf("task %d stdout lacks %q:\n%s", task.Index, want, out)
			}
		}
		if s.kind == "experiment" {
			hparams = append(hparams, checkHyperparameters(t, task, out))
		}
	}
	if s.kind == "experiment" {
		slices.Sort(hparams)
		want := []string{`{"layers":2,"lr":0.001}`, `{"layers":2,"lr":0.01}`, `{"layers":2,"lr":0.1}`}
		if !slices.Equal(hparams, want) {
			t.Errorf("trials' hyperparameters = %v, want %v", hparams, want)
		}
	}
	checkAllLogs(t, c, id, s)
}

// checkAllLogs reads the whole job's output with `allot job logs`: stderr
// lines go to stderr, and several tasks' lines carry their index.
func checkAllLogs(t *testing.T, c *cluster, id int64, s submission) {
	r := c.cli("job", "logs", strconv.FormatInt(id, 10))
	if r.code != 0 {
		t.Fatalf("allot job logs %d: exit %d: %s", id, r.code, r.stderr)
	}
	for _, want := range s.stderr {
		if !strings.Contains(r.stderr, want) || strings.Contains(r.stdout, want) {
			t.Errorf("stderr line %q: want it on stderr only; stdout:\n%s\nstderr:\n%s", want, r.stdout, r.stderr)
		}
	}
	for i := range s.tasks {
		prefix := ""
		if s.tasks > 1 {
			prefix = fmt.Sprintf("[%d] ", i)
		}
		if want := prefix + "CVD=["; !strings.Contains(r.stdout, want) {
			t.Errorf("allot job logs %d lacks %q:\n%s", id, want, r.stdout)
		}
	}
}

var cvdLine = regexp.MustCompile(`CVD=\[([0-9,]*)\] order=(\S*) task=(\d+) attempt=(\d+)`)

// checkVisibleGPUs compares the CUDA_VISIBLE_DEVICES the task printed with
// the GPUs of its placement, in the master's order.
func checkVisibleGPUs(t *testing.T, task int, out string, gpus []int) {
	t.Helper()
	m := cvdLine.FindStringSubmatch(out)
	if m == nil {
		t.Errorf("task %d printed no CVD line:\n%s", task, out)
		return
	}
	want := make([]string, len(gpus))
	for i, g := range gpus {
		want[i] = strconv.Itoa(g)
	}
	if m[1] != strings.Join(want, ",") {
		t.Errorf("task %d: CUDA_VISIBLE_DEVICES=%q, placement GPUs %v", task, m[1], gpus)
	}
	if m[2] != "PCI_BUS_ID" || m[3] != strconv.Itoa(task) || m[4] != "1" {
		t.Errorf("task %d: CUDA_DEVICE_ORDER=%q ALLOT_TASK_INDEX=%s ALLOT_ATTEMPT=%s, want PCI_BUS_ID %d 1", task, m[2], m[3], m[4], task)
	}
}

// checkHyperparameters checks that a trial saw its hyperparameters, in
// the environment and in the file, as the master lists them; it returns
// them.
func checkHyperparameters(t *testing.T, task api.Task, out string) string {
	t.Helper()
	var listed map[string]any
	if err := json.Unmarshal(task.Hyperparameters, &listed); err != nil {
		t.Errorf("task %d hyperparameters %s: %v", task.Index, task.Hyperparameters, err)
	}
	env := ""
	for line := range strings.Lines(out) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "hparams="); ok {
			env = v
		}
	}
	var seen map[string]any
	if err := json.Unmarshal([]byte(env), &seen); err != nil || fmt.Sprint(seen) != fmt.Sprint(listed) {
		t.Errorf("task %d: ALLOT_HPARAMS=%s, the master lists %s", task.Index, env, task.Hyperparameters)
	}
	if strings.Count(out, env) < 2 {
		t.Errorf("task %d: the hyperparameters file does not hold %s:\n%s", task.Index, env, out)
	}
	return env
}

// checkJobsList checks `allot jobs -o json`: only live jobs by default
// (none are left), every job with --all, with its fields.
func checkJobsList(t *testing.T, c *cluster, subs []submission, ids map[string]int64) {
	var live []api.Job
	c.cliJSON(&live, "jobs")
	if len(live) != 0 {
		t.Errorf("allot jobs lists %d live jobs, want none: %v", len(live), live)
	}
	var all []api.Job
	c.cliJSON(&all, "jobs", "--all")
	byID := map[int64]api.Job{}
	for _, j := range all {
		byID[j.ID] = j
	}
	if len(all) != len(subs) {
		t.Errorf("allot jobs --all lists %d jobs, want %d", len(all), len(subs))
	}
	for _, s := range subs {
		j, ok := byID[ids[s.name]]
		if !ok {
			t.Errorf("allot jobs --all lacks job %d (%s)", ids[s.name], s.name)
			continue
		}
		if j.Name != s.name || j.State != s.state || j.Project != s.project || j.Pool != s.pool || j.Slots != s.slots {
			t.Errorf("listed job %d = {name %s state %s project %s pool %s slots %d}, want {%s %s %s %s %d}",
				j.ID, j.Name, j.State, j.Project, j.Pool, j.Slots, s.name, s.state, s.project, s.pool, s.slots)
		}
		if j.Tasks != s.tasks {
			t.Errorf("listed job %d (%s) has tasks %d, want %d", j.ID, s.name, j.Tasks, s.tasks)
		}
	}
	var failed []api.Job
	c.cliJSON(&failed, "jobs", "--state", "failed")
	if len(failed) != 1 || failed[0].ID != ids["exit3"] {
		t.Errorf("allot jobs --state failed = %v, want only job %d", failed, ids["exit3"])
	}
}

func fmtCode(p *int) string {
	if p == nil {
		return "none"
	}
	return strconv.Itoa(*p)
}

// TestDistributed runs a task wider than one node: it runs as a gang of
// one part per node, each part sees its rank, the node count and its own
// node's GPUs, and the output of every part comes back.
func TestDistributed(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: twoPools, agents: []agentSpec{
		{name: "gpu-1", pool: "default", gpus: 4},
		{name: "gpu-2", pool: "default", gpus: 4},
	}})
	id := c.submit("distributed", `name: distributed
resources: {slots: 8}
entrypoint: 'echo "rank $ALLOT_NODE_RANK of $ALLOT_NUM_NODES on [$CUDA_VISIBLE_DEVICES]"; echo "rank $ALLOT_NODE_RANK done"'
`)
	if j := c.waitEnded(id); j.State != "completed" {
		t.Fatalf("distributed job: %s", describeJob(c.show(id)))
	}
	j := c.show(id)
	a := j.TaskList[0].Attempts[0]
	nodes := map[string]bool{}
	for _, p := range a.Placement {
		nodes[p.Node] = true
		if len(p.GPUs) != 4 {
			t.Errorf("part on %s holds GPUs %v, want 4", p.Node, p.GPUs)
		}
	}
	if len(a.Placement) != 2 || !nodes["gpu-1"] || !nodes["gpu-2"] {
		t.Fatalf("placement %v, want one part on each of gpu-1 and gpu-2", a.Placement)
	}
	out := c.cliOK("job", "logs", strconv.FormatInt(id, 10))
	for _, want := range []string{"rank 0 of 2 on [0,1,2,3]", "rank 1 of 2 on [0,1,2,3]", "rank 0 done", "rank 1 done"} {
		if !strings.Contains(out, want) {
			t.Errorf("allot job logs lacks %q (lines of the parts of one attempt collide):\n%s", want, out)
		}
	}
}
