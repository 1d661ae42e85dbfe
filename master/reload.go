package master

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// checkConfig checks what the master relies on, whoever built the
// configuration: pools exist with known policies and unique names, the
// default pool is one of them, and project parents exist.
func checkConfig(cfg *config.Config) error {
	if len(cfg.Pools) == 0 {
		return errors.New("config: no pools")
	}
	seen := map[string]bool{}
	for i, p := range cfg.Pools {
		switch {
		case p.Name == "":
			return fmt.Errorf("config: pools[%d]: empty name", i)
		case seen[p.Name]:
			return fmt.Errorf("config: pool %q is defined twice", p.Name)
		}
		switch p.Policy {
		case sched.PolicyFIFO, sched.PolicyBackfill, sched.PolicyFairShare, sched.PolicyPriority, sched.PolicyQuota,
			sched.PolicyMultifactor:
		default:
			return fmt.Errorf("config: pool %q: unknown policy %q", p.Name, p.Policy)
		}
		seen[p.Name] = true
	}
	if !seen[cfg.DefaultPool] {
		return fmt.Errorf("config: default pool %q is not one of the pools (%s)", cfg.DefaultPool, poolNames(cfg))
	}
	for _, r := range cfg.Nodes {
		if r.Pool != "" && !seen[r.Pool] {
			return fmt.Errorf("config: node %q is pinned to pool %q, which is not defined", r.Name, r.Pool)
		}
	}
	projects := map[string]bool{}
	for _, p := range cfg.Projects {
		projects[p.Name] = true
	}
	for _, p := range cfg.Projects {
		if p.Parent != "" && !projects[p.Parent] {
			return fmt.Errorf("config: project %q: parent %q is not defined", p.Name, p.Parent)
		}
	}
	// The core checks the rest: multifactor weights, the project tree,
	// licenses and QOS levels. A configuration it refuses would fail every
	// pass.
	empty := &sched.Snapshot{Pools: cfg.SchedPools(), Projects: cfg.SchedProjects(), Licenses: cfg.SchedLicenses(), QOS: cfg.SchedQOS()}
	if _, err := sched.Schedule(empty); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

func poolNames(cfg *config.Config) string {
	names := make([]string, len(cfg.Pools))
	for i, p := range cfg.Pools {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// poolConfig returns the named pool's configuration, or nil. Callers hold
// mu.
func poolConfig(cfg *config.Config, name string) *config.Pool {
	i := slices.IndexFunc(cfg.Pools, func(p config.Pool) bool { return p.Name == name })
	if i < 0 {
		return nil
	}
	return &cfg.Pools[i]
}

// Reload re-reads the configuration file, validates it fully, and swaps it
// in at once, between two settlings (it waits for the one in flight); an
// invalid file changes nothing and the error (an *httpError with status
// 400 through the API) says why. A configuration that drops a pool that
// live jobs use is refused, and so is one that drops a project that
// live jobs belong to (checkJobProjects), a license that live jobs
// hold or wait for (checkJobLicenses), or a QOS level that live jobs
// name (checkJobQOS). A refusal is logged here, whoever asked
// (SIGHUP or the API), since the log is where an operator looks for why
// the file on disk is not in force. Callers must not hold mu.
func (m *Master) Reload(ctx context.Context) error {
	_, err := reloader{m}.reloadWarned(ctx)
	return err
}

// reloadWarned is Reload, with the warnings of a reload taken (logged
// too): the pools it left with live jobs but no node
// (emptyPoolWarnings), the live jobs whose QOS their project's list
// no longer allows (jobsUnder.disallowedQOS), those of licenses whose
// totals it lowered (jobsUnder.licenseWarnings), and an agent_timeout too
// short for the agents' fence (AgentTimeoutWarning) and a decay whose
// half-life is shorter than its period (ConfigWarnings), which the API's
// reply gives.
func (rl reloader) reloadWarned(ctx context.Context) ([]string, error) {
	m := rl.m
	warnings, err := rl.reload(ctx)
	if m.opt.ConfigPath != "" {
		m.metric.reloaded(err)
	}
	if err != nil {
		m.log.Error("configuration reload failed", "err", err)
	}
	return warnings, err
}

// reload is reloadWarned without its metrics.
func (rl reloader) reload(ctx context.Context) ([]string, error) {
	m := rl.m
	if m.opt.ConfigPath == "" {
		return nil, badRequest("", "the master was started without a configuration file: nothing to reload")
	}
	cfg, err := m.load(m.opt.ConfigPath)
	if err == nil {
		err = checkConfig(cfg)
	}
	if err != nil {
		return nil, badRequest("", "reload %s: %v; the configuration in force is unchanged", m.opt.ConfigPath, err)
	}
	// A reload's moves and labels change nodes: it is taken between
	// settlings, as the node events are (betweenSettlings), so that no
	// pass of a settling plans under the old configuration and the next
	// under the new one, which the export, ordering the reload against
	// whole settlings, could not replay. The stale-plan check (stale.go)
	// stays as a guard.
	defer m.betweenSettlings()()
	m.lock()
	defer m.unlock()
	if err := rl.checkLive(cfg); err != nil {
		return nil, err
	}
	oldFair := m.fair
	if d := decayOf(cfg); d != m.fair.decay {
		// Counters hold usage decayed the old way: count again, before
		// anything is swapped, so that a failure leaves the configuration
		// in force whole.
		m.fair = newFairShare(d)
		for _, j := range m.jobs {
			m.fair.addLeaf(j.rec.Project, j.rec.User)
		}
		if err := m.restoreUsage(ctx); err != nil {
			m.fair = oldFair
			return nil, fmt.Errorf("reload %s: %w; the configuration in force is unchanged", m.opt.ConfigPath, err)
		}
	}
	changes := configChanges(m.cfg, cfg)
	if err := rl.recordMoves(ctx, cfg, changes); err != nil {
		m.fair = oldFair
		return nil, fmt.Errorf("reload %s: %w; the configuration in force is unchanged", m.opt.ConfigPath, err)
	}
	was := m.cfg
	m.cfg = cfg
	m.cfgNow.Store(cfg)
	m.forgetFeasible()
	m.cfgGen++
	m.fair.dirty = true // shares and projects may have changed
	rl.repoolNodes()
	m.pub.readStale = true
	m.log.Info("configuration reloaded", "path", m.opt.ConfigPath, "pools", len(cfg.Pools), "projects", len(cfg.Projects),
		"changes", strings.Join(changes, "; "))
	under := jobsUnder{m.jobs, cfg}
	warnings := append(rl.emptyPoolWarnings(), under.disallowedQOS()...)
	warnings = append(warnings, under.neverRuns()...)
	warnings = append(warnings, under.licenseWarnings(was)...)
	warnings = append(warnings, ConfigWarnings(m.opt.ConfigPath, cfg, m.opt.SyncWait)...)
	for _, w := range warnings {
		m.log.Warn("configuration reloaded: " + w)
	}
	m.kick()
	m.planner.etaRun.want()
	return warnings, nil
}

// checkLive refuses a configuration that drops a pool, project, license
// or QOS level that live jobs or nodes use. Callers hold mu.
func (rl reloader) checkLive(cfg *config.Config) error {
	pools := map[string]bool{}
	for _, p := range cfg.Pools {
		pools[p.Name] = true
	}
	if err := rl.checkJobPools(pools); err != nil {
		return err
	}
	if err := rl.checkNodePools(cfg, pools); err != nil {
		return err
	}
	if err := rl.checkJobProjects(cfg); err != nil {
		return err
	}
	if err := rl.checkJobLicenses(cfg); err != nil {
		return err
	}
	return rl.checkJobQOS(cfg)
}

// repoolNodes puts each node in the pool the configuration in force
// gives it, waking the agents whose placement changed. Callers hold mu.
func (rl reloader) repoolNodes() {
	m := rl.m
	for _, name := range slices.Sorted(maps.Keys(m.nodes)) {
		n := m.nodes[name]
		was := n.pool
		n.pool = nodePool(m.cfg, name, n.rec.Pool)
		m.pub.markNode(n) // its pool and labels may have changed
		wakeMoved(m.cfg, n)
		if note := poolNote(m.cfg, name, n.rec.Pool); note != "" && n.pool != was {
			m.log.Warn("node moved to the default pool by a reload: "+note, "node", name, "pool_was", was)
		}
	}
}

// recordMoves records, in one transaction, each node that cfg puts in
// another pool than the one it is in, or gives other labels than those
// in effect (store.MoveNodes, relabels): the what-if export reads the
// node's pool and labels from the history, as the rules that gave them
// are gone at the next reload. A failure records none, and the reload
// swaps nothing in. Callers hold mu.
func (rl reloader) recordMoves(ctx context.Context, cfg *config.Config, changes []string) error {
	m := rl.m
	var moves []store.NodeMove
	for _, name := range slices.Sorted(maps.Keys(m.nodes)) {
		n := m.nodes[name]
		moves = relabels(moves, name, n.pool, nodeLabels(m.cfg, n), nodePool(cfg, name, n.rec.Pool), nodeLabels(cfg, n))
	}
	if len(moves) == 0 && len(changes) == 0 {
		return nil
	}
	now := m.now()
	err := m.st.Update(ctx, func(tx store.Tx) error {
		if len(moves) > 0 {
			if err := tx.MoveNodes(ctx, moves, now); err != nil {
				return err
			}
		}
		// The what-if export notes them: it replays its window under
		// the settings in force when it is taken.
		return tx.RecordConfigChanges(ctx, now, changes)
	})
	if err != nil {
		return fmt.Errorf("record the nodes it moves to other pools or relabels, and the configuration's changes: %w", err)
	}
	return nil
}

// configChanges says what a reload from was to now changes in what the
// scheduler decides by: the pools' settings, the projects', the
// licenses' totals, the QOS levels' priorities and preemption, the
// default QOS and the usage decay (spec.PoolChanges, ProjectChanges,
// LicenseChanges, QOSChanges, DefaultQOSChanges, DecayChanges), for the reply and the record the what-if
// export notes.
func configChanges(was, now *config.Config) []string {
	return slices.Concat(spec.PoolChanges(specPools(was), specPools(now)),
		spec.ProjectChanges(was.Projects, now.Projects), spec.LicenseChanges(was.Licenses, now.Licenses),
		spec.QOSChanges(was.QOS, now.QOS), spec.DefaultQOSChanges(was.DefaultQOS, now.DefaultQOS),
		spec.DecayChanges(was.Decay, now.Decay))
}

// specPools is the pools' settings both formats share.
func specPools(cfg *config.Config) []spec.Pool {
	out := make([]spec.Pool, len(cfg.Pools))
	for i, p := range cfg.Pools {
		out[i] = p.Pool
	}
	return out
}

// checkJobPools refuses a reload that drops a pool that live jobs use,
// naming them all (the first five, sorted) and what to do, so that an
// admin does not meet them one reload at a time. Callers hold mu.
func (rl reloader) checkJobPools(pools map[string]bool) error {
	m := rl.m
	var ids []int64
	for id, j := range m.jobs {
		if !pools[j.rec.Pool] {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	shown := firstFive(ids, func(id int64) string { return fmt.Sprintf("job %d in %s", id, m.jobs[id].rec.Pool) })
	return badRequest("", "reload %s: %s still in pools that the new configuration drops (%s): "+
		"keep the pool until they end, or kill them (allot job kill ID); "+
		"the configuration in force is unchanged", m.opt.ConfigPath, plural.Count(len(ids), "live job"), shown)
}

// checkNodePools refuses a configuration that drops the pool that the
// agent of a node that is up or lost asked for, where no rule of it pins
// the node elsewhere: the node would go to the default pool (nodePool)
// unasked, as registration refuses such a pool. A node whose agent asked
// for a pool that the configuration in force lacks too (a rule pinned
// it) goes to the default pool when the new one does not pin it, with a
// warning (poolNote). A node that left registers again and is judged
// then. Callers hold mu.
func (rl reloader) checkNodePools(cfg *config.Config, pools map[string]bool) error {
	m := rl.m
	var names []string
	for _, n := range m.nodes {
		own := n.rec.Pool
		if n.rec.State != store.NodeLeft && rulePool(cfg, n.rec.Name) == "" && own != "" && !pools[own] &&
			poolConfig(m.cfg, own) != nil {
			names = append(names, n.rec.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	shown := firstFive(names, func(name string) string { return fmt.Sprintf("%s in %s", name, m.nodes[name].rec.Pool) })
	return badRequest("", "reload %s: %s still in pools that the new configuration drops (%s): "+
		"pin each to a remaining pool with a node rule, or stop its agent and delete it (allot node delete NAME); "+
		"the configuration in force is unchanged", m.opt.ConfigPath, plural.Count(len(names), "node"), shown)
}

// firstFive says the first five of items, each as say puts it, and how
// many more: a refusal names enough to act on without listing hundreds.
func firstFive[T any](items []T, say func(T) string) string {
	shown := make([]string, 0, 6)
	for _, it := range items[:min(len(items), 5)] {
		shown = append(shown, say(it))
	}
	if len(items) > 5 {
		shown = append(shown, fmt.Sprintf("and %d more", len(items)-5))
	}
	return strings.Join(shown, ", ")
}

// reloader is a configuration reload of its master: the checks that
// refuse one, the node moves it records and the warnings it gives.
type reloader struct{ m *Master }
