package config

import (
	"fmt"

	"github.com/allot-sched/allot/sched"
)

// DecayWarning says, of the configuration c read from path ("": none
// named), that its decay is valid but likely not meant (spec.Decay's
// Warning: a half-life shorter than the period decays usage only at each
// period's end), naming the file's line; "" when there is nothing to
// say, or when no pool weighs fair share, where the decay counts for
// nothing. allot config check, the master's start and a reload say it.
func DecayWarning(path string, c *Config) string {
	if c == nil || !weighsFairShare(c) {
		return ""
	}
	w := c.Decay.WarningOf(c.DecayPeriodSet)
	if w == "" {
		return ""
	}
	where := path
	if c.Decay.Line > 0 {
		where = fmt.Sprintf("%s:%d", path, c.Decay.Line)
		if path == "" {
			where = fmt.Sprintf("line %d", c.Decay.Line)
		}
	}
	if where != "" {
		w = where + ": " + w
	}
	return w
}

// weighsFairShare reports whether a pool of c weighs fair share.
func weighsFairShare(c *Config) bool {
	for _, pl := range c.Pools {
		if pl.Policy == sched.PolicyMultifactor && pl.Multifactor.FairShare > 0 {
			return true
		}
	}
	return false
}
