package master

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/config"
)

// TestConfigWarningsDecay: the warnings the master's start, a reload and
// allot config check give include a decay whose half-life is shorter
// than its period (trial 29i I25), after the fence's.
func TestConfigWarningsDecay(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      []string
	}{
		{"hourly half-life, daily period", "agent_timeout: 20s\npools:\n  - {name: default, policy: multifactor}\ndecay: {half_life: 1h}\n",
			[]string{"c.yaml: agent_timeout: 20s is too short", "c.yaml:4: decay: half_life 1h is shorter than the period, 24h (the default)"}},
		// One level and no default_qos: every job's QOS (trial 2026-11-29j J9).
		{"one QOS level", "qos:\n  - {name: high, priority: 100}\n",
			[]string{"c.yaml:2: qos: high is the only level, so it is every job's QOS"}},
		{"one QOS level, default_qos set", "qos:\n  - {name: high, priority: 100}\ndefault_qos: high\n", nil},
		{"hourly period", "pools:\n  - {name: default, policy: multifactor}\ndecay: {half_life: 1h, period: 1h}\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.Parse("c.yaml", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			got := ConfigWarnings("c.yaml", c, DefaultSyncWait)
			if len(got) != len(tt.want) {
				t.Fatalf("warnings %q, want %d", got, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("warning %d = %q, want it to start %q", i, got[i], w)
				}
			}
		})
	}
}
