package scenario

import (
	"reflect"
	"testing"
	"time"
)

// mfPools is a multifactor pool with every weight, a priority pool, QOS,
// decay and accounts, on lines 1-26: an account or a jobs section added
// after it starts on line 27.
const mfPools = `pools:
  - name: mf
    policy: multifactor
    preemption: true
    backfill: true
    min_run_time: 10m
    multifactor:
      age: 1000
      max_age: 168h
      fair_share: 10000
      fair_share_mode: fair_tree
      job_size: 500
      favor_small: true
      qos: 100000
      pool: 10
      pool_priority: 2
    nodes: [{name: n, count: 2, slots: 8, labels: {switch: s1}}]
  - name: prio
    policy: priority
    nodes: [{name: p, slots: 4}]
qos: [{name: normal}, {name: emergency, priority: 100, preempt: true}]
decay: {period: 12h, per_period: 0.5}
accounts:
  - {name: physics, shares: 60}
  - {name: phys-part, parent: physics, shares: 1, usage: 0.25}
  - {name: biology, shares: 40}
`

// mfJobs adds jobs to mfPools; the first job is on line 28.
const mfJobs = mfPools + `jobs:
  - {name: a, pool: mf, account: phys-part, user: markov, qos: emergency, nice: -5}
`

func TestParseMultifactor(t *testing.T) {
	s, err := Parse("mf.yaml", []byte(mfJobs+`  - {name: b, pool: mf, account: phys-part, user: julie, slots: 16, topology: required}
  - {name: c, pool: mf, account: biology, user: markov, min_slots: 2, max_slots: 8, preemptible: true, checkpoint_every: 1h}
  - {name: d, pool: prio, kind: experiment, qos: emergency, on_preempt: fail}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := Multifactor{Age: 1000, MaxAge: 168 * 3600, FairShare: 10000, FairShareMode: FairShareTree, JobSize: 500,
		FavorSmall: true, QOS: 100000, Pool: 10, PoolPriority: 2}
	if got := s.Pools[0].Multifactor; !reflect.DeepEqual(got, want) {
		t.Errorf("multifactor = %+v, want %+v", got, want)
	}
	if pl := s.Pools[0]; !pl.Backfill || pl.Reservations != ReservationsEasy || !pl.Preemption || pl.MinRunTime != 10*time.Minute {
		t.Errorf("pool = %+v, want backfill with easy reservations, preemption and a 10m minimum run time", pl)
	}
	if s.Pools[1].Multifactor != (Multifactor{}) {
		t.Errorf("priority pool has multifactor weights %+v", s.Pools[1].Multifactor)
	}
	accounts := []Account{
		{Name: "physics", Shares: 60, Line: 24},
		{Name: "phys-part", Parent: "physics", Shares: 1, Usage: 0.25, Line: 25},
		{Name: "biology", Shares: 40, Line: 26},
		{Name: "phys-part/markov", Parent: "phys-part", Shares: 1, User: true, Line: 28},
		{Name: "phys-part/julie", Parent: "phys-part", Shares: 1, User: true, Line: 29},
		{Name: "biology/markov", Parent: "biology", Shares: 1, User: true, Line: 30},
	}
	if !reflect.DeepEqual(s.Accounts, accounts) {
		t.Errorf("accounts =\n%+v\nwant\n%+v", s.Accounts, accounts)
	}
	if want := (Decay{Period: 12 * 3600, PerPeriod: 0.5, Line: 22}); s.Decay != want {
		t.Errorf("decay = %+v, want %+v", s.Decay, want)
	}
	a, b, c, d := s.Jobs[0], s.Jobs[1], s.Jobs[2], s.Jobs[3]
	if a.Account != "phys-part" || a.Charged() != "phys-part/markov" || a.Nice != -5 || a.QOS != "emergency" {
		t.Errorf("job a = %+v", a)
	}
	if b.Topology != TopologyRequired || b.Slots != 16 {
		t.Errorf("job b = %+v, want a required-topology gang of 16", b)
	}
	if c.MinSlots != 2 || c.MaxSlots != 8 || c.Slots != 8 || c.Charged() != "biology/markov" {
		t.Errorf("job c = %+v, want elastic 2..8 charging biology/markov", c)
	}
	if d.OnPreempt != OnPreemptFail || d.Charged() != "" {
		t.Errorf("job d = %+v: a priority pool with a preempting QOS preempts, so on_preempt applies", d)
	}
}

func TestParseDecayDefaults(t *testing.T) {
	s, err := Parse("d.yaml", []byte(`pools:
  - {name: mf, policy: multifactor, multifactor: {fair_share: 1, fair_share_mode: classic}, nodes: [{name: n, slots: 4}]}
accounts: [{name: jack}]
decay: {half_life: 48h}
jobs: [{name: j, account: jack}]
`))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Decay{Period: 86400, HalfLife: 48 * 3600, Line: 4}); s.Decay != want {
		t.Errorf("decay = %+v, want %+v", s.Decay, want)
	}
	if s.Accounts[0].Shares != 1 || s.Jobs[0].Charged() != "jack" {
		t.Errorf("accounts %+v, job %+v: shares default to 1 and a job without a user charges its account", s.Accounts, s.Jobs[0])
	}
	s, err = Parse("d.yaml", []byte(`pools:
  - {name: mf, policy: multifactor, multifactor: {fair_share: 1, fair_share_mode: classic}, nodes: [{name: n, slots: 4}]}
accounts: [{name: jack}]
`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Decay != DefaultDecay {
		t.Errorf("decay = %+v, want the default %+v", s.Decay, DefaultDecay)
	}
}

func TestParseErrorsMultifactor(t *testing.T) {
	mf := func(weights string) string {
		return "pools:\n  - name: a\n    policy: multifactor\n    multifactor: " + weights + "\n    nodes: [{name: n, slots: 4}]\n"
	}
	runErrorCases(t, []errorCase{
		{"no weights", "pools: [{name: a, policy: multifactor, nodes: [{name: n, slots: 1}]}]", 1,
			`pools[0] "a": missing required field "multifactor"`},
		{"weights on a priority pool", "pools: [{name: a, policy: priority, multifactor: {age: 1}, nodes: [{name: n, slots: 1}]}]", 1,
			`multifactor: only multifactor pools take multifactor weights, and this pool's policy is priority`},
		// The cluster spec's message, shared with the master's configuration.
		{"all weights zero", mf("{age: 0, qos: 0}"), 4, `multifactor: needs at least one positive weight (age, fair_share, job_size, qos, pool)`},
		{"age without max_age", mf("{age: 10}"), 4, `missing max_age: the age weight is set`},
		{"max_age without age", mf("{qos: 1, max_age: 1h}"), 4, `max_age: the age weight is 0, so max_age would never apply`},
		{"fair share without mode", mf("{fair_share: 1}"), 4, `missing fair_share_mode: the fair_share weight is set`},
		{"unknown mode", mf("{fair_share: 1, fair_share_mode: tree}"), 4, `fair_share_mode: unknown fair_share_mode "tree"`},
		{"favor_small without job_size", mf("{qos: 1, favor_small: true}"), 4, `favor_small: the job_size weight is 0`},
		{"negative weight", mf("{qos: -1}"), 4, `qos: expected a number >= 0, got -1`},
		{"unknown weight", mf("{qos: 1, size: 2}"), 4, `unknown field "size"`},
		{"reservations without backfill", "pools: [{name: a, policy: multifactor, reservations: easy, multifactor: {qos: 1}, nodes: [{name: n, slots: 1}]}]", 1,
			// The cluster spec's message, shared with the master's configuration.
			`reservations: only backfill pools and multifactor pools with backfill: true take reservations, and this pool's policy is multifactor without backfill`},
		{"min_run_time zero", "pools: [{name: a, policy: priority, min_run_time: 0, nodes: [{name: n, slots: 1}]}]", 1,
			`min_run_time: expected a duration > 0`},
		{"min_run_time on a sharing pool", "pools:\n  - {name: a, policy: quota, quota: 1, nodes: [{name: n, slots: 2}]}\n  - {name: b, quota: 1, shares_nodes_with: a, min_run_time: 1h}\n", 3,
			`min_run_time: this pool shares the nodes of pool "a" and takes its min_run_time from there`},
		{"zero_slot_limit on a sharing pool", "pools:\n  - {name: a, policy: quota, quota: 1, nodes: [{name: n, slots: 2}]}\n  - {name: b, quota: 1, shares_nodes_with: a, zero_slot_limit: 2}\n", 3,
			`zero_slot_limit: this pool shares the nodes of pool "a" and takes its zero_slot_limit from there`},
		{"negative zero_slot_limit", "pools: [{name: a, policy: fifo, zero_slot_limit: -1, nodes: [{name: n, slots: 1}]}]", 1,
			`zero_slot_limit: expected an integer >= 0, got -1`},
		{"negative kill_grace", "pools:\n  - {name: a, policy: fifo, kill_grace: -1, nodes: [{name: n, slots: 1}]}\n", 2,
			`pools[0] "a": kill_grace: expected a duration >= 0, got -1`},
		{"kill_grace not a duration on a sharing pool", "pools:\n  - {name: a, policy: quota, quota: 1, nodes: [{name: n, slots: 2}]}\n  - {name: b, quota: 1, shares_nodes_with: a, kill_grace: later}\n", 3,
			`pools[1] "b": kill_grace: expected a duration (whole seconds like 90, or a string like 90s, 1h30m, 2d or 1:30:00), got "later"`},
	})
}

func TestParseErrorsAccounts(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"account in a priority pool", mfPools + "jobs: [{name: j, pool: prio, account: physics}]\n", 27,
			`account: only multifactor pools charge accounts, and pool "prio"'s policy is priority`},
		{"account without fair share", "pools: [{name: a, policy: multifactor, multifactor: {qos: 1}, nodes: [{name: n, slots: 1}]}]\njobs: [{name: j, account: x}]\n", 2,
			`account: pool "a" has no fair_share weight, so account would never apply`},
		{"missing account", mfPools + "jobs: [{name: j, pool: mf}]\n", 27,
			`jobs[0] "j": missing required field "account": pool "mf" weighs fair share`},
		{"unknown account", mfPools + "jobs: [{name: j, pool: mf, account: biolgy, user: u}]\n", 27,
			`account: unknown account "biolgy"; did you mean "biology"?`},
		{"no accounts section", "pools: [{name: a, policy: multifactor, multifactor: {fair_share: 1, fair_share_mode: classic}, nodes: [{name: n, slots: 1}]}]\njobs: [{name: j, account: x}]\n", 2,
			`account: unknown account "x": the file has no accounts section`},
		{"fair tree charging a parent", mfPools + "jobs: [{name: j, pool: mf, account: physics}]\n", 27,
			`account: account "physics" has accounts or users under it, and pool "mf" (fair_tree) charges leaves only`},
		{"fair tree charging an account with users", mfPools + "jobs:\n  - {name: j, pool: mf, account: biology}\n  - {name: k, pool: mf, account: biology, user: ann}\n", 28,
			`account "biology" has accounts or users under it`},
		{"nice in a priority pool", mfPools + "jobs: [{name: j, pool: prio, nice: 3}]\n", 27,
			`nice: only multifactor pools compute a priority for nice to adjust`},
		{"priority in a multifactor pool", mfPools + "jobs: [{name: j, pool: mf, account: biology, user: u, priority: 10}]\n", 27,
			`priority: multifactor pool "mf" computes each job's priority (higher runs first) and ignores priority; use qos or nice`},
		{"priority_class in a multifactor pool", mfPools + "jobs: [{name: j, pool: mf, account: biology, user: u, priority_class: LOW}]\n", 27,
			`priority_class: multifactor pool "mf" computes each job's priority`},
		{"nice out of range", mfPools + "jobs: [{name: j, pool: mf, account: biology, user: u, nice: 2000000000}]\n", 27,
			`nice: expected an integer from -1000000000 to 1000000000`},
		{"accounts without a fair-share pool", pools + "accounts: [{name: a}]\n", 9,
			`accounts: no multifactor pool has a fair_share weight, so accounts would never apply`},
		{"decay without a fair-share pool", pools + "decay: {per_period: 0.5}\n", 9,
			`decay: no multifactor pool has a fair_share weight, so decay would never apply`},
		{"leaf of an unknown account", mfPools + "  - {name: a/b}\n", 27, `accounts[3] "a/b": parent: unknown account "a"`},
		{"leaf with two slashes", mfPools + "  - {name: physics/b/c}\n", 27, `name: a name with "/" declares a user's leaf, ACCOUNT/USER, with one "/" between two names`},
		{"leaf without a user", mfPools + "  - {name: physics/}\n", 27, `with one "/" between two names`},
		{"leaf with a parent", mfPools + "  - {name: physics/b, parent: biology}\n", 27, `parent: the leaf of user "b" is under account "physics", before the "/"; leave parent out`},
		{"account under a leaf", mfPools + "  - {name: biology/b}\n  - {name: x, parent: biology/b}\n", 28, `parent: account "biology/b" is a user's leaf, and nothing goes under a user`},
		{"epoch without a fair-share pool", pools + "epoch: 5\n", 9, `epoch: no multifactor pool has a fair_share weight, so the decay it aligns would never apply`},
		{"negative epoch", mfPools + "epoch: -1\n", 27, `epoch: expected a Unix time in seconds >= 0, got -1`},
		{"duplicate account", mfPools + "  - {name: physics}\n", 27, `name: duplicate account name "physics" (first at line 24)`},
		{"unknown parent", mfPools + "  - {name: x, parent: physic}\n", 27, `parent: unknown account "physic"; did you mean "physics"?`},
		{"account cycle", mfPools + "  - {name: x, parent: y}\n  - {name: y, parent: x}\n", 27, `the parents of account "x" come back to it (a cycle)`},
		{"own parent", mfPools + "  - {name: x, parent: x}\n", 27, `parent: an account cannot be its own parent`},
		{"negative shares", mfPools + "  - {name: x, shares: -1}\n", 27, `shares: expected a number >= 0`},
		{"set_priority in a multifactor pool", mfJobs + "events: [{at: 1h, set_priority: {job: a, priority: 3}}]\n", 29,
			`set_priority: job: job "a" runs in multifactor pool "mf", which computes its priority and ignores set_priority`},
		{"trace into a fair-share pool", mfPools + "jobs: {trace: x.swf}\n", 27, `a multifactor pool with a fair_share weight, whose jobs need accounts`},
	})
}

func TestParseErrorsDecay(t *testing.T) {
	base := "pools: [{name: a, policy: multifactor, multifactor: {fair_share: 1, fair_share_mode: classic}, nodes: [{name: n, slots: 1}]}]\n"
	runErrorCases(t, []errorCase{
		{"both", base + "decay: {per_period: 0.5, half_life: 1h}\n", 2, `half_life: give either per_period or half_life, not both`},
		// The cluster spec's message, which says what each field holds.
		{"neither", base + "decay: {period: 1h}\n", 2, `decay: needs per_period (a factor in (0, 1] applied once per period) or half_life (a duration)`},
		{"factor zero", base + "decay: {per_period: 0}\n", 2, `per_period: expected a factor in (0, 1]`},
		{"factor above one", base + "decay: {per_period: 1.5}\n", 2, `per_period: expected a factor in (0, 1]`},
		{"period zero", base + "decay: {period: 0, per_period: 0.5}\n", 2, `period: expected a duration > 0`},
	})
}

func TestParseErrorsTopologyAndGuards(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"topology on a task that fits one node", mfPools + "jobs: [{name: j, pool: mf, account: biology, user: u, slots: 8, topology: required}]\n", 27,
			`topology: a task of 8 slots fits on one node (pool "mf"'s largest node has 8), so it never spans nodes`},
		{"unknown topology", mfPools + "jobs: [{name: j, pool: mf, account: biology, user: u, slots: 16, topology: strict}]\n", 27,
			`topology: unknown topology "strict" (expected one of prefer, required)`},
		{"preempt_budget zero", pools + "projects: [{name: p, quota: 1, preempt_budget: 0}]\n", 9, `preempt_budget: expected an integer >= 1`},
	})
}
