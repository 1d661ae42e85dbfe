package spec

import (
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/yamlfield"
)

// Pool is the part of a pool that both formats give: its name, its policy
// and the policy's options. Each format's pool type embeds it and adds
// its own fields (the master's grace; a scenario's nodes and quota).
type Pool struct {
	Name   string
	Policy sched.Policy
	// Preemption is always true for a quota pool of the master's
	// configuration, which reclaims by preemption; scenario files leave
	// it false there (the simulator's quota pools reclaim regardless).
	Preemption bool
	Backfill   bool
	// Reservations is easy or conservative for backfill pools and
	// multifactor pools that backfill, "" for the others.
	Reservations sched.Reservations
	Placement    sched.Placement // binpack unless given
	// MinRunTime is how long a task must have run before it may be
	// preempted, moved or resized; 0 means no minimum.
	MinRunTime time.Duration
	// Multifactor holds the weights of a multifactor pool; zero for other
	// policies.
	Multifactor sched.Multifactor
	// ZeroSlotLimit caps the zero-slot tasks (CPU notebooks,
	// TensorBoards) on each node of the pool, 0 for none;
	// DefaultZeroSlotLimit unless given.
	ZeroSlotLimit int
	// KillGrace is how long a killed task (allot job kill, a time limit,
	// a failed gang part) has between the SIGTERM to its process group
	// and the SIGKILL of what is left of it; 0 kills at once.
	// DefaultKillGrace unless given. The simulator does not model it: a
	// scenario's kills end at once, or as its slow_kills say.
	KillGrace time.Duration
	Line      int
}

// DefaultZeroSlotLimit is a pool's zero_slot_limit when its file gives
// none: lifecycle.DefaultZeroSlotLimit, which a test keeps equal.
const DefaultZeroSlotLimit = 100

// DefaultKillGrace is a pool's kill_grace when its file gives none:
// Slurm's KillWait and Kubernetes' terminationGracePeriodSeconds default
// to 30 s, so a batch script's `trap 'save; exit' TERM` written for
// either gets here the time it gets there. Most tasks do not trap
// SIGTERM and die of it at once; only those that trap it and then hang
// hold their GPUs (the task stays killing) for the whole grace.
const DefaultKillGrace = 30 * time.Second

// Sched returns the pool as the scheduling core takes it; a format adds
// what only it has (a scenario's Serial).
func (pl Pool) Sched() sched.Pool {
	return sched.Pool{
		Name:         pl.Name,
		Policy:       pl.Policy,
		Preemption:   pl.Preemption,
		Backfill:     pl.Backfill,
		Reservations: pl.Reservations,
		Placement:    pl.Placement,
		MinRunTime:   int64(pl.MinRunTime / time.Second),
		Multifactor:  pl.Multifactor,
	}
}

// PoolEntries returns the entries of the pools section; an absent
// section has none.
func (p *Parser) PoolEntries(raw *yaml.Node) []*yaml.Node {
	if raw == nil {
		return nil
	}
	items, ok := p.List(raw, "pools", "pools")
	// Until every pool has a name, an unknown pool name elsewhere may just
	// be the broken pool, so the reference checks stay quiet.
	p.PoolsKnown = ok
	return items
}

// PoolFields starts reading pool entry i: it reads the name, checks that
// it is unique, and returns the entry's fields for the rest. ok is false
// when the entry is not a mapping.
func (p *Parser) PoolFields(raw *yaml.Node, i int) (f *yamlfield.Fields, pl Pool, ok bool) {
	pl = Pool{Placement: sched.PlaceBinpack, ZeroSlotLimit: DefaultZeroSlotLimit, KillGrace: DefaultKillGrace, Line: raw.Line}
	path := yamlfield.Index("pools", i)
	f, ok = p.Fields(raw, path)
	if !ok {
		p.PoolsKnown = false
		return nil, pl, false
	}
	if !f.Required("name") || !yamlfield.Field(f, "name", &pl.Name, p.Name) {
		p.PoolsKnown = false
		return f, pl, true
	}
	f.Path = path + " " + yamlfield.Quote(pl.Name)
	if first, dup := p.pools[pl.Name]; dup {
		f.Errorf("name", "duplicate pool name %s (first at line %d)", yamlfield.Quote(pl.Name), first)
	} else {
		p.AddPool(pl.Name, raw.Line)
	}
	return f, pl, true
}

// AddPool registers a pool's name (a pool no file gave, such as the
// master's "default", at line 0).
func (p *Parser) AddPool(name string, line int) {
	p.pools[name] = line
	p.PoolOrder = append(p.PoolOrder, name)
}

// HasPool reports whether a pool of that name was read.
func (p *Parser) HasPool(name string) bool {
	_, ok := p.pools[name]
	return ok
}

// PoolOptions reads a pool's policy and the policy's options: policy
// (required), preemption, backfill, reservations, placement,
// min_run_time, zero_slot_limit, kill_grace and multifactor. It reports whether the policy is valid.
// CheckPolicy then checks the options against the policy, once the
// format has read its own fields.
func (p *Parser) PoolOptions(f *yamlfield.Fields, pl *Pool) bool {
	policyOK := f.Required("policy") && yamlfield.Field(f, "policy", &pl.Policy, yamlfield.Enum("policy", Policies...))
	yamlfield.Field(f, "preemption", &pl.Preemption, yamlfield.Boolean)
	yamlfield.Field(f, "backfill", &pl.Backfill, yamlfield.Boolean)
	yamlfield.Field(f, "reservations", &pl.Reservations, yamlfield.Enum("reservations", Reservations...))
	yamlfield.Field(f, "placement", &pl.Placement, yamlfield.Enum("placement", Placements...))
	minRun := yamlfield.Duration
	if p.Scenario {
		minRun = yamlfield.PositiveDuration // scenario files leave it out for none
	}
	var secs int64
	if yamlfield.Field(f, "min_run_time", &secs, minRun) {
		pl.MinRunTime = time.Duration(secs) * time.Second
	}
	yamlfield.Field(f, "zero_slot_limit", &pl.ZeroSlotLimit, yamlfield.IntAtLeast(0))
	KillGraceField(f, pl)
	mf, _ := p.Multifactor(f, pl.Policy)
	if pl.Policy == sched.PolicyMultifactor {
		pl.Multifactor = mf
		if mf.FairShare > 0 {
			p.FairSharePools++
		}
	}
	return policyOK
}

// KillGraceField reads a pool's kill_grace (a duration >= 0), which
// every pool takes whatever its policy; PoolOptions reads it, and a
// format calls it for a pool whose options come from elsewhere (a
// scenario pool that shares another's nodes keeps its own kill grace).
func KillGraceField(f *yamlfield.Fields, pl *Pool) {
	var secs int64
	if yamlfield.Field(f, "kill_grace", &secs, yamlfield.Duration) {
		pl.KillGrace = time.Duration(secs) * time.Second
	}
}

// CheckPolicy rejects options the pool's policy would ignore, since a
// setting that silently does nothing hides a misunderstanding, and fills
// in the reservations of pools that reserve. It does nothing for a pool
// whose policy is unknown (broken, or taken from another pool).
func (p *Parser) CheckPolicy(f *yamlfield.Fields, pl *Pool) {
	quota := pl.Policy == sched.PolicyQuota
	switch {
	case pl.Policy == "":
		return
	case quota && f.Node("preemption") != nil && (p.Scenario || !pl.Preemption):
		// Quota pools reclaim whatever the field says, so a false would
		// be ignored in silence. The master's files have always allowed
		// preemption: true there; scenario files take neither, the
		// stricter rule.
		f.Errorf("preemption", "quota pools always reclaim quota by preemption; leave preemption out")
	case pl.Preemption && !quota && pl.Policy != sched.PolicyPriority && pl.Policy != sched.PolicyFairShare &&
		pl.Policy != sched.PolicyMultifactor:
		f.Errorf("preemption", "only priority, fair_share, quota and multifactor pools preempt, and this pool's policy is %s", pl.Policy)
	}
	if quota && !p.Scenario {
		pl.Preemption = true
	}
	if pl.Backfill && pl.Policy != sched.PolicyPriority && pl.Policy != sched.PolicyMultifactor {
		f.Errorf("backfill", "only priority and multifactor pools take backfill: true (backfill pools always backfill), and this pool's policy is %s", pl.Policy)
	}
	reserves := pl.Policy == sched.PolicyBackfill || (pl.Policy == sched.PolicyMultifactor && pl.Backfill)
	if f.Node("reservations") != nil && !reserves {
		what := string(pl.Policy)
		if pl.Policy == sched.PolicyMultifactor {
			what += " without backfill"
		}
		f.Errorf("reservations", "only backfill pools and multifactor pools with backfill: true take reservations, and this pool's policy is %s", what)
	}
	if reserves && pl.Reservations == "" {
		pl.Reservations = sched.ReserveEASY
	}
}
