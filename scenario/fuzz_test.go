package scenario

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	more, _ := filepath.Glob("testdata/*/*.yaml")
	for _, name := range append(files, more...) {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, src := range []string{
		"",
		"~",
		"- a\n- b\n",
		onePool,
		onePool + "jobs: [{name: j, duration: 1h30m, time_limit: 90.0}]",
		onePool + "jobs: {trace: t.swf}\nevents: [{at: 1, kill: x}]",
		onePool + "jobs:\n  - &a {name: a, tasks: 3}\n  - {<<: *a, name: b}\n",
		"a: &a {<<: *a}\n",
		"pools: &p [*p]\n",
		pools + "  - {name: gpu, policy: fifo, nodes: [{name: z, count: 3, slots: 1}]}\n",
		jobs + "    slots: -3\n",
		jobs + "events:\n  - {at: 1h, kill: asha, set_weight: {job: asha, weight: 0}}\n",
		"pools:\n  - name: a\n   policy: fifo\n",
		"pools: [{name: a, policy: fifo, nodes: [{name: n, count: 999, slots: 1}]}]",
		"pools: !!map {a: !!int x}\n",
		"{? [a]: b}\n",
		pools + "---\n---\n",
		quotaPools + "jobs: [{name: j, kind: notebook, project: vision}, {name: k, project: nlp, priority_class: low}]\n",
		osmoPools + "jobs: [{name: j, pool: pool2, priority_class: LOW, checkpoint_every: 1m, max_retries: 0}]\n",
		"projects: [{name: a, parent: b, quota: 1}, {name: b, parent: a, quota: 1}]\n" + onePool,
		withQOS + "  - {name: j, qos: emergency, licenses: {matlab: 2}}\n",
		mfJobs,
		failJob + "    duration: 1h\n    runs: [{task: 0, work: 2h}]\n    stops: [{task: 1, after: 10m}]\n    fails: [{task: 0, after: 1m}]\n",
		asha + "    stops: [{task: 2, after: 30m}]\n    runs: [{task: 1, work: 1m}]\n",
		failJob + "    lost: [{task: 0, after: 5}]\n    agent_preempted: [{task: 0, after: 9}, {task: 1, attempt: 2, after: 0}]\n",
		failJob + "    checkpoints: [{task: 0, after: 5}, {task: 0, nth: 2, after: 9}, {task: 1, attempt: 2, nth: 1, after: 0}]\n",
		jobs + "events:\n  - {at: 1h, node_reshape: {node: g-1, slots: 2, gpu: a100, labels: {rack: r2}}}\n  - {at: 2h, node_reshape: {node: c, slots: 9}}\n",
		mfJobs + "  - {name: e, pool: mf, account: biology, user: u, min_slots: 2, max_slots: 16, topology: prefer}\n",
		mfPools + "  - {name: x, parent: x}\njobs: [{name: j, pool: mf, account: x, nice: -3}]\n",
		"pools: [{name: a, policy: multifactor, backfill: true, reservations: conservative, multifactor: {age: 1, max_age: 1h}, nodes: [{name: n, slots: 2}]}]\n",
	} {
		f.Add([]byte(src))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			if s != nil {
				t.Errorf("Parse returned a scenario along with an error")
			}
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Errorf("error does not start with the file name: %v", err)
			}
			return
		}
		checkInvariants(t, s)
		checkMarshal(t, s)
	})
}

// checkMarshal: a parsed scenario reads back from Marshal's output to
// the same values.
func checkMarshal(t *testing.T, s *Scenario) {
	t.Helper()
	out, err := Marshal(s)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	back, err := Parse(s.Name, out)
	if err != nil {
		t.Fatalf("Marshal's output does not parse: %v\n%s", err, out)
	}
	clearLines(reflect.ValueOf(s))
	clearLines(reflect.ValueOf(back))
	if !reflect.DeepEqual(s, back) {
		t.Errorf("round trip changed the scenario\n got: %.2000v\nwant: %.2000v\n%.2000s", back, s, out)
	}
}

// poolInvariants checks the pools and returns each pool's capacity and
// whether it is a quota pool.
func poolInvariants(t *testing.T, s *Scenario) (map[string]int, map[string]bool) {
	t.Helper()
	capacity := map[string]int{}
	nodes := map[string]bool{}
	for _, p := range s.Pools {
		if !slices.Contains(policies, p.Policy) || !slices.Contains(placements, p.Placement) {
			t.Errorf("pool %q: bad policy or placement: %+v", p.Name, p)
		}
		if (p.Policy == PolicyBackfill || p.Policy == PolicyMultifactor && p.Backfill) != (p.Reservations != "") {
			t.Errorf("pool %q: reservations %q with policy %s", p.Name, p.Reservations, p.Policy)
		}
		if (p.Policy == PolicyMultifactor) != (p.Multifactor != Multifactor{}) || p.MinRunTime < 0 {
			t.Errorf("pool %q: policy %s with multifactor weights %+v, min run time %d", p.Name, p.Policy, p.Multifactor, p.MinRunTime)
		}
		if (len(p.Nodes) == 0) != (p.SharesNodesWith != "") {
			t.Errorf("pool %q has %d nodes and shares those of %q", p.Name, len(p.Nodes), p.SharesNodesWith)
		}
		if p.Quota < -1 || (p.Quota >= 0 || p.SharesNodesWith != "") && p.Policy != PolicyQuota || p.MaxRetries < -1 {
			t.Errorf("pool %q: quota %d, policy %s, max_retries %d", p.Name, p.Quota, p.Policy, p.MaxRetries)
		}
		for _, n := range p.Nodes {
			if nodes[n.Name] || n.Slots < 1 {
				t.Errorf("node %+v duplicated or empty", n)
			}
			nodes[n.Name] = true
			capacity[p.Name] = addSaturating(capacity[p.Name], n.Slots)
		}
	}
	quotaPool := map[string]bool{}
	for _, p := range s.Pools {
		if p.SharesNodesWith != "" {
			capacity[p.Name] = capacity[p.SharesNodesWith]
		}
		quotaPool[p.Name] = p.Policy == PolicyQuota
	}
	return capacity, quotaPool
}

// accountInvariants checks the accounts and returns their names.
func accountInvariants(t *testing.T, s *Scenario) map[string]bool {
	t.Helper()
	accounts := map[string]bool{}
	for _, a := range s.Accounts {
		if accounts[a.Name] || !(a.Shares >= 0) || !(a.Usage >= 0) {
			t.Errorf("account breaks an invariant: %+v", a)
		}
		accounts[a.Name] = true
	}
	for _, a := range s.Accounts {
		if a.Parent != "" && !accounts[a.Parent] {
			t.Errorf("account %q has an unknown parent %q", a.Name, a.Parent)
		}
	}
	return accounts
}

// checkInvariants asserts what doc.go promises of a successful Parse.
func checkInvariants(t *testing.T, s *Scenario) {
	t.Helper()
	if len(s.Pools) == 0 {
		t.Fatal("no pools")
	}
	capacity, quotaPool := poolInvariants(t, s)
	licenses, qos := map[string]int{}, map[string]bool{}
	for _, l := range s.Licenses {
		licenses[l.Name] = l.Total
	}
	for _, q := range s.QOS {
		qos[q.Name] = true
	}
	accounts := accountInvariants(t, s)
	projects := map[string]bool{}
	for _, p := range s.Projects {
		projects[p.Name] = true
		if p.Quota < 0 || p.OverQuotaWeight < 0 || p.Limit != 0 && p.Limit < p.Quota {
			t.Errorf("project breaks an invariant: %+v", p)
		}
	}
	for _, j := range s.Jobs {
		c, ok := capacity[j.Pool]
		if !ok || j.Slots > c || j.Slots < 0 || j.Tasks < 1 || j.MaxConcurrent < 1 ||
			j.Priority < MinPriority || j.Priority > MaxPriority || !(j.Weight > 0) ||
			j.Duration < -1 || j.TimeLimit < 0 || j.Submit < 0 || !slices.Contains(kinds, j.Kind) {
			t.Errorf("job breaks an invariant: %+v", j)
		}
		if j.PriorityClass != classOf(j.Priority) || j.PriorityClass == ClassLow && !j.Preemptible ||
			j.Interactive && j.Preemptible || quotaPool[j.Pool] && j.Project == "" {
			t.Errorf("job breaks a quota invariant: %+v", j)
		}
		if j.MinSlots == 0 && j.MaxSlots != 0 || j.MinSlots != 0 && (j.MinSlots < 1 || j.MinSlots > j.Slots || j.MaxSlots != j.Slots) {
			t.Errorf("job breaks an elastic invariant: %+v", j)
		}
		if c := j.Charged(); c != "" && !accounts[c] || j.Topology != "" && !slices.Contains(topologies, j.Topology) {
			t.Errorf("job %q charges account %q (declared %v), topology %q", j.Name, c, accounts[c], j.Topology)
		}
		for name, n := range j.Licenses {
			if total, ok := licenses[name]; !ok || n < 1 || n > total {
				t.Errorf("job %q holds %d of license %q (total %d, declared %v)", j.Name, n, name, total, ok)
			}
		}
		if j.QOS != "" && !qos[j.QOS] {
			t.Errorf("job %q names QOS %q, which the file does not declare", j.Name, j.QOS)
		}
		if j.Project != "" && !projects[j.Project] && !quotaPool[j.Project] {
			t.Errorf("job %q names project %q, which is neither a project nor a pool with a quota", j.Name, j.Project)
		}
	}
	for _, e := range s.Events {
		if !slices.Contains(eventKinds, e.Kind) || e.At < 0 || (e.Job == "") != e.Kind.OfNode() || (e.Node == "") == e.Kind.OfNode() {
			t.Errorf("event breaks an invariant: %+v", e)
		}
		if sh := e.Shape; (sh != nil) != (e.Kind == EventNodeReshape) || sh != nil && (sh.Slots < 1 || sh.Name != e.Node) {
			t.Errorf("event breaks a node_reshape invariant: %+v (shape %+v)", e, sh)
		}
		if e.Pool != "" && (e.Kind != EventNodeReshape || !slices.ContainsFunc(s.Pools, func(p Pool) bool { return p.Name == e.Pool && p.SharesNodesWith == "" })) {
			t.Errorf("event moves a node to no pool of its own nodes: %+v", e)
		}
	}
}
