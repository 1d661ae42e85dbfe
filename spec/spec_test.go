package spec

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/yamlfield"
	"github.com/allot-sched/allot/yamlfield/fieldtest"
)

// The two dialects of the formats that embed the spec.
var (
	master   = Dialect{Name: StrictName, ProjectShares: true, DefaultQOS: true}
	scenario = Dialect{Name: AnyName, Scenario: true}
)

// cluster is what the test reader returns: every section it read.
type cluster = Cluster[Pool]

// parser returns a Parse function that reads a file holding only the
// spec's sections, as a format's parser would.
func parser(d Dialect) func(string, []byte) (*cluster, error) {
	return func(name string, data []byte) (*cluster, error) {
		p := NewParser(yamlfield.New(name, yamlfield.Options{Paths: yamlfield.PathColons, BareNumbers: true}), d)
		root, ok := p.Decode(data)
		if !ok {
			return nil, p.Err()
		}
		f, ok := p.Fields(root, "")
		if !ok {
			return nil, p.Err()
		}
		c := ReadCluster(p, f, Sections[Pool]{Pools: func(raw *yaml.Node) []Pool {
			var pools []Pool
			for i, item := range p.PoolEntries(raw) {
				g, pl, ok := p.PoolFields(item, i)
				if !ok {
					continue
				}
				p.PoolOptions(g, &pl)
				g.Done()
				p.CheckPolicy(g, &pl)
				pools = append(pools, pl)
			}
			return pools
		}})
		f.Done()
		if err := p.Err(); err != nil {
			return nil, err
		}
		return &c, nil
	}
}

// TestDialects shows each rule on which the formats differ: the same
// file parses in one dialect and not in the other.
func TestDialects(t *testing.T) {
	tests := []struct {
		name, src string
		master    bool // the master's dialect accepts it; the scenario's does not
	}{
		{"padded name", "projects: [{name: '  padded', quota: 1}]", false},
		{"project without quota", "projects: [{name: a}]", true},
		{"zero limit", "projects: [{name: a, quota: 1, limit: 0}]", true},
		{"project shares", "projects: [{name: a, quota: 1, shares: 2}]", true},
		{"zero min_run_time", "pools: [{name: p, policy: fifo, min_run_time: 0}]", true},
		{"quota pool preempts", "pools: [{name: p, policy: quota, preemption: true}]", true},
		{"multifactor defaults", "pools: [{name: p, policy: multifactor}]", true},
		{"max_age without age", "pools: [{name: p, policy: multifactor, multifactor: {qos: 1, max_age: 1h}}]", true},
		{"boolean license name", "licenses: {true: 1}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, merr := parser(master)("f.yaml", []byte(tt.src))
			_, serr := parser(scenario)("f.yaml", []byte(tt.src))
			if (merr == nil) != tt.master || (serr == nil) == tt.master {
				t.Errorf("master: %v; scenario: %v; want only the %s to accept it", merr, serr, map[bool]string{true: "master", false: "scenario"}[tt.master])
			}
		})
	}
}

// TestBothRefuse: settings that once split the formats, refused by both
// with the same words (trial 2026-11-29g G3: a scenario took
// preemption: false on a quota pool, and preempted anyway).
func TestBothRefuse(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"quota pool does not preempt", "pools:\n  - {name: p, policy: quota, preemption: false}\n",
			`f.yaml:2: pools[0] "p": preemption: quota pools always reclaim quota by preemption; leave preemption out`},
		{"zero over-quota weight", "projects:\n  - {name: a, quota: 1, over_quota_weight: 0}\n",
			`f.yaml:2: projects[0] "a": over_quota_weight: expected a number > 0, got 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for d, parse := range map[string]func(string, []byte) (*cluster, error){"master": parser(master), "scenario": parser(scenario)} {
				if _, err := parse("f.yaml", []byte(tt.src)); err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: %v, want %q", d, err, tt.want)
				}
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	src := "pools: [{name: p, policy: multifactor, backfill: true}, {name: q, policy: quota}]\nprojects: [{name: a, quota: 4}]\n"
	c, err := parser(master)("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	mf := c.Pools[0]
	if mf.Multifactor != sched.DefaultMultifactor() || mf.Reservations != sched.ReserveEASY || mf.Placement != sched.PlaceBinpack {
		t.Errorf("multifactor pool = %+v", mf)
	}
	if !c.Pools[1].Preemption || len(c.QOS) != len(sched.DefaultQOS()) {
		t.Errorf("quota pool = %+v, QOS = %+v", c.Pools[1], c.QOS)
	}
	if want := (Project{Name: "a", Quota: 4, OverQuotaWeight: 4, Shares: 4, Line: 2}); !reflect.DeepEqual(c.Projects[0], want) {
		t.Errorf("project = %+v, want %+v", c.Projects[0], want)
	}
}

// TestErrors checks that the shared messages name the line and the field
// in either dialect.
func TestErrors(t *testing.T) {
	fieldtest.Run(t, parser(master), cases([]errorCase{
		{"cycle", "projects:\n  - {name: a, parent: b}\n  - {name: b, parent: a}\n", 2, `projects[0] "a": parent: the parents form a cycle: a → b → a`},
		{"children over quota", "projects:\n  - {name: a, quota: 1}\n  - {name: b, parent: a, quota: 2}\n", 2, `projects[0] "a": quota: the sub-projects' quotas add up to 2 (b 2)`},
		{"duplicate QOS", "qos:\n  - {name: x}\n  - {name: x}\n", 3, `qos[1] "x": name: duplicate QOS name "x" (first at line 2)`},
		{"decay", "decay: {period: 1h}\n", 1, "decay: needs per_period"},
		{"multifactor on fifo", "pools:\n  - {name: p, policy: fifo, multifactor: {age: 1}}\n", 2, `pools[0] "p": multifactor: only multifactor pools take multifactor weights`},
	}))
	fieldtest.Run(t, parser(scenario), cases([]errorCase{
		{"max_age missing", "pools:\n  - {name: p, policy: multifactor, multifactor: {age: 1}}\n", 2, "missing max_age: the age weight is set"},
		{"block missing", "pools:\n  - {name: p, policy: multifactor}\n", 2, `pools[0] "p": missing required field "multifactor"`},
		{"limit below quota", "projects:\n  - {name: a, quota: 3, limit: 2}\n", 2, `projects[0] "a": limit: limit 2 is below the quota 3`},
	}))
}

// errorCase is a fieldtest.Case written without keys.
type errorCase struct {
	name, src string
	line      int
	want      string
}

func cases(tests []errorCase) []fieldtest.Case {
	out := make([]fieldtest.Case, len(tests))
	for i, tc := range tests {
		out[i] = fieldtest.Case{Name: tc.name, Src: tc.src, Line: tc.line, Want: tc.want}
	}
	return out
}

// TestClusterDecay: the decay's default depends on the dialect and, in
// scenario files, on whether any pool reads accounts.
func TestClusterDecay(t *testing.T) {
	c, err := parser(master)("f.yaml", []byte("pools: [{name: p, policy: fifo}]\n"))
	if err != nil || c.Decay != DefaultDecay {
		t.Errorf("master without a decay: %+v, %v; want %+v", c, err, DefaultDecay)
	}
	c, err = parser(scenario)("f.yaml", []byte("pools: [{name: p, policy: fifo}]\n"))
	if err != nil || c.Decay != (Decay{}) {
		t.Errorf("scenario without fair-share pools: %+v, %v; want no decay", c, err)
	}
	fs := "pools: [{name: p, policy: multifactor, multifactor: {fair_share: 1, fair_share_mode: classic}}]\n"
	c, err = parser(scenario)("f.yaml", []byte(fs))
	if err != nil || c.Decay != DefaultDecay {
		t.Errorf("scenario with a fair-share pool: %+v, %v; want %+v", c, err, DefaultDecay)
	}
	if _, err := parser(scenario)("f.yaml", []byte("decay: {half_life: 1h}\n")); err == nil {
		t.Error("a scenario's decay that no pool reads was accepted")
	}
	// Scenario files share the decay's parser, and its rule for a
	// negative half-life as for 0 (trial 29h H6).
	for _, hl := range []string{"-1h", "0"} {
		_, err := parser(scenario)("f.yaml", []byte(fs+"decay: {half_life: "+hl+"}\n"))
		if err == nil || !strings.Contains(err.Error(), "half_life: expected a duration > 0, got ") {
			t.Errorf("scenario decay half_life %s: %v, want a duration > 0", hl, err)
		}
	}
}
