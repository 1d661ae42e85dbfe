package config

import (
	"reflect"
	"testing"
	"time"

	"github.com/allot-sched/allot/sched"
)

// fairShare is a config with a multifactor pool and every fair-share
// section set.
const fairShare = `
default_pool: mf
pools:
  - name: mf
    policy: multifactor
    preemption: true
    backfill: true
    min_run_time: 10m
    multifactor: {age: 1000, fair_share: 10000, job_size: 500, qos: 100000, max_age: 48h,
                  favor_small: true, fair_share_mode: classic, pool_priority: 3}
  - {name: plain, policy: multifactor}
  - {name: fifo, policy: fifo, min_run_time: 90, grace: 1m}
projects:
  - {name: default}
  - {name: lab, quota: 8, preempt_budget: 4}
  - {name: a, parent: lab, quota: 3, shares: 0.5}
users:
  - {name: ana, shares: 2}
licenses: {matlab: 4, vasp: 0}
qos:
  - {name: low}
  - {name: normal, priority: 5}
  - {name: urgent, priority: 50, preempt: true}
default_qos: normal
decay: {period: 1h, per_period: 0.7}
`

func TestParseFairShare(t *testing.T) {
	c := mustParse(t, fairShare)
	wantMF := sched.Multifactor{Age: 1000, FairShare: 10000, JobSize: 500, QOS: 100000, MaxAge: 2 * 86400,
		FavorSmall: true, FairShareMode: sched.FairShareClassic, PoolPriority: 3}
	mf := c.Pools[0]
	if mf.Multifactor != wantMF || mf.MinRunTime != 10*time.Minute || !mf.Preemption || !mf.Backfill ||
		mf.Reservations != sched.ReserveEASY {
		t.Errorf("pool mf = %+v\nwant multifactor %+v, min run time 10m, preemption, EASY backfill", mf, wantMF)
	}
	if c.Pools[1].Multifactor != sched.DefaultMultifactor() {
		t.Errorf("pool plain: multifactor %+v, want the defaults", c.Pools[1].Multifactor)
	}
	if c.Pools[2].MinRunTime != 90*time.Second || c.Pools[2].Multifactor != (sched.Multifactor{}) {
		t.Errorf("pool fifo = %+v, want min run time 90s and no multifactor", c.Pools[2])
	}
	if got := c.SchedPools()[0]; got.MinRunTime != 600 || got.Multifactor != wantMF {
		t.Errorf("SchedPools()[0] = %+v", got)
	}
	shares := []float64{1, 8, 0.5}
	for i, p := range c.Projects {
		if p.Shares != shares[i] {
			t.Errorf("project %s: shares %v, want %v", p.Name, p.Shares, shares[i])
		}
	}
	if p := c.SchedProjects()[1]; p.PreemptBudget != 4 {
		t.Errorf("SchedProjects()[1] = %+v, want budget 4", p)
	}
	if c.Users[0].Shares != 2 {
		t.Errorf("user ana: shares %v, want 2", c.Users[0].Shares)
	}
	if want := []License{{Name: "matlab", Total: 4, Line: 19}, {Name: "vasp", Total: 0, Line: 19}}; !reflect.DeepEqual(c.Licenses, want) {
		t.Errorf("licenses = %+v, want %+v", c.Licenses, want)
	}
	if got := c.SchedLicenses(); len(got) != 2 || got[0] != (sched.License{Name: "matlab", Total: 4}) || c.LicenseIndex("vasp") != 1 {
		t.Errorf("SchedLicenses() = %+v", got)
	}
	wantQOS := []sched.QOS{{Name: "low"}, {Name: "normal", Priority: 5}, {Name: "urgent", Priority: 50, Preempt: true}}
	if !reflect.DeepEqual(c.SchedQOS(), wantQOS) || c.DefaultQOS != "normal" || c.QOSIndex("urgent") != 2 {
		t.Errorf("qos = %+v, default %q", c.QOS, c.DefaultQOS)
	}
	if want := (sched.Decay{Period: 3600, PerPeriod: 0.7}); c.SchedDecay() != want {
		t.Errorf("decay = %+v, want %+v", c.Decay, want)
	}
}

func TestParseFairShareDefaults(t *testing.T) {
	tests := []struct {
		name string
		src  string
		qos  []string
		def  string
		dec  sched.Decay
	}{
		{"no sections", "{}", []string{"normal", "high", "emergency"}, "normal", DefaultDecay()},
		{"empty qos", "qos: []", nil, "", DefaultDecay()},
		{"first qos is the default", "qos: [{name: b}, {name: a}]", []string{"b", "a"}, "b", DefaultDecay()},
		{"half-life with the default period", "decay: {half_life: 336h}", []string{"normal", "high", "emergency"}, "normal",
			sched.Decay{Period: 86400, HalfLife: 14 * 86400}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustParse(t, tt.src+"\n")
			var names []string
			for _, q := range c.QOS {
				names = append(names, q.Name)
			}
			if !reflect.DeepEqual(names, tt.qos) || c.DefaultQOS != tt.def || c.SchedDecay() != tt.dec {
				t.Errorf("qos %v default %q decay %+v, want %v %q %+v", names, c.DefaultQOS, c.Decay, tt.qos, tt.def, tt.dec)
			}
		})
	}
}

func TestResolveQOSAndLicenses(t *testing.T) {
	c := mustParse(t, fairShare)
	tests := []struct {
		name, qos, want, err string
	}{
		{"default", "", "normal", ""},
		{"named", "urgent", "urgent", ""},
		{"unknown", "emergency", "", `unknown QOS "emergency" (qos: low, normal, urgent)`},
		{"a typo", "urgnet", "", `unknown QOS "urgnet"; did you mean "urgent"? (qos: low, normal, urgent)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.ResolveQOS(tt.qos)
			if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
				t.Errorf("ResolveQOS(%q) = %q, %v; want %q, %q", tt.qos, got, err, tt.want, tt.err)
			}
		})
	}
	if err := c.CheckLicense("matlab"); err != nil {
		t.Errorf("CheckLicense(matlab): %v", err)
	}
	if err := c.CheckLicense("matlib"); err == nil || err.Error() != `unknown license "matlib"; did you mean "matlab"? (licenses: matlab, vasp)` {
		t.Errorf("CheckLicense(matlib): %v", err)
	}
	if err := Default().CheckLicense("x"); err == nil || err.Error() != `unknown license "x": the configuration defines no licenses` {
		t.Errorf("CheckLicense on a config without licenses: %v", err)
	}
}

func TestParseErrorsFairShare(t *testing.T) {
	mf := func(fields string) string {
		return "default_pool: p\npools:\n  - {name: p, policy: multifactor, " + fields + "}\n"
	}
	runErrorCases(t, []errorCase{
		{"multifactor on priority", onePool + "    multifactor: {age: 1}\n", 5,
			"multifactor: only multifactor pools take multifactor weights, and this pool's policy is priority"},
		{"no positive weight", mf("multifactor: {age: 0}"), 3,
			`pools[0] "p": multifactor: needs at least one positive weight (age, fair_share, job_size, qos, pool)`},
		{"negative weight", mf("multifactor: {qos: -1}"), 3, "multifactor: qos: expected a number >= 0, got -1"},
		{"weight not a number", mf(`multifactor: {age: "1"}`), 3, `multifactor: age: expected a number >= 0, got "1"`},
		{"unknown weight", mf("multifactor: {fairshare: 1}"), 3, `multifactor: unknown field "fairshare"; did you mean "fair_share"?`},
		{"zero max age", mf("multifactor: {age: 1, max_age: 0}"), 3, "multifactor: max_age: expected a duration > 0, got 0"},
		{"unknown mode", mf("multifactor: {fair_share: 1, fair_share_mode: tree}"), 3,
			`fair_share_mode: unknown fair_share_mode "tree"`},
		{"reservations without backfill", mf("reservations: easy"), 3,
			"reservations: only backfill pools and multifactor pools with backfill: true take reservations, and this pool's policy is multifactor without backfill"},
		{"negative min run time", mf("min_run_time: -1"), 3, "min_run_time: expected a duration >= 0, got -1"},
		{"negative budget", "projects: [{name: default, preempt_budget: -1}]\n", 1,
			`projects[0] "default": preempt_budget: expected an integer >= 0, got -1`},
		{"zero shares", "projects: [{name: default, shares: 0}]\n", 1, `projects[0] "default": shares: expected a number > 0, got 0`},
		{"user shares", "users: [{name: u, shares: -2}]\n", 1, `users[0] "u": shares: expected a number > 0, got -2`},
		{"license total", "licenses: {matlab: -1}\n", 1, "licenses: matlab: expected an integer >= 0, got -1"},
		{"license not a mapping", "licenses: [matlab]\n", 1, "licenses: expected a mapping"},
		{"license empty name", "licenses: {'': 1}\n", 1, `licenses: expected a non-empty name, got ""`},
		{"qos not a list", "qos: {name: a}\n", 1, "qos: expected a list of QOS levels"},
		{"qos without name", "qos: [{priority: 1}]\n", 1, `qos[0]: missing required field "name"`},
		{"qos duplicate", "qos: [{name: a}, {name: a}]\n", 1, `qos[1] "a": name: duplicate QOS name "a" (first at line 1)`},
		{"qos negative priority", "qos: [{name: a, priority: -1}]\n", 1, `qos[0] "a": priority: expected an integer >= 0, got -1`},
		{"qos preempt not bool", "qos: [{name: a, preempt: yes}]\n", 1, `preempt: expected true or false, got "yes"`},
		{"default qos unknown", "qos: [{name: normal}]\ndefault_qos: norml\n", 2,
			`default_qos: "norml" is not a QOS; did you mean "normal"? (qos: normal)`},
		{"decay both", "decay: {per_period: 0.5, half_life: 24h}\n", 1, "decay: half_life: give either per_period or half_life, not both"},
		{"decay neither", "decay: {period: 24h}\n", 1, "decay: needs per_period"},
		{"decay factor above one", "decay: {per_period: 1.5}\n", 1, "decay: per_period: expected a factor in (0, 1] (1: usage never decays), got 1.5"},
		{"decay factor zero", "decay: {per_period: 0}\n", 1, "per_period: expected a factor in (0, 1] (1: usage never decays), got 0"},
		{"decay zero period", "decay: {period: 0, half_life: 24h}\n", 1, "decay: period: expected a duration > 0, got 0"},
		{"decay negative half-life (trial 29h H6)", "decay: {half_life: -1h}\n", 1, `decay: half_life: expected a duration > 0, got "-1h"`},
		{"decay zero half-life", "decay: {half_life: 0}\n", 1, "decay: half_life: expected a duration > 0, got 0"},
		{"negative max age", mf("multifactor: {age: 1, max_age: -1}"), 3, "multifactor: max_age: expected a duration > 0, got -1"},
	})
}
