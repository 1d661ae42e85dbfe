package sim

import (
	"math"
	"testing"

	"github.com/allot-sched/allot/scenario"
)

// TestEpochAlignsDecay: a scenario's epoch moves the decay's period
// boundaries to the Unix epoch's, as the live master counts them. With
// hourly periods halving usage, a starting usage of 0.5 and time 0 at
// Unix time 1800, a job on every slot from 0 to 1h uses 0.5 before the
// boundary at 1800 s, where all is halved ((0.5 + 0.5)/2), and 0.5 after:
// 1 at 1h. With periods from time 0 its whole period ends at 1h, and all
// is halved there: (0.5 + 1)/2.
func TestEpochAlignsDecay(t *testing.T) {
	const file = `pools:
  - {name: mf, policy: multifactor, multifactor: {fair_share: 1, fair_share_mode: classic}, nodes: [{name: n, slots: 2}]}
accounts: [{name: a, usage: 0.5}]
decay: {period: 1h, per_period: 0.5}
jobs: [{name: j, pool: mf, account: a, slots: 2, duration: 1h}]
`
	for _, c := range []struct {
		epoch string
		want  float64
	}{{"", (0.5 + 1) / 2}, {"epoch: 1800\n", (0.5+0.5)/2 + 0.5}} {
		sc, err := scenario.Parse("epoch.yaml", []byte(file+c.epoch))
		if err != nil {
			t.Fatal(err)
		}
		in, err := FromScenario(sc, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(in, Options{Until: 3600})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Accounts[0].Usage; math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%q: usage %v at 1h, want %v", c.epoch, got, c.want)
		}
	}
}
