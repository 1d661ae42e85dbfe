package spec

import (
	"time"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/yamlfield"
)

// Project is a quota entity. Projects nest: a parent's quota is divided
// among its children, whose quotas add up to at most the parent's.
type Project struct {
	Name            string
	Parent          string // "" at the top
	Quota           int    // deserved slots, >= 0
	OverQuotaWeight float64
	Limit           int // 0: no limit; else >= Quota
	// PreemptBudget caps how many of the project's tasks are preempted
	// (or moved) per hour; 0 means no cap.
	PreemptBudget int
	// Shares is the project's fair-share entitlement among its siblings
	// in multifactor pools, in formats whose projects take shares (see
	// Dialect.ProjectShares): the file's shares, else Quota when it is
	// positive, else 1. 0 in the others.
	Shares float64
	// QOS lists the QOS levels the project's jobs may name (Slurm's
	// AllowQOS); nil: its parent's list, and at the top every level
	// (AllowedQOS).
	QOS []string
	// MaxPriorityClass is the most important priority class (HIGH,
	// NORMAL or LOW) its members may give their jobs; "": its parent's,
	// and at the top every class (MaxPriorityClass). Its leads and admins
	// are not capped.
	MaxPriorityClass string
	Line             int // 0 for a project no file gave
}

// License is a cluster-wide consumable resource, such as commercial
// software seats: at most Total are held at once across every pool.
type License struct {
	Name  string
	Total int // >= 0
	Line  int
}

// QOS is a quality of service jobs of priority and multifactor pools may
// name. Priority ranks QOS levels (and, divided by the highest, is the
// multifactor QOS factor); a QOS with Preempt lets its jobs preempt less
// important tasks of a lower QOS even in a pool without preemption.
type QOS struct {
	Name     string
	Priority int // >= 0
	Preempt  bool
	Line     int
}

// Sched returns the QOS as the scheduling core takes it.
func (q QOS) Sched() sched.QOS {
	return sched.QOS{Name: q.Name, Priority: q.Priority, Preempt: q.Preempt}
}

// Decay says how fast past usage stops counting. Usage is accounted per
// Period (which also normalises it: a period of every slot busy is 1), and
// at the end of each period all usage so far is multiplied by PerPeriod,
// or by 2^(−Period/HalfLife). Exactly one of PerPeriod and HalfLife is
// set in a parsed section.
type Decay struct {
	Period    int64 // seconds
	PerPeriod float64
	HalfLife  int64 // seconds
	Line      int   // 0 when the file gives none
}

// DefaultDecay is Slurm's default: usage counted per day with a half-life
// of seven days.
var DefaultDecay = Decay{Period: 86400, HalfLife: 7 * 86400}

// Sched returns the decay as the scheduling core takes it.
func (d Decay) Sched() sched.Decay {
	return sched.Decay{Period: d.Period, PerPeriod: d.PerPeriod, HalfLife: d.HalfLife}
}

// DefaultMaxAge is max_age in a multifactor block that leaves it out, in
// the master's configuration (scenario files have no defaults there).
const DefaultMaxAge = 7 * 24 * time.Hour

// MaxNameBytes bounds every name in formats with strict names
// (StrictName), as job files bound the pool and project names they
// refer to.
const MaxNameBytes = 128

// The value lists below are in the order error messages present them.
var (
	Policies       = []sched.Policy{sched.PolicyFIFO, sched.PolicyBackfill, sched.PolicyFairShare, sched.PolicyPriority, sched.PolicyQuota, sched.PolicyMultifactor}
	Reservations   = []sched.Reservations{sched.ReserveEASY, sched.ReserveConservative}
	Placements     = []sched.Placement{sched.PlaceBinpack, sched.PlaceSpread}
	FairShareModes = []sched.FairShareMode{sched.FairShareClassic, sched.FairShareTree}
)

// Dialect is what tells the formats that embed the cluster spec apart:
// the master's configuration file and the scenario file agree on every
// field's name and meaning, but not on every default and bound.
type Dialect struct {
	// Name checks every name the spec reads (pools, projects, QOS
	// levels, licenses): StrictName or AnyName.
	Name yamlfield.ValueParser[string]
	// Scenario selects the scenario format's rules where the formats
	// differ: a project must give its quota; limit and preempt_budget
	// are left out rather than 0; a quota pool takes no preemption
	// field at all (the master's takes preemption: true); license
	// names are any key but null and ""; a multifactor pool needs a
	// multifactor block, which has no defaults: a weight's setting
	// (max_age, fair_share_mode, favor_small) is required with the
	// weight and rejected without it.
	Scenario bool
	// ProjectShares lets projects take shares (the master's fair-share
	// tree is its projects).
	ProjectShares bool
	// DefaultQOS gives a file without a qos section sched.DefaultQOS.
	DefaultQOS bool
}

// Parser reads the cluster spec's sections for the parser of a format,
// which embeds it and walks its own top level. It keeps the name tables
// that later sections (users, accounts, jobs) check references against.
type Parser struct {
	*yamlfield.Parser
	Dialect

	pools map[string]int // line
	// PoolOrder lists the pools' names in file order.
	PoolOrder []string
	// PoolsKnown says every pool entry has a valid name.
	PoolsKnown bool
	// FairSharePools counts the multifactor pools with a fair_share
	// weight: the pools that read accounts and their decay.
	FairSharePools int

	projects  map[string]*projectInfo
	projOrder []*projectInfo
	// ProjectsKnown says every project entry has a valid name, so an
	// unknown project name elsewhere is a mistake there, not the broken
	// entry.
	ProjectsKnown bool

	licenses map[string]int // totals; -1 for a broken entry
	// LicenseOrder lists the licenses' names in file order.
	LicenseOrder  []string
	LicensesKnown bool

	qos map[string]int // line
	// QOSOrder lists the QOS levels' names in file order.
	QOSOrder   []string
	QOSKnown   bool
	QOSPreempt bool // some QOS level may preempt
}

// NewParser starts reading a file of the given dialect.
func NewParser(p *yamlfield.Parser, d Dialect) *Parser {
	return &Parser{Parser: p, Dialect: d, pools: map[string]int{}, PoolsKnown: true, projects: map[string]*projectInfo{}, ProjectsKnown: true,
		licenses: map[string]int{}, LicensesKnown: true, qos: map[string]int{}, QOSKnown: true}
}

// SchedProjects returns projects as the scheduling core takes them, in
// the same order, with parents as indexes (-1 at the top).
func SchedProjects(projects []Project) []sched.Project {
	idx := make(map[string]int, len(projects))
	for i, p := range projects {
		idx[p.Name] = i
	}
	out := make([]sched.Project, len(projects))
	for i, p := range projects {
		parent, ok := idx[p.Parent]
		if !ok {
			parent = -1
		}
		out[i] = sched.Project{Name: p.Name, Parent: parent, Quota: p.Quota, OverQuotaWeight: p.OverQuotaWeight,
			Limit: p.Limit, PreemptBudget: p.PreemptBudget}
	}
	return out
}

// SchedLicenses returns licenses as the scheduling core takes them, in
// the same order.
func SchedLicenses(licenses []License) []sched.License {
	out := make([]sched.License, len(licenses))
	for i, l := range licenses {
		out[i] = sched.License{Name: l.Name, Total: l.Total}
	}
	return out
}
