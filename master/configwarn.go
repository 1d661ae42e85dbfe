package master

import (
	"time"

	"github.com/allot-sched/allot/config"
)

// ConfigWarnings are the warnings of the configuration cfg read from
// path that allot config check, the master's start and a reload give,
// of settings valid but working against the cluster: FenceWarnings',
// then the usage decay's (config.DecayWarning: a half-life shorter than
// the period), then the QOS section's (config.QOSWarning: a single level
// that every job gets).
func ConfigWarnings(path string, cfg *config.Config, syncWait time.Duration) []string {
	out := FenceWarnings(path, cfg, syncWait)
	if w := config.DecayWarning(path, cfg); w != "" {
		out = append(out, w)
	}
	if w := config.QOSWarning(path, cfg); w != "" {
		out = append(out, w)
	}
	return out
}
