package scenario

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/allot-sched/allot/yamlfield"
)

// Scheduling policies of a pool.
const (
	PolicyFIFO      = "fifo"
	PolicyBackfill  = "backfill"
	PolicyFairShare = "fair_share"
	PolicyPriority  = "priority"
	PolicyQuota     = "quota"
)

// Reservation modes of a backfill pool.
const (
	ReservationsEasy         = "easy"
	ReservationsConservative = "conservative"
)

// Task placement strategies of a pool.
const (
	PlacementBinpack = "binpack"
	PlacementSpread  = "spread"
)

// Job kinds.
const (
	KindExperiment  = "experiment"
	KindCommand     = "command"
	KindNotebook    = "notebook"
	KindShell       = "shell"
	KindTensorboard = "tensorboard"
)

// Trace file formats.
const (
	TraceSWF = "swf"
	TraceCSV = "csv"
)

// Priority classes: named bands of priorities, as in job files. A class
// alone sets its canonical number (HIGH 10, NORMAL 42, LOW 80); a
// priority alone has the class of its band (1-29, 30-59, 60-99).
const (
	ClassHigh   = "HIGH"
	ClassNormal = "NORMAL"
	ClassLow    = "LOW"
)

// What happens to a task after it is preempted (its exit action).
const (
	OnPreemptReschedule = "reschedule"
	OnPreemptFail       = "fail"
)

// Job defaults and limits.
const (
	DefaultPriority = 42
	MinPriority     = 1
	MaxPriority     = 99
	DefaultWeight   = 1.0
)

// MaxNodes bounds the number of nodes in one file after count expansion, so
// that a typo such as "count: 1000000000" fails cleanly instead of
// exhausting memory.
const MaxNodes = 100_000

// The value lists below are in the order error messages present them.
var (
	policies     = []string{PolicyFIFO, PolicyBackfill, PolicyFairShare, PolicyPriority, PolicyQuota}
	classes      = []string{ClassHigh, ClassNormal, ClassLow}
	onPreempts   = []string{OnPreemptReschedule, OnPreemptFail}
	reservations = []string{ReservationsEasy, ReservationsConservative}
	placements   = []string{PlacementBinpack, PlacementSpread}
	kinds        = []string{KindExperiment, KindCommand, KindNotebook, KindShell, KindTensorboard}
	traceFormats = []string{TraceSWF, TraceCSV}
)

// Scenario is one parsed and validated scenario file.
type Scenario struct {
	Name  string // the name given to Parse, or the path given to Load
	Pools []Pool
	// Projects are the quota entities of quota pools, in file order.
	Projects []Project
	// Licenses and QOS are the cluster-wide licenses and the qualities of
	// service jobs may name, in file order.
	Licenses []License
	QOS      []QOS
	Jobs     []Job     // in file order; empty when Trace is set
	Trace    *TraceRef // set when jobs come from a trace file
	Events   []Event   // in file order
}

// TraceRef points at a job trace used instead of inline jobs.
type TraceRef struct {
	Path   string // relative to the scenario's directory when loaded with Load
	Format string // TraceSWF, TraceCSV, or "" to let the caller decide
	Line   int
}

// Pool is a set of nodes scheduled by one policy.
type Pool struct {
	Name           string
	Policy         string
	Preemption     bool
	Backfill       bool
	Serial         bool
	Reservations   string // "" unless Policy is PolicyBackfill
	Placement      string
	CheckpointCost int64 // seconds
	Nodes          []Node
	// Quota is the pool's own GPU quota (OSMO pools), or -1 for none. A
	// pool with a quota is a quota pool whose jobs form one project named
	// after the pool.
	Quota int
	// SharesNodesWith names the pool whose nodes this one shares; it is
	// "" for a pool with nodes of its own. A sharing pool has no Nodes and
	// takes Policy, Placement and CheckpointCost from that pool.
	SharesNodesWith string
	// OnPreempt and MaxRetries are the defaults of the pool's jobs:
	// OnPreemptReschedule or OnPreemptFail, and -1 for no retry cap.
	OnPreempt  string
	MaxRetries int
	Line       int
}

// Project is a quota entity (a team, a department) of quota pools.
type Project struct {
	Name   string
	Parent string // "" at the top
	// Quota is the deserved number of slots.
	Quota int
	// OverQuotaWeight divides spare slots among projects over their quota;
	// it defaults to Quota.
	OverQuotaWeight float64
	// Limit caps the slots the project may hold; 0 means no limit.
	Limit int
	Line  int
}

// Node is one machine; a "count: N" entry in the file becomes N Nodes.
type Node struct {
	Name   string
	Slots  int
	GPU    string
	Labels map[string]string // nil when the file gives none
	Line   int
}

// Job is a group of identical tasks submitted together.
type Job struct {
	Name          string
	Kind          string
	Submit        int64 // seconds from time 0
	Pool          string
	Tasks         int
	MaxConcurrent int
	Slots         int
	Duration      int64 // seconds; -1 when absent: the task runs until killed
	TimeLimit     int64 // seconds; 0 when absent
	Priority      int
	// PriorityClass is always the class of Priority's band.
	PriorityClass string
	Weight        float64
	Preemptible   bool
	// Project is the job's quota entity: the project it names, or for a
	// job in a pool with a quota, that pool's name. "" for none.
	Project string
	User    string
	// Interactive work runs only within its project's quota and is never
	// preempted; it is false outside quota pools unless the kind sets it.
	Interactive bool
	// GPU restricts the job to nodes of that GPU type; "" for any.
	GPU string
	// CheckpointEvery is how often a task checkpoints, in seconds; 0 when
	// absent (a preempted task keeps all its progress).
	CheckpointEvery int64
	// OnPreempt and MaxRetries are resolved: the job's own, else its
	// pool's, else reschedule with no cap (-1).
	OnPreempt  string
	MaxRetries int
	// QOS names one of the file's QOS levels, or "" for none (the first
	// one listed, if any). Licenses maps license names of the file to how
	// many each task holds while it runs; nil for none.
	QOS      string
	Licenses map[string]int
	// MinSlots and MaxSlots (elastic jobs) are parsed and checked, but the
	// simulator cannot replay elastic jobs yet, so Parse rejects a file
	// that gives them; they are always zero in a returned Scenario.
	MinSlots int
	MaxSlots int
	Line     int
}

// EventKind names what an Event does.
type EventKind string

// Event kinds.
const (
	EventKill        EventKind = "kill"
	EventSetPriority EventKind = "set_priority"
	EventSetWeight   EventKind = "set_weight"
)

var eventKinds = []EventKind{EventKill, EventSetPriority, EventSetWeight}

// Event changes a job at a point in simulated time.
type Event struct {
	At       int64 // seconds from time 0
	Kind     EventKind
	Job      string
	Priority int     // for EventSetPriority
	Weight   float64 // for EventSetWeight
	Line     int
}

// Load reads the scenario file at path and parses it. A relative trace path
// in the file is resolved against the file's directory.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load scenario: %w", err)
	}
	s, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	if s.Trace != nil && !filepath.IsAbs(s.Trace.Path) {
		s.Trace.Path = filepath.Join(filepath.Dir(path), s.Trace.Path)
	}
	return s, nil
}

// Parse parses and validates a scenario. name only labels error messages;
// Parse reads no files, so a trace path is returned exactly as written.
func Parse(name string, data []byte) (*Scenario, error) {
	p := &parser{Parser: yamlfield.New(name, format)}
	root, ok := p.Decode(data)
	if !ok {
		return nil, p.Err()
	}
	s := p.scenario(root)
	if err := p.Err(); err != nil {
		return nil, err
	}
	s.Name = name
	return s, nil
}

// parser holds the state of one Parse call. Validation keeps going after
// an error so that one run reports several independent mistakes; the
// name tables let later sections check references to earlier ones.
type parser struct {
	*yamlfield.Parser

	pools          map[string]*poolInfo
	poolOrder      []string
	firstPool      string
	poolNamesKnown bool // every pool entry has a valid name
	nodeLines      map[string]int
	nodeTotal      int
	jobLines       map[string]int
	jobOrder       []string
	jobNamesKnown  bool // every job entry has a valid name

	projects          map[string]*projectInfo
	projectOrder      []string
	projectNamesKnown bool // every project entry has a valid name

	licenses      map[string]int // totals; -1 for a broken entry
	licenseOrder  []string
	licensesKnown bool
	qos           map[string]bool
	qosOrder      []string
	qosKnown      bool
}
