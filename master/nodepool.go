package master

import (
	"fmt"
	"strings"

	"github.com/allot-sched/allot/config"
)

// A node's pool: its agent asks for one (api.Register's Pool, its
// --pool), which the node record keeps, and the configuration's node
// rule for it (config.NodeRule, by name) may pin it elsewhere. The pool
// the node is in is read from both at every registration, reload and
// restart (nodePool), never stored in its record, so that a reload that
// removes or changes the rule moves the node at once, and the node
// history records each registration's pool in effect beside the agent's
// (store.Node's PoolInEffect) and each reload's move (store.MoveNodes).

// nodePool is the pool node name is in under cfg, its agent having
// asked for pool registered ("" for none; the node record keeps it, not
// this): the pool its node rule pins, else the agent's where cfg has it,
// else the default pool. It is read again at every registration, reload
// and restart, so that a node whose rule is removed goes back to its
// agent's pool. An agent of a node no rule pins that asks for a pool cfg
// lacks is refused (checkRegister); one that a rule pins registers, and
// when the pin is removed the node goes to the default pool, with a
// warning (poolNote).
func nodePool(cfg *config.Config, name, registered string) string {
	if p := rulePool(cfg, name); p != "" {
		return p
	}
	if registered == "" || poolConfig(cfg, registered) == nil {
		return cfg.DefaultPool
	}
	return registered
}

// poolNote says why node name, whose agent asked for pool registered,
// is in the default pool rather than that one: no rule of cfg pins it,
// and cfg has no such pool. It is "" when the node is in its agent's
// pool, or its rule's, or the agent asked for none.
func poolNote(cfg *config.Config, name, registered string) string {
	if registered == "" || rulePool(cfg, name) != "" || poolConfig(cfg, registered) != nil {
		return ""
	}
	return fmt.Sprintf("its agent asked for pool %q, which the configuration does not have (pools: %s), and no node rule pins it: "+
		"it is in the default pool %s; pin it with a node rule, or register its agent with another --pool", registered,
		strings.Join(cfg.PoolNames(), ", "), cfg.DefaultPool)
}

// rulePool is the pool the config's node rules pin node name to, "" for
// none.
func rulePool(cfg *config.Config, name string) string {
	for _, r := range cfg.Nodes {
		if r.Name == name && r.Pool != "" {
			return r.Pool
		}
	}
	return ""
}
