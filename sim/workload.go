package sim

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/trace"
)

// Formats of a workload file.
const (
	FormatScenario = "scenario"
	FormatSWF      = "swf"
	FormatCSV      = "csv"
)

// Default node sizes for bare traces: an SWF processor is one slot; GPU
// job logs come from 8-GPU servers.
const (
	defaultSWFSlots = 1
	defaultCSVSlots = 8
)

// ErrTraceOnly is LoadWorkload's error for a cluster shape (Nodes,
// Slots) given with a scenario: the caller's mistake, not the file's.
var ErrTraceOnly = errors.New("a scenario file gives its own pools and nodes; --nodes and --slots are for bare traces")

// WorkloadOptions say how to read a workload file.
type WorkloadOptions struct {
	// Format is FormatScenario, FormatSWF, FormatCSV, or "" to tell by
	// the file name.
	Format string
	// Nodes and Slots give a bare trace's cluster: Nodes nodes of Slots
	// slots. Zero means: from the trace's header (SWF MaxProcs, else
	// MaxNodes) and one slot per node for SWF, 8 for CSV.
	Nodes, Slots int
	// ProjectsByUser makes a trace job's project its user rather than its
	// group (SWF) or project column (CSV).
	ProjectsByUser bool
}

// Workload is a loaded workload file that can be replayed any number of
// times, each time with fresh streaming readers.
type Workload struct {
	Path   string
	Format string
	// Trace and TraceFormat name the trace the jobs come from, if any.
	Trace       string
	TraceFormat string
	// Scenario is the parsed scenario file; nil for a bare trace.
	Scenario *scenario.Scenario
	pools    []Pool
	maxTask  int // the widest task the first pool can ever place
	notes    []string
	opt      WorkloadOptions
	size     int64
}

// LoadWorkload reads a scenario file (.yaml, .yml) or a trace (.swf,
// .swf.gz, .csv, .csv.gz). A trace's jobs are not read yet, only its
// header.
func LoadWorkload(path string, opt WorkloadOptions) (*Workload, error) {
	format := opt.Format
	if format == "" {
		format = formatOf(path)
		if format == "" {
			return nil, fmt.Errorf("%s: cannot tell the format from the name; want .yaml, .swf, .swf.gz, .csv or .csv.gz, or give --format", path)
		}
	}
	w := &Workload{Path: path, Format: format, opt: opt}
	var err error
	switch format {
	case FormatScenario:
		err = w.loadScenario()
	case FormatSWF, FormatCSV:
		w.Trace, w.TraceFormat = path, format
		err = w.loadTrace()
	default:
		return nil, fmt.Errorf("unknown format %q (want scenario, swf or csv)", format)
	}
	if err != nil {
		return nil, err
	}
	if w.Trace != "" {
		st, err := os.Stat(w.Trace)
		if err != nil {
			if sc := w.Scenario; sc != nil && sc.Trace != nil {
				// The path came from the scenario's jobs: {trace: FILE},
				// resolved against the scenario's directory: say where.
				return nil, fmt.Errorf("%s:%d: jobs: trace: %w", sc.Name, sc.Trace.Line, err)
			}
			return nil, fmt.Errorf("trace: %w", err)
		}
		w.size = st.Size()
		w.maxTask = maxTask(&w.pools[0])
	}
	return w, nil
}

func formatOf(path string) string {
	name := strings.ToLower(filepath.Base(path))
	switch ext := filepath.Ext(strings.TrimSuffix(name, ".gz")); ext {
	case ".yaml", ".yml":
		if !strings.HasSuffix(name, ".gz") {
			return FormatScenario
		}
	case ".swf":
		return FormatSWF
	case ".csv":
		return FormatCSV
	}
	return ""
}

func (w *Workload) loadScenario() error {
	if w.opt.Nodes > 0 || w.opt.Slots > 0 {
		return fmt.Errorf("%s: %w", w.Path, ErrTraceOnly)
	}
	sc, err := scenario.Load(w.Path)
	if err != nil {
		return err
	}
	w.Scenario = sc
	w.pools = poolsFromScenario(sc)
	if sc.Trace != nil {
		w.Trace, w.TraceFormat = sc.Trace.Path, sc.Trace.Format
		if w.TraceFormat == "" {
			w.TraceFormat = formatOf(sc.Trace.Path)
		}
		if w.TraceFormat != FormatSWF && w.TraceFormat != FormatCSV {
			return fmt.Errorf("%s:%d: cannot tell the format of trace %s from its name; add format: swf or format: csv",
				sc.Name, sc.Trace.Line, sc.Trace.Path)
		}
		w.notes = append(w.notes, fmt.Sprintf("jobs from %s go to pool %q", filepath.Base(sc.Trace.Path), w.pools[0].Name))
	}
	return nil
}

// loadTrace reads a bare trace's header to size its cluster.
func (w *Workload) loadTrace() error {
	r, c, err := trace.Open(w.Path, w.Format)
	if err != nil {
		return err
	}
	defer c.Close()
	h := r.Header()
	nodes, slots := w.opt.Nodes, w.opt.Slots
	if slots <= 0 {
		slots = defaultSWFSlots
		if w.Format == FormatCSV {
			slots = defaultCSVSlots
		}
	}
	name := filepath.Base(w.Path)
	switch {
	case nodes > 0:
		w.notes = append(w.notes, "cluster: "+shape(nodes, slots)+", as asked")
	case w.Format == FormatCSV:
		return fmt.Errorf("%s: a GPU job CSV does not say how big its cluster was; give --nodes (and --slots, default %d)", w.Path, defaultCSVSlots)
	case h.MaxProcs > 0 || h.MaxNodes > 0:
		procs, from := h.MaxProcs, "MaxProcs"
		if procs <= 0 {
			procs, from = h.MaxNodes, "MaxNodes"
			w.notes = append(w.notes, fmt.Sprintf("%s gives no MaxProcs; its MaxNodes (%d) is taken as the processor count", name, procs))
		}
		nodes = (procs + slots - 1) / slots
		w.notes = append(w.notes, fmt.Sprintf("cluster: %s, from the trace's %s (%d)", shape(nodes, slots), from, procs))
	default:
		return fmt.Errorf("%s: the header gives neither MaxProcs nor MaxNodes; give --nodes (and --slots)", w.Path)
	}
	w.pools = []Pool{clusterPool(nodes, slots)}
	return nil
}

func shape(nodes, slots int) string {
	if slots == 1 {
		return plural.Count(nodes, "single-slot node")
	}
	return plural.Count(nodes, "node") + " of " + plural.Count(slots, "slot")
}

// clusterPool is the one pool of a bare trace, EASY backfill until a run's
// settings say otherwise.
func clusterPool(nodes, slots int) Pool {
	p := Pool{Pool: sched.Pool{Name: "cluster", Policy: sched.PolicyBackfill,
		Reservations: sched.ReserveEASY, Placement: sched.PlaceBinpack}, ZeroSlotLimit: lifecycle.DefaultZeroSlotLimit}
	p.Nodes = make([]sched.Node, nodes)
	for i := range p.Nodes {
		f := lifecycle.NodeFacts{Name: fmt.Sprintf("node-%d", i+1), Slots: slots, ZeroSlotLimit: lifecycle.DefaultZeroSlotLimit}
		p.Nodes[i] = f.Node()
	}
	return p
}

// maxTask is the widest task a pool can ever place: one node of a group,
// or a gang over all the nodes of one group (same size and GPU type).
func maxTask(p *Pool) int {
	type key struct {
		gpu   string
		slots int
	}
	total := map[key]int{}
	best := 0
	for _, n := range p.Nodes {
		k := key{n.GPU, n.Slots}
		total[k] += n.Slots
		best = max(best, total[k])
	}
	return best
}

// Slots is the cluster's size in slots.
func (w *Workload) Slots() int {
	n := 0
	for _, p := range w.pools {
		for _, nd := range p.Nodes {
			n += nd.Slots
		}
	}
	return n
}

// Policy describes the workload's own policies, for labels.
func (w *Workload) Policy() string { return describePools(w.pools) }

// Policy describes the input's policies on their own, for labels: one
// entry per pool, such as backfill/easy or fifo/serial, with /spread for
// spread placement (DescribeRuns, of one run).
func (in *Input) Policy() string { return describePools(in.Pools) }

func describePools(pools []Pool) string {
	return DescribeRuns([][]PoolConfig{poolConfigs(pools)})[0]
}

// Replay is one opened replay of a workload.
type Replay struct {
	Input *Input
	// Fraction reports how much of the workload has been read, 0 to 1.
	Fraction func() float64
	closer   io.Closer
}

// Close releases the trace file, if any.
func (r *Replay) Close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}

// Open prepares one replay under the given settings.
func (w *Workload) Open(set Settings) (*Replay, error) {
	pools := make([]Pool, len(w.pools))
	copy(pools, w.pools)
	for i := range pools {
		if err := set.apply(&pools[i]); err != nil {
			return nil, err
		}
	}
	rp := &Replay{}
	var src Source
	if w.Trace != "" {
		ts, closer, err := w.openTrace()
		if err != nil {
			return nil, err
		}
		src, rp.closer, rp.Fraction = ts, closer, ts.Fraction
	}
	if w.Scenario == nil {
		rp.Input = &Input{Jobs: src}
	} else {
		in, err := FromScenario(w.Scenario, src)
		if err != nil {
			rp.Close()
			return nil, err
		}
		rp.Input = in
		if ss, ok := in.Jobs.(*SliceSource); ok {
			rp.Fraction = ss.Fraction
		}
	}
	rp.Input.Pools = pools
	return rp, nil
}

func (w *Workload) openTrace() (*TraceSource, io.Closer, error) {
	f, err := os.Open(w.Trace)
	if err != nil {
		return nil, nil, fmt.Errorf("trace: %w", err)
	}
	cr := &countingReader{r: f}
	var r trace.Reader
	switch w.TraceFormat {
	case FormatSWF:
		r, err = trace.NewSWF(cr, w.Trace)
	case FormatCSV:
		r, err = trace.NewCSV(cr, w.Trace)
	default:
		err = errors.New("unknown trace format " + w.TraceFormat)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	ts := NewTraceSource(r, 0, w.maxTask, w.opt.ProjectsByUser)
	ts.counter, ts.size = cr, w.size
	ts.notes = w.notes
	return ts, f, nil
}
