package config

import (
	"fmt"
	"os"
	"time"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/yamlfield"
)

// The names the master falls back to, and what it creates when a file
// lists no pools or no projects.
const (
	DefaultPoolName    = "default"
	DefaultProjectName = "default"
)

// Defaults of fields a file leaves out.
const (
	DefaultAgentTimeout = 30 * time.Second
	// DefaultLostNodeGrace is Config.LostNodeGrace unless configured: as
	// long as Kubernetes waits before it evicts the pods of a node that
	// stopped answering.
	DefaultLostNodeGrace = 5 * time.Minute
	// MaxNodeGPUsLimit bounds max_node_gpus.
	MaxNodeGPUsLimit       = 4096
	DefaultGrace           = 30 * time.Second
	DefaultZeroSlotLimit   = 100
	DefaultOverQuotaWeight = 1.0
	// DefaultMaxAge is a multifactor pool's max_age when its multifactor
	// block leaves it out.
	DefaultMaxAge = 7 * 24 * time.Hour
)

// DefaultDecay is the usage decay of a file without one: Slurm's default
// half-life of seven days, usage measured against a day's capacity.
func DefaultDecay() sched.Decay {
	return sched.Decay{Period: 86400, HalfLife: 7 * 86400}
}

// MaxNameBytes bounds every name (pool, node, project, user), as job files
// bound the pool and project names they refer to.
const MaxNameBytes = 128

// The value lists below are in the order error messages present them.
var (
	policies = []sched.Policy{sched.PolicyFIFO, sched.PolicyBackfill, sched.PolicyFairShare,
		sched.PolicyPriority, sched.PolicyQuota, sched.PolicyMultifactor}
	reservations = []sched.Reservations{sched.ReserveEASY, sched.ReserveConservative}
	placements   = []sched.Placement{sched.PlaceBinpack, sched.PlaceSpread}
)

// Config is the master's configuration: one parsed and validated file.
// Every default is filled in, so a Config needs no further interpretation.
type Config struct {
	// DefaultPool takes jobs and nodes that name no pool.
	DefaultPool string
	// DefaultProject takes jobs that name no project (of users without
	// their own default).
	DefaultProject string
	// AgentTimeout is how long an agent may stay silent before its node
	// is lost.
	AgentTimeout time.Duration
	// LostNodeGrace is how long a lost node's non-preemptible tasks are
	// given to reappear (the node's agent syncs again and reports them
	// running or ended) before they are failed as lost. Preemptible tasks
	// are requeued at once. 0 fails them as soon as the node is lost.
	LostNodeGrace time.Duration
	// MaxNodeGPUs caps the GPUs a registering node may declare; 0 leaves
	// the master's --max-node-gpus in force.
	MaxNodeGPUs int
	// HistoryRetention is how long a finished job stays in the store
	// (its tasks, attempts, logs, metrics and events with it); 0 keeps
	// every job. Usage records stay whatever it is: they are the
	// accounting.
	HistoryRetention time.Duration
	Pools            []Pool
	Nodes            []NodeRule
	Projects         []Project // in file order
	Users            []User
	// Licenses are cluster-wide counted resources, in file order.
	Licenses []License
	// QOS lists the qualities of service jobs may ask for, in file order
	// (sched.DefaultQOS when the file has no qos section). DefaultQOS is
	// the QOS of jobs that name none: the file's default_qos, else the
	// first listed; "" only when the list is empty.
	QOS        []sched.QOS
	DefaultQOS string
	// Decay is how fast past usage stops counting against an account's
	// fair share in multifactor pools.
	Decay sched.Decay
}

// License is a cluster-wide consumable resource, such as commercial
// software seats: at most Total are held at once.
type License struct {
	Name  string
	Total int // >= 0
}

// Pool is a set of nodes scheduled under one policy.
type Pool struct {
	Name       string
	Policy     sched.Policy
	Preemption bool // always true for quota pools, which reclaim by preemption
	Backfill   bool
	// Reservations is easy or conservative for backfill pools, "" for
	// the others.
	Reservations sched.Reservations
	Placement    sched.Placement
	// Grace is how long a preempted task has to checkpoint before it is
	// killed.
	Grace time.Duration
	// ZeroSlotLimit caps the zero-slot tasks on each node of the pool.
	ZeroSlotLimit int
	// MinRunTime is how long a task must have run before it may be
	// preempted, moved or resized; 0 means no minimum.
	MinRunTime time.Duration
	// Multifactor holds the weights of a multifactor pool: the file's
	// multifactor block, or sched.DefaultMultifactor without one. Zero
	// for other policies.
	Multifactor sched.Multifactor
}

// NodeRule pins a node, by the name its agent registers with, to a pool
// and adds labels to the ones the agent reports.
type NodeRule struct {
	Name string
	// Pool is "" when the rule only adds labels; the node then joins the
	// pool its agent asks for, or the default pool.
	Pool   string
	Labels map[string]string // nil when the rule gives none
}

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
	// in multifactor pools: the file's shares, else Quota when it is
	// positive, else 1.
	Shares float64
}

// User is someone who submits jobs.
type User struct {
	Name string
	// Projects are the projects the user may submit to; a parent project
	// stands for every project under it. Empty: every project.
	Projects []string
	// DefaultProject is the leaf project the user's jobs go to when they
	// name none; always filled in.
	DefaultProject string
	// Shares is the user's fair-share entitlement among the users of a
	// project, in multifactor pools; > 0, default 1.
	Shares float64
}

// Default returns the configuration of a master started without a file:
// one pool "default" under the priority policy with preemption and
// backfill, and one project "default".
func Default() *Config {
	return &Config{
		DefaultPool:    DefaultPoolName,
		DefaultProject: DefaultProjectName,
		AgentTimeout:   DefaultAgentTimeout,
		LostNodeGrace:  DefaultLostNodeGrace,
		Pools:          []Pool{defaultPool()},
		Projects:       []Project{defaultProject()},
		QOS:            sched.DefaultQOS(),
		DefaultQOS:     sched.DefaultQOS()[0].Name,
		Decay:          DefaultDecay(),
	}
}

// defaultPool is the pool created when a file lists none.
func defaultPool() Pool {
	return Pool{
		Name:          DefaultPoolName,
		Policy:        sched.PolicyPriority,
		Preemption:    true,
		Backfill:      true,
		Placement:     sched.PlaceBinpack,
		Grace:         DefaultGrace,
		ZeroSlotLimit: DefaultZeroSlotLimit,
	}
}

// defaultProject is the project created when a file lists none.
func defaultProject() Project {
	return Project{Name: DefaultProjectName, OverQuotaWeight: DefaultOverQuotaWeight, Shares: 1}
}

// Load reads the configuration file at path and parses it.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	return Parse(path, data)
}

// Parse parses and validates a configuration. name only labels error
// messages. It returns a complete Config or an error, never both.
func Parse(name string, data []byte) (*Config, error) {
	p := &parser{Parser: yamlfield.New(name, format)}
	root, ok := p.Decode(data)
	if !ok {
		return nil, p.Err()
	}
	c := p.config(root)
	if err := p.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// format is how config files spell errors: paths like
// `projects[2] "vision": quota`, as scenario files do, with numbers and
// booleans shown as written.
var format = yamlfield.Options{
	Paths:          yamlfield.PathColons,
	BareNumbers:    true,
	RejectNullKeys: true,
	Expected:       "a mapping with pools, nodes, projects or users",
	Document:       "a config file",
}

// Error is one problem in a config file.
type Error = yamlfield.Error
