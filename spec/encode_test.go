package spec

import (
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestEncodeRoundTrip: a cluster the parser returned, written by the
// encoder in the same dialect, reads back to the same values.
func TestEncodeRoundTrip(t *testing.T) {
	both := `
pools:
  - {name: f, policy: fifo, placement: spread, min_run_time: 90s, kill_grace: 2m}
  - {name: b, policy: backfill, reservations: conservative, kill_grace: 0}
  - {name: p, policy: priority, preemption: true, backfill: true}
  - {name: s, policy: fair_share, preemption: true}
  - {name: q, policy: quota}
  - name: m
    policy: multifactor
    backfill: true
    multifactor: {age: 1, fair_share: 2.5, job_size: 3, qos: 4, pool: 5, max_age: 2h, fair_share_mode: classic, favor_small: true, pool_priority: 6}
projects:
  - {name: lab, quota: 8, over_quota_weight: 2.5, limit: 12, preempt_budget: 3}
  - {name: a, parent: lab, quota: 5}
  - {name: b, parent: lab, quota: 0, over_quota_weight: 0.5}
licenses: {matlab: 4, vasp: 0}
qos: [{name: low}, {name: high, priority: 10, preempt: true}]
decay: {period: 1h, per_period: 0.7}
`
	tests := []struct {
		name string
		d    Dialect
		src  string
	}{
		{"master", master, both},
		{"scenario", scenario, both},
		{"master defaults", master, "pools: [{name: m, policy: multifactor}, {name: q, policy: quota, preemption: true}]\nprojects: [{name: a, shares: 3}]\n"},
		{"master without QOS", master, "qos: []\ndecay: {half_life: 1h}\n"},
		{"scenario settings with their weights", scenario, "pools: [{name: m, policy: multifactor, multifactor: {qos: 1, job_size: 2}}]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parser(tt.d)("f.yaml", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			top := NewMapping()
			ClusterNodes(tt.d, top, *c, func(pl Pool) *yaml.Node { return tt.d.PoolNode(pl).Node })
			out, err := yaml.Marshal(top.Node)
			if err != nil {
				t.Fatal(err)
			}
			back, err := parser(tt.d)("f.yaml", out)
			if err != nil {
				t.Fatalf("the encoder's output does not parse: %v\n%s", err, out)
			}
			clear := func(c *cluster) {
				for i := range c.Pools {
					c.Pools[i].Line = 0
				}
				for i := range c.Projects {
					c.Projects[i].Line = 0
				}
				for i := range c.Licenses {
					c.Licenses[i].Line = 0
				}
				for i := range c.QOS {
					c.QOS[i].Line = 0
				}
				c.Decay.Line = 0
				// Where the file had it, as the lines: the encoder
				// always writes the period.
				c.DecayPeriodSet = false
			}
			clear(c)
			clear(back)
			if !reflect.DeepEqual(c, back) {
				t.Errorf("round trip changed the cluster\n got: %+v\nwant: %+v\n%s", back, c, out)
			}
		})
	}
}
