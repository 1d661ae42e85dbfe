package config

import (
	"fmt"
	"os"
	"time"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
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
	// DefaultLostNodeGrace is Config.LostNodeGrace unless configured
	// (the cluster spec's).
	DefaultLostNodeGrace = spec.DefaultLostNodeGrace
	// MaxNodeGPUsLimit bounds max_node_gpus.
	MaxNodeGPUsLimit       = 4096
	DefaultGrace           = 30 * time.Second
	DefaultZeroSlotLimit   = spec.DefaultZeroSlotLimit
	DefaultKillGrace       = spec.DefaultKillGrace
	DefaultOverQuotaWeight = 1.0
	// DefaultMaxAge is a multifactor pool's max_age when its multifactor
	// block leaves it out.
	DefaultMaxAge = spec.DefaultMaxAge
)

// DefaultDecay is the usage decay of a file without one, as the
// scheduling core takes it: Slurm's default half-life of seven days,
// usage measured against a day's capacity.
func DefaultDecay() sched.Decay { return spec.DefaultDecay.Sched() }

// MaxNameBytes bounds every name (pool, node, project, user), as job files
// bound the pool and project names they refer to.
const MaxNameBytes = spec.MaxNameBytes

// The value lists below are in the order error messages present them.
var (
	policies     = spec.Policies
	reservations = spec.Reservations
	placements   = spec.Placements
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
	// NoFence turns the agents' fence off (fence: false): an agent that
	// has not reached the master for nearly AgentTimeout then lets the
	// tasks the master requeues at the loss run on (docs/reliability.md).
	NoFence bool
	// MaxNodeGPUs caps the GPUs a registering node may declare; 0 leaves
	// the master's --max-node-gpus in force.
	MaxNodeGPUs int
	// HistoryRetention is how long a finished job stays in the store
	// (its tasks, attempts, logs, metrics and events with it); 0 keeps
	// every job. Usage records stay whatever it is: they are the
	// accounting.
	HistoryRetention time.Duration
	// Cluster holds the cluster spec's sections (package spec, shared
	// with scenario files): the pools, projects, licenses and QOS levels
	// in file order, and the usage decay. QOS is sched.DefaultQOS when the
	// file has no qos section; Decay is DefaultDecay without a section,
	// and says how fast past usage stops counting against an account's
	// fair share in multifactor pools. The scheduling core's types come
	// from SchedPools, SchedProjects, SchedLicenses, SchedQOS and
	// SchedDecay. Its LostNodeGrace is how long a lost node's
	// non-preemptible tasks are given to reappear (the node's agent syncs
	// again and reports them running or ended) before they are failed as
	// lost; preemptible tasks are requeued at once, and 0 fails them as
	// soon as the node is lost.
	spec.Cluster[Pool]
	Nodes []NodeRule
	Users []User
	// DefaultQOS is the QOS of jobs that name none: the file's
	// default_qos, else the first listed; "" only when QOS is empty.
	DefaultQOS string
	// DefaultQOSSet says the file gives default_qos rather than leave it
	// to the first level (QOSWarning).
	DefaultQOSSet bool
	// File is the name the configuration was parsed under (Load's path),
	// so that a refusal it causes can send the admin to it; "" for the
	// built-in default.
	File string
}

// License is a cluster-wide consumable resource, such as commercial
// software seats: at most Total are held at once. It is the cluster
// spec's type, shared with scenario files.
type License = spec.License

// Pool is a set of nodes scheduled under one policy: the cluster spec's
// pool (name, policy and options, in package spec) and the master's own
// settings. In a Config, Preemption is always true for quota pools, which
// reclaim by preemption, and Multifactor is the file's block, or
// sched.DefaultMultifactor without one, for multifactor pools.
type Pool struct {
	spec.Pool
	// Grace is how long a preempted task has to checkpoint before it is
	// killed; GraceLine the line of its file that set it (0: the default).
	Grace     time.Duration
	GraceLine int
	// OnPreempt and MaxRetries are the pool's default exit actions, which
	// its jobs take unless their files say otherwise, as a scenario
	// pool's (spec.ExitActionFields): spec.OnPreemptReschedule or
	// spec.OnPreemptFail, and spec.NoRetryCap (-1) for no cap on the
	// times a task is rescheduled after a preemption or a lost attempt.
	OnPreempt  string
	MaxRetries int
}

// NodeRule pins a node, by the name its agent registers with, to a pool
// and adds labels to the ones the agent reports: the cluster spec's node
// (name and labels, shared with scenario files, whose nodes give slots
// and a GPU type that live nodes report) and the pool. Labels is nil when
// the rule gives none.
type NodeRule struct {
	spec.Node
	// Pool is "" when the rule only adds labels; the node then joins the
	// pool its agent asks for, or the default pool.
	Pool string
}

// Project is a quota entity, the cluster spec's type (shared with
// scenario files). Projects nest: a parent's quota is divided among its
// children, whose quotas add up to at most the parent's. In a Config,
// Shares is always set: the file's shares, else Quota when it is
// positive, else 1.
type Project = spec.Project

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
		Cluster: spec.Cluster[Pool]{
			Pools:         []Pool{defaultPool()},
			Projects:      []Project{defaultProject()},
			QOS:           spec.DefaultQOS(),
			Decay:         spec.DefaultDecay,
			LostNodeGrace: DefaultLostNodeGrace,
		},
		DefaultQOS: sched.DefaultQOS()[0].Name,
	}
}

// defaultPool is the pool created when a file lists none.
func defaultPool() Pool {
	return Pool{
		Pool: spec.Pool{
			Name:          DefaultPoolName,
			Policy:        sched.PolicyPriority,
			Preemption:    true,
			Backfill:      true,
			Placement:     sched.PlaceBinpack,
			ZeroSlotLimit: DefaultZeroSlotLimit,
			KillGrace:     DefaultKillGrace,
		},
		Grace:      DefaultGrace,
		OnPreempt:  spec.OnPreemptReschedule,
		MaxRetries: spec.NoRetryCap,
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
	p := &parser{Parser: spec.NewParser(yamlfield.New(name, format), dialect)}
	root, ok := p.Decode(data)
	if !ok {
		return nil, p.Err()
	}
	c := p.config(root)
	if err := p.Err(); err != nil {
		return nil, err
	}
	c.File = name
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
