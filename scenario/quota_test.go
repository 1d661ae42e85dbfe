package scenario

import (
	"reflect"
	"testing"
)

// quotaPools is a Run:ai-style quota pool of 8 slots (4 h100, 4 a100)
// with a department and two projects; it takes lines 1-12, so a job
// section added after it starts on line 13 and its first job on line 14.
const quotaPools = `pools:
  - name: gpu
    policy: quota
    nodes:
      - {name: h, slots: 4, gpu: h100}
      - {name: a, slots: 4, gpu: a100}
projects:
  - {name: dept, quota: 6}
  - {name: vision, parent: dept, quota: 4, limit: 6}
  - {name: nlp, parent: dept, quota: 2, over_quota_weight: 1}
  - {name: solo, quota: 0}
  - {name: cap, quota: 1, limit: 2}
`

// osmoPools are two OSMO pools sharing 4 slots with quotas 2 and 2, and a
// priority pool; lines 1-13, so a job section's first job is on line 15.
const osmoPools = `pools:
  - name: pool1
    policy: quota
    quota: 2
    on_preempt: reschedule
    max_retries: 3
    checkpoint_cost: 1m
    nodes: [{name: n, slots: 4, gpu: h100}]
  - name: pool2
    quota: 2
    shares_nodes_with: pool1
    on_preempt: fail
  - {name: prio, policy: priority, preemption: true, nodes: [{name: p, slots: 8}]}
`

// withQOS is pools plus QOS levels and licenses, and a jobs section whose
// first job is on line 12.
const withQOS = pools + `qos: [{name: normal}, {name: emergency, priority: 100, preempt: true}]
licenses: {matlab: 4, ansys: 2}
jobs:
`

// projectQOS is pools plus projects with qos lists and QOS levels, and a
// jobs section whose first job is on line 12.
const projectQOS = pools + `projects: [{name: lab, quota: 0, qos: [normal]}, {name: strict, quota: 0, qos: [emergency]}, {name: sub, parent: strict, quota: 0}]
qos: [{name: normal}, {name: emergency, priority: 100, preempt: true}]
jobs:
`

func TestParseQuota(t *testing.T) {
	runGoodCases(t, []goodCase{
		// Exit actions in pools that never preempt: a lost attempt counts
		// as a retry there (trial 2026-11-29d D10).
		{"exit actions where nothing preempts", "pools: [{name: a, policy: backfill, on_preempt: fail, nodes: [{name: n, slots: 1}]}]\n" +
			"jobs:\n  - {name: j, kind: experiment, pool: a, max_retries: 0}\n", func(t *testing.T, s *Scenario) {
			if s.Pools[0].OnPreempt != OnPreemptFail || s.Jobs[0].MaxRetries != 0 {
				t.Errorf("pool on_preempt %q, job max_retries %d; want fail, 0", s.Pools[0].OnPreempt, s.Jobs[0].MaxRetries)
			}
		}},
		// And on a job that is not preemptible: a start_lost or
		// agent_preempted end counts as a retry of it too, as the live
		// owner's requeue does.
		{"exit actions on a job never preempted", quotaPools +
			"jobs:\n  - {name: j, project: nlp, on_preempt: fail}\n  - {name: k, project: nlp, preemptible: false, max_retries: 0}\n",
			func(t *testing.T, s *Scenario) {
				j, k := s.Jobs[0], s.Jobs[1]
				if j.Preemptible || k.Preemptible || j.OnPreempt != OnPreemptFail || k.MaxRetries != 0 {
					t.Errorf("j %v %q, k %v max_retries %d; want not preemptible, fail, and max_retries 0",
						j.Preemptible, j.OnPreempt, k.Preemptible, k.MaxRetries)
				}
			}},
		{"projects", quotaPools, func(t *testing.T, s *Scenario) {
			want := []Project{
				{Name: "dept", Quota: 6, OverQuotaWeight: 6, Line: 8},
				{Name: "vision", Parent: "dept", Quota: 4, OverQuotaWeight: 4, Limit: 6, Line: 9},
				{Name: "nlp", Parent: "dept", Quota: 2, OverQuotaWeight: 1, Line: 10},
				{Name: "solo", Quota: 0, OverQuotaWeight: 1, Line: 11},
				{Name: "cap", Quota: 1, OverQuotaWeight: 1, Limit: 2, Line: 12},
			}
			if !reflect.DeepEqual(s.Projects, want) {
				t.Errorf("Projects = %+v\nwant %+v", s.Projects, want)
			}
		}},
		{"run:ai jobs", quotaPools + `jobs:
  - {name: nb, kind: notebook, project: vision, user: ann}
  - {name: train, kind: experiment, project: vision, tasks: 8, checkpoint_every: 10m, gpu: a100}
  - {name: low, project: nlp, priority_class: low}
  - {name: cmd, project: nlp, slots: 2}
  - {name: quiet, kind: shell, project: nlp, interactive: false}
`, func(t *testing.T, s *Scenario) {
			nb, train, low, cmd, quiet := s.Jobs[0], s.Jobs[1], s.Jobs[2], s.Jobs[3], s.Jobs[4]
			if !nb.Interactive || nb.Preemptible || nb.User != "ann" || nb.Project != "vision" {
				t.Errorf("notebook = %+v, want interactive, not preemptible, user ann", nb)
			}
			if train.Interactive || !train.Preemptible || train.CheckpointEvery != 600 || train.GPU != "a100" {
				t.Errorf("train = %+v", train)
			}
			if low.Priority != 80 || low.PriorityClass != ClassLow || !low.Preemptible || low.Interactive {
				t.Errorf("LOW job = %+v, want priority 80, preemptible", low)
			}
			if cmd.Preemptible || cmd.Interactive || cmd.OnPreempt != OnPreemptReschedule || cmd.MaxRetries != -1 {
				t.Errorf("command = %+v", cmd)
			}
			if quiet.Interactive {
				t.Errorf("shell with interactive: false = %+v", quiet)
			}
		}},
		{"osmo pools", osmoPools + `jobs:
  - {name: wf1, pool: pool1, priority_class: NORMAL}
  - {name: wf2, pool: pool2, priority_class: LOW, kind: experiment}
  - {name: wf3, pool: pool2, priority_class: HIGH, kind: experiment}
  - {name: wf4, pool: pool1, priority_class: LOW, on_preempt: fail, max_retries: 1}
`, func(t *testing.T, s *Scenario) {
			p2 := s.Pools[1]
			if p2.Policy != PolicyQuota || p2.Placement != PlacementBinpack || p2.CheckpointCost != 60 || p2.Quota != 2 ||
				p2.SharesNodesWith != "pool1" || len(p2.Nodes) != 0 || p2.OnPreempt != OnPreemptFail {
				t.Errorf("pool2 = %+v", p2)
			}
			wf1, wf2, wf3, wf4 := s.Jobs[0], s.Jobs[1], s.Jobs[2], s.Jobs[3]
			if wf1.Project != "pool1" || wf1.Preemptible || wf1.MaxRetries != 3 || wf1.OnPreempt != OnPreemptReschedule {
				t.Errorf("wf1 = %+v, want project pool1, not preemptible, the pool's exit actions", wf1)
			}
			if wf2.Project != "pool2" || !wf2.Preemptible || wf2.OnPreempt != OnPreemptFail || wf2.MaxRetries != -1 {
				t.Errorf("wf2 = %+v", wf2)
			}
			if wf3.Priority != 10 || wf3.Preemptible {
				t.Errorf("wf3 = %+v: a HIGH experiment in an OSMO pool is not preemptible", wf3)
			}
			if wf4.OnPreempt != OnPreemptFail || wf4.MaxRetries != 1 {
				t.Errorf("wf4 = %+v", wf4)
			}
		}},
		{"qos and licenses", withQOS + "  - {name: j, qos: emergency, licenses: {matlab: 2, ansys: 1}}\n  - {name: k}\n", func(t *testing.T, s *Scenario) {
			wantQOS := []QOS{{Name: "normal", Line: 9}, {Name: "emergency", Priority: 100, Preempt: true, Line: 9}}
			wantLic := []License{{Name: "matlab", Total: 4, Line: 10}, {Name: "ansys", Total: 2, Line: 10}}
			if !reflect.DeepEqual(s.QOS, wantQOS) || !reflect.DeepEqual(s.Licenses, wantLic) {
				t.Errorf("QOS %+v, licenses %+v", s.QOS, s.Licenses)
			}
			if j := s.Jobs[0]; j.QOS != "emergency" || !reflect.DeepEqual(j.Licenses, map[string]int{"matlab": 2, "ansys": 1}) {
				t.Errorf("job = %+v", j)
			}
			if j := s.Jobs[1]; j.QOS != "" || j.Licenses != nil {
				t.Errorf("job without qos or licenses = %+v", j)
			}
		}},
		{"priority within its class", onePool + "jobs: [{name: j, priority: 25, priority_class: high}]", func(t *testing.T, s *Scenario) {
			if j := s.Jobs[0]; j.Priority != 25 || j.PriorityClass != ClassHigh {
				t.Errorf("job = %+v", j)
			}
		}},
		{"priority alone sets the class", onePool + "jobs: [{name: j, priority: 70}]", func(t *testing.T, s *Scenario) {
			if j := s.Jobs[0]; j.PriorityClass != ClassLow || !j.Preemptible {
				t.Errorf("job = %+v, want LOW and preemptible", j)
			}
		}},
		{"project in a non-quota pool", onePool + "projects: [{name: nlp, quota: 1}]\njobs: [{name: j, project: nlp}]", func(t *testing.T, s *Scenario) {
			if s.Jobs[0].Project != "nlp" {
				t.Errorf("Project = %q", s.Jobs[0].Project)
			}
		}},
	})
}

func TestParseErrorsQuota(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"project without quota", quotaPools + "  - {name: x}\n", 13, `projects[5] "x": missing required field "quota"`},
		{"negative quota", quotaPools + "  - {name: x, quota: -1}\n", 13, `projects[5] "x": quota: expected an integer >= 0, got -1`},
		{"negative weight", quotaPools + "  - {name: x, quota: 1, over_quota_weight: -2}\n", 13, `over_quota_weight: expected a number > 0, got -2`},
		// As the master's configuration (trial 2026-11-29g G3).
		{"zero weight", quotaPools + "  - {name: x, quota: 1, over_quota_weight: 0}\n", 13, `projects[5] "x": over_quota_weight: expected a number > 0, got 0`},
		{"limit zero", quotaPools + "  - {name: x, quota: 1, limit: 0}\n", 13, `limit: expected an integer >= 1, got 0`},
		// The cluster spec's messages, shared with the master's
		// configuration: the limit's says why it is wrong, the
		// duplicate's path names the entry.
		{"limit below quota", quotaPools + "  - {name: x, quota: 3, limit: 2}\n", 13, `limit: limit 2 is below the quota 3; a project may always use its quota`},
		{"duplicate project", quotaPools + "  - {name: nlp, quota: 1}\n", 13, `projects[5] "nlp": name: duplicate project name "nlp" (first at line 10)`},
		{"unknown parent", quotaPools + "  - {name: x, parent: dpt, quota: 1}\n", 13, `parent: unknown project "dpt"; did you mean "dept"?`},
		{"own parent", quotaPools + "  - {name: x, parent: x, quota: 1}\n", 13, `parent: a project cannot be its own parent`},
		{"cycle", quotaPools + "  - {name: x, parent: y, quota: 1}\n  - {name: y, parent: x, quota: 1}\n", 13,
			// The cluster spec's message names the projects on the cycle.
			`projects[5] "x": parent: the parents form a cycle: x → y → x`},
		{"children over the parent's quota", quotaPools + "  - {name: more, parent: dept, quota: 1}\n", 8,
			`projects[0] "dept": quota: the sub-projects' quotas add up to 7 (vision 4, nlp 2, more 1), more than this project's quota of 6`},
		{"unknown project field", quotaPools + "  - {name: x, quota: 1, weight: 2}\n", 13, `unknown field "weight"`},
		{"project named like a quota pool", osmoPools + "projects: [{name: pool2, quota: 1}]\n", 14,
			`name: pool "pool2" has a quota, which makes it a project of that name already (line 9)`},
		{"job without project", quotaPools + "jobs:\n  - {name: j}\n", 14, `jobs[0] "j": project: missing: jobs in quota pool "gpu" need a project`},
		{"unknown job project", quotaPools + "jobs:\n  - {name: j, project: nlq}\n", 14, `project: unknown project "nlq"; did you mean "nlp"?`},
		{"project without a projects section", jobs + "    project: x\n", 12, `project: unknown project "x": the file has no projects section`},
		{"job in a parent project", quotaPools + "jobs:\n  - {name: j, project: dept}\n", 14, `project "dept" has projects under it`},
		{"guaranteed task beyond quota", quotaPools + "jobs:\n  - {name: j, kind: notebook, project: nlp, slots: 3}\n", 14,
			`slots: a task of 3 slots can never run within project "nlp"'s quota of 2, and this job may only run within quota (it is interactive)`},
		{"task beyond a limit", quotaPools + "jobs:\n  - {name: j, kind: experiment, project: cap, slots: 3}\n", 14,
			`slots: a task of 3 slots can never run under project "cap"'s limit of 2`},
		{"interactive and preemptible", quotaPools + "jobs:\n  - {name: j, project: nlp, interactive: true, preemptible: true}\n", 14,
			`interactive: interactive work is never preempted, but this job is preemptible`},
		{"interactive LOW", quotaPools + "jobs:\n  - {name: j, project: nlp, interactive: true, priority_class: LOW}\n", 14,
			`interactive: interactive work is never preempted`},
		{"interactive outside quota pools", jobs + "    preemptible: false\n    interactive: true\n", 13,
			`interactive: only quota pools treat interactive work apart, and pool "gpu"'s policy is priority`},
		{"LOW not preemptible", jobs + "    priority_class: LOW\n    preemptible: false\n", 13, `LOW-class work (priority 60-99) is always preemptible`},
		{"priority outside its class", jobs + "    priority: 42\n    priority_class: LOW\n", 13,
			`priority_class: LOW covers priorities 60-99, but priority is 42 (give one or the other)`},
		{"unknown class", jobs + "    priority_class: urgent\n", 12, `priority_class: unknown priority class "urgent" (expected one of HIGH, NORMAL, LOW)`},
		{"unknown gpu", quotaPools + "jobs:\n  - {name: j, project: nlp, gpu: h10}\n", 14, `gpu: pool "gpu" has no node of GPU type "h10"; did you mean "h100"? (types: a100, h100)`},
		{"gpu in a pool without types", jobs + "    gpu: h100\n", 12, `gpu: pool "gpu" has no node of GPU type "h100": its nodes give no gpu`},
		{"too big for its gpu type", quotaPools + "jobs:\n  - {name: j, kind: experiment, project: vision, gpu: h100, slots: 5}\n", 14,
			`slots: a task needs 5 slots, but pool "gpu" has only 4 of GPU type "h100"`},
		{"checkpoint_every zero", jobs + "    checkpoint_every: 0\n", 12, `checkpoint_every: expected a duration > 0, got 0`},
		{"checkpoint_every on a job neither preemptible nor elastic", pools + "jobs:\n  - {name: j, pool: cpu, checkpoint_every: 1h}\n", 10,
			`checkpoint_every: this job is neither preemptible nor elastic, so checkpoint_every would never apply`},
		{"unknown on_preempt", jobs + "    on_preempt: retry\n", 12, `on_preempt: unknown on_preempt "retry" (expected one of reschedule, fail)`},
		{"negative max_retries", jobs + "    max_retries: -1\n", 12, `max_retries: expected an integer >= 0, got -1`},
		{"quota on a priority pool", "pools: [{name: a, policy: priority, quota: 2, nodes: [{name: n, slots: 4}]}]", 1,
			`quota: only quota pools take a quota, and this pool's policy is priority`},
		{"project in a pool with a quota", osmoPools + "jobs:\n  - {name: j, pool: pool2, project: x}\n", 15,
			`project: jobs in pool "pool2" count toward the pool's own quota`},
		{"preemptible NORMAL in an OSMO pool", osmoPools + "jobs:\n  - {name: j, pool: pool1, preemptible: true}\n", 15,
			`preemptible: in pool "pool1", which has a quota of its own, only LOW-class work is preemptible`},
		{"NORMAL beyond the pool quota", osmoPools + "jobs:\n  - {name: j, pool: pool2, slots: 3}\n", 15,
			`slots: a task of 3 slots can never run within pool "pool2"'s quota of 2`},
		{"sharing pool with nodes", osmoPools + "  - {name: p3, quota: 0, shares_nodes_with: pool1, nodes: [{name: z, slots: 1}]}\n", 14,
			`pools[3] "p3": nodes: this pool shares the nodes of pool "pool1" and takes its nodes from there`},
		{"sharing pool with a policy", osmoPools + "  - {name: p3, quota: 0, shares_nodes_with: pool1, policy: quota}\n", 14,
			`policy: this pool shares the nodes of pool "pool1" and takes its policy from there`},
		{"sharing an unknown pool", osmoPools + "  - {name: p3, quota: 0, shares_nodes_with: pool}\n", 14,
			`shares_nodes_with: unknown pool "pool"`},
		{"sharing a sharing pool", osmoPools + "  - {name: p3, quota: 0, shares_nodes_with: pool2}\n", 14,
			`shares_nodes_with: pool "pool2" shares the nodes of pool "pool1" itself; name "pool1"`},
		{"sharing its own nodes", osmoPools + "  - {name: p3, quota: 0, shares_nodes_with: p3}\n", 14, `a pool cannot share its own nodes`},
		{"sharing a priority pool", osmoPools + "  - {name: p3, quota: 0, shares_nodes_with: prio}\n", 14,
			`pools that share nodes divide them by quota, so pool "prio" needs policy: quota, not priority`},
		{"sharing pool without quota", osmoPools + "  - {name: p3, shares_nodes_with: pool1}\n", 14,
			`pools[3] "p3": missing required field "quota": a pool that shares nodes has a quota within them`},
		{"owner without quota", "pools:\n  - {name: a, policy: quota, nodes: [{name: n, slots: 4}]}\n  - {name: b, quota: 1, shares_nodes_with: a}\n", 2,
			`pools[0] "a": missing required field "quota": other pools share this pool's nodes`},
		{"quotas beyond the shared capacity", osmoPools + "  - {name: p3, quota: 1, shares_nodes_with: pool1}\n", 2,
			`pools[0] "pool1": quota: the quotas of the pools sharing these nodes add up to 5, more than their 4 slots`},
		{"trace into a quota pool", quotaPools + "jobs: {trace: x.swf}\n", 13, `jobs: trace: not supported yet`},
		{"qos without a qos section", jobs + "    qos: emergency\n", 12, `qos: unknown QOS "emergency": the file has no qos section`},
		{"unknown qos", withQOS + "  - {name: j, qos: emergncy}\n", 12, `qos: unknown QOS "emergncy"; did you mean "emergency"? (QOS: normal, emergency)`},
		{"qos the project may not use", projectQOS + "  - {name: j, project: lab, qos: emergency}\n", 12,
			`jobs[0] "j": qos: project lab may not use QOS "emergency" (its qos: normal)`},
		{"default qos the project may not use", projectQOS + "  - {name: j, project: sub}\n", 12,
			`jobs[0] "j": qos: project sub may not use QOS "normal" (the qos of its parent strict: emergency); the job names none, so it would take the first QOS level, "normal": name one the project may use`},
		{"qos in a fifo pool", withQOS + "  - {name: j, pool: cpu, qos: emergency}\n", 12, `qos: only priority and multifactor pools use a job's QOS`},
		{"duplicate qos", pools + "qos: [{name: a}, {name: a}]\n", 9, `qos[1] "a": name: duplicate QOS name "a"`},
		{"qos priority negative", pools + "qos: [{name: a, priority: -1}]\n", 9, `qos[0] "a": priority: expected an integer >= 0`},
		{"license without a licenses section", jobs + "    licenses: {matlab: 2}\n", 12, `licenses: unknown license "matlab": the file has no licenses section`},
		{"unknown license", withQOS + "  - {name: j, licenses: {matlb: 1}}\n", 12, `licenses: unknown license "matlb"; did you mean "matlab"? (licenses: matlab, ansys)`},
		{"more licenses than exist", withQOS + "  - {name: j, licenses: {ansys: 3}}\n", 12, `licenses: a task needs 3 "ansys" licenses, but there are only 2 in all`},
		{"license count zero", jobs + "    licenses: {matlab: 0}\n", 12, `licenses: matlab: expected an integer >= 1, got 0`},
		{"license total negative", pools + "licenses: {matlab: -1}\n", 9, `licenses: matlab: expected an integer >= 0, got -1`},
		{"min_slots above slots", jobs + "    min_slots: 2\n", 12, `min_slots: min_slots 2 is more than the 1 slots a task asks for`},
		{"max_slots below min_slots", jobs + "    min_slots: 4\n    max_slots: 2\n", 12, `min_slots: min_slots 4 is more than the 2 slots a task asks for`},
		{"max_slots and slots disagree", jobs + "    slots: 4\n    min_slots: 1\n    max_slots: 2\n", 14, `max_slots: slots 4 and max_slots 2 both give the size a task asks for; give one`},
		{"max_slots without min_slots", jobs + "    max_slots: 2\n", 12, `max_slots: max_slots makes a job elastic only with min_slots`},
		{"max_slots beyond the pool", jobs + "    min_slots: 1\n    max_slots: 32\n", 13, `max_slots: a task needs 32 slots, but pool "gpu" has only 16 in all`},
	})
}
