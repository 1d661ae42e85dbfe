package master

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// TestExportReshapes: the export writes a node as it was when the
// window began, by the node history, and a node_reshape at each
// registration that gave it other GPUs, another GPU type, labels or
// pool (a node of a deleted one's name too), in the pool it was in then;
// a move to a pool the file lacks, a change from a shape the history
// lacks and a node of no GPUs are noted instead.
func TestExportReshapes(t *testing.T) {
	since := time.Unix(1_700_000_000, 0)
	cfg := &config.Config{DefaultPool: "default"}
	gpus := func(n int, typ string) []store.GPU {
		out := make([]store.GPU, n)
		for i := range out {
			out[i] = store.GPU{Index: i, Type: typ}
		}
		return out
	}
	at := func(s int) time.Time { return since.Add(time.Duration(s) * time.Second) }
	one, two := store.Node{Name: "n3", GPUs: gpus(1, "h100")}, store.Node{Name: "n3", GPUs: gpus(2, "h100")}
	registered := store.NodeEvent{Node: "n3", To: store.NodeUp, At: at(-100), Shape: &one}
	for _, c := range []struct {
		name   string
		evs    []store.NodeEvent
		start  string // n3 in the file, as shapeLine writes it
		events []string
		note   string // in the one note; "" for none
	}{
		{"deleted, back with more GPUs", []store.NodeEvent{registered,
			{Node: "n3", From: store.NodeUp, To: store.NodeDeleted, At: at(50), Deleted: &one},
			{Node: "n3", To: store.NodeUp, At: at(200), Shape: &two}},
			"1 h100", []string{"200 n3 2 h100"}, ""},
		{"deleted before the window, back in it", []store.NodeEvent{
			{Node: "n3", From: store.NodeUp, To: store.NodeDeleted, At: at(-50), Deleted: &two},
			{Node: "n3", To: store.NodeUp, At: at(20), Shape: &one}},
			"2 h100", []string{"20 n3 1 h100"}, ""},
		{"fewer GPUs of another type", []store.NodeEvent{registered,
			{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(30), Shape: &store.Node{GPUs: gpus(1, "a100")}}},
			"1 h100", []string{"30 n3 1 a100"}, ""},
		{"labelled", []store.NodeEvent{registered,
			{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(30), Shape: &store.Node{GPUs: gpus(1, "h100"), Labels: map[string]string{"rack": "r1"}}}},
			"1 h100", []string{"30 n3 1 h100 map[rack:r1]"}, ""},
		{"other UUIDs only", []store.NodeEvent{registered,
			{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(30), Shape: &store.Node{GPUs: []store.GPU{{Index: 0, UUID: "x", Type: "h100"}}}}},
			"1 h100", nil, ""},
		{"reshaped before the window", []store.NodeEvent{registered,
			{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(-30), Shape: &two}},
			"2 h100", nil, ""},
		{"another pool", []store.NodeEvent{registered,
			{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(30), Shape: &store.Node{Pool: "other", GPUs: gpus(1, "h100")}}},
			"1 h100", []string{"30 n3 1 h100 to other"}, ""},
		{"another pool, and back", []store.NodeEvent{registered,
			{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(30), Shape: &store.Node{Pool: "other", GPUs: gpus(2, "h100")}},
			{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(60), Shape: &store.Node{Pool: "default", GPUs: gpus(2, "h100")}}},
			"1 h100", []string{"30 n3 2 h100 to other", "60 n3 2 h100 to default"}, ""},
		{"a pool the file lacks", []store.NodeEvent{registered,
			{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(30), Shape: &store.Node{Pool: "gone", GPUs: gpus(1, "h100")}},
			{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(60), Shape: &store.Node{Pool: "other", GPUs: gpus(2, "h100")}}},
			"1 h100", []string{"60 n3 2 h100"}, "node n3 moved from pool default to pool gone at 30s"},
		{"in another pool when the window began, the pool's only node", []store.NodeEvent{
			{Node: "n3", To: store.NodeUp, At: at(-100), Shape: &store.Node{Name: "n3", Pool: "other", GPUs: gpus(1, "h100")}},
			{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(30), Shape: &one}},
			"1 h100", []string{"30 n3 1 h100"}, "node n3 was in pool other when the window began"},
		{"no shape before", []store.NodeEvent{
			{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(30), Shape: &one}},
			"3 h100", nil, "what it was before is not in the node history"},
		{"no GPUs", []store.NodeEvent{registered,
			{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(30), Shape: &store.Node{}}},
			"1 h100", nil, "node n3 registered with no GPUs at 30s"},
		{"another name", []store.NodeEvent{{Node: "n9", From: store.NodeUp, To: store.NodeReshaped, At: at(30), Shape: &one}},
			"3 h100", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := &scenario.Scenario{}
			sc.Pools = []scenario.Pool{{Pool: spec.Pool{Name: "default"}, Nodes: []scenario.Node{
				{Node: spec.Node{Name: "n3"}, Slots: 3, GPU: "h100"}}}, {Pool: spec.Pool{Name: "other"}}}
			notes, _ := exportReshapes(sc, cfg, recordedFree(c.evs), func(time.Time) bool { return false }, nil, since, at(1000))
			if got := shapeLine(sc.Pools[0].Nodes[0]); got != c.start {
				t.Errorf("n3 written as %s, want %s", got, c.start)
			}
			var events []string
			for _, e := range sc.Events {
				ev := fmt.Sprintf("%d %s %s", e.At, e.Node, shapeLine(*e.Shape))
				if e.Pool != "" {
					ev += " to " + e.Pool
				}
				events = append(events, ev)
			}
			if !slices.Equal(events, c.events) {
				t.Errorf("events %q, want %q", events, c.events)
			}
			switch {
			case c.note == "" && len(notes) > 0:
				t.Errorf("notes %q, want none", notes)
			case c.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], c.note)):
				t.Errorf("notes %q, want one with %q", notes, c.note)
			}
		})
	}
}

// shapeLine is a scenario node's slots, GPU type and labels.
func shapeLine(n scenario.Node) string {
	s := fmt.Sprintf("%d %s", n.Slots, n.GPU)
	if len(n.Labels) > 0 {
		s += fmt.Sprintf(" %v", n.Labels)
	}
	return s
}

// TestExportJobGPUs: a job keeps its GPU type where its pool's nodes
// have room for a task of it, in their file shape or a later one, and
// replays on any type, noted, where they do not.
func TestExportJobGPUs(t *testing.T) {
	sc := &scenario.Scenario{}
	sc.Pools = []scenario.Pool{{Pool: spec.Pool{Name: "default"}, Nodes: []scenario.Node{
		{Node: spec.Node{Name: "n1"}, Slots: 4, GPU: "h100"}, {Node: spec.Node{Name: "n2"}, Slots: 2, GPU: "h100"}}}}
	sc.Events = []scenario.Event{{At: 10, Kind: scenario.EventNodeReshape, Node: "n2", Shape: &scenario.Node{Slots: 3, GPU: "a100"}}}
	sc.Jobs = []scenario.Job{{Name: "h", Pool: "default", Slots: 6, GPU: "h100"}, {Name: "a", Pool: "default", Slots: 3, GPU: "a100"},
		{Name: "big", Pool: "default", Slots: 4, GPU: "a100"}, {Name: "t", Pool: "default", Slots: 1, GPU: "t4"}}
	notes := exportJobGPUs(sc)
	var got []string
	for _, j := range sc.Jobs {
		got = append(got, j.Name+":"+j.GPU)
	}
	if want := []string{"h:h100", "a:a100", "big:", "t:"}; !slices.Equal(got, want) {
		t.Errorf("jobs' types %q, want %q", got, want)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "job big asks for GPU type a100, of which its pool's nodes in the window have 3 slots") {
		t.Errorf("notes %q, want big's and t's", notes)
	}
}

// recordedFree is evs with the pool in effect that the store gives each
// registration (store.Node's PoolInEffect) under no node rule: its
// agent's, or the default pool.
func recordedFree(evs []store.NodeEvent) []store.NodeEvent {
	out := slices.Clone(evs)
	for i, e := range out {
		if e.Shape != nil && e.From != store.NodeReconfigured {
			out[i].Shape = inEffect(*e.Shape, cmp.Or(e.Shape.Pool, "default"))
		}
	}
	return out
}

// inEffect is a registration's shape n recorded with pool in effect.
func inEffect(n store.Node, pool string) *store.Node {
	n.PoolInEffect = pool
	return &n
}

// TestExportReloadMoves: a node that a reload moved (store.MoveNodes)
// is written in the pool it was in when the window began, by the node
// history, not by the node rules in force now, and each move as a
// node_reshape with its pool; a registration keeps the pool it put the
// node in (store.Node's PoolInEffect), a pinned one's the rule's, not its
// agent's.
func TestExportReloadMoves(t *testing.T) {
	since := time.Unix(1_700_000_000, 0)
	at := func(s int) time.Time { return since.Add(time.Duration(s) * time.Second) }
	gpus := func(n int) []store.GPU {
		out := make([]store.GPU, n)
		for i := range out {
			out[i] = store.GPU{Index: i, Type: "h100"}
		}
		return out
	}
	pinned := &config.Config{DefaultPool: "default", Nodes: []config.NodeRule{{Node: spec.Node{Name: "n3"}, Pool: "other"}}}
	free := &config.Config{DefaultPool: "default"}
	one, two := store.Node{Name: "n3", GPUs: gpus(1)}, store.Node{Name: "n3", GPUs: gpus(2)}
	registered := store.NodeEvent{Node: "n3", To: store.NodeUp, At: at(-100), Shape: inEffect(one, "default")}
	// n3's agent asks for pool other, and a rule pins it to default.
	own := one
	own.Pool = "other"
	ownPinned := store.NodeEvent{Node: "n3", To: store.NodeUp, At: at(-100), Shape: inEffect(own, "default")}
	move := func(s int, pool string, n store.Node) store.NodeEvent {
		n.Pool = pool
		return store.NodeEvent{Node: "n3", From: store.NodeReconfigured, To: store.NodeReshaped, At: at(s), Shape: &n}
	}
	for _, c := range []struct {
		name   string
		cfg    *config.Config
		evs    []store.NodeEvent
		start  string // n3's pool and shape in the file
		events []string
	}{
		{"pinned in the window", pinned, []store.NodeEvent{registered, move(30, "other", one)},
			"default 1 h100", []string{"30 n3 1 h100 to other"}},
		{"pinned before the window", pinned, []store.NodeEvent{registered, move(-50, "other", one),
			{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(30), Shape: inEffect(two, "other")}},
			"other 1 h100", []string{"30 n3 2 h100"}},
		{"pinned, registered again, unpinned", free, []store.NodeEvent{registered, move(30, "other", one),
			{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(40), Shape: inEffect(two, "other")}, move(60, "default", two)},
			"default 1 h100", []string{"30 n3 1 h100 to other", "40 n3 2 h100", "60 n3 2 h100 to default"}},
		{"no move: the pool recorded", pinned, []store.NodeEvent{{Node: "n3", To: store.NodeUp, At: at(-100), Shape: inEffect(one, "other")}},
			"other 1 h100", nil},
		// The rule is removed by a reload in the window: the node goes
		// back to its agent's pool.
		{"its agent's pool, pinned elsewhere, unpinned", free, []store.NodeEvent{ownPinned, move(30, "other", own)},
			"default 1 h100", []string{"30 n3 1 h100 to other"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := &scenario.Scenario{}
			sc.Pools = []scenario.Pool{
				{Pool: spec.Pool{Name: "default"}, Nodes: []scenario.Node{{Node: spec.Node{Name: "n1"}, Slots: 4, GPU: "h100"},
					{Node: spec.Node{Name: "n3"}, Slots: 3, GPU: "h100"}}},
				{Pool: spec.Pool{Name: "other"}}}
			notes, _ := exportReshapes(sc, c.cfg, c.evs, func(time.Time) bool { return false }, nil, since, at(1000))
			p := sc.Pools[poolOfNode(sc, "n3")]
			n := p.Nodes[slices.IndexFunc(p.Nodes, func(n scenario.Node) bool { return n.Name == "n3" })]
			if got := p.Name + " " + shapeLine(n); got != c.start {
				t.Errorf("n3 written as %s, want %s", got, c.start)
			}
			var events []string
			for _, e := range sc.Events {
				ev := fmt.Sprintf("%d %s %s", e.At, e.Node, shapeLine(*e.Shape))
				if e.Pool != "" {
					ev += " to " + e.Pool
				}
				events = append(events, ev)
			}
			if !slices.Equal(events, c.events) {
				t.Errorf("events %q, want %q", events, c.events)
			}
			if len(notes) > 0 {
				t.Errorf("notes %q, want none", notes)
			}
		})
	}
}

// TestExportRelabels: the labels a node rule gave a node, changed by a
// reload (a store.NodeRelabeled pair: those in effect until then, and
// from then on), are read from the history: the node's labels when the
// window began are those in effect then, a registration's agent labels
// are read under the rule of the next relabel of its node (or the rules
// in force now where none came later), and a change in the window is a
// node_reshape.
func TestExportRelabels(t *testing.T) {
	since := time.Unix(1_700_000_000, 0)
	at := func(s int) time.Time { return since.Add(time.Duration(s) * time.Second) }
	gpus := []store.GPU{{Index: 0, Type: "h100"}}
	now := &config.Config{DefaultPool: "default", Nodes: []config.NodeRule{{Node: spec.Node{Name: "n3", Labels: map[string]string{"switch": "s9"}}}}}
	reg := func(s int, own map[string]string) store.NodeEvent {
		return store.NodeEvent{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(s),
			Shape: &store.Node{Name: "n3", Pool: "default", GPUs: gpus, Labels: own}}
	}
	relabel := func(s int, labels map[string]string) store.NodeEvent {
		return store.NodeEvent{Node: "n3", From: store.NodeReconfigured, To: store.NodeRelabeled, At: at(s),
			Shape: &store.Node{Name: "n3", Pool: "default", GPUs: gpus, Labels: labels}}
	}
	first := store.NodeEvent{Node: "n3", To: store.NodeUp, At: at(-100), Shape: &store.Node{Name: "n3", Pool: "default", GPUs: gpus,
		Labels: map[string]string{"rack": "r1"}}}
	sw := func(s string) map[string]string { return map[string]string{"rack": "r1", "switch": s} }
	for _, c := range []struct {
		name   string
		evs    []store.NodeEvent
		start  string
		events []string
	}{
		{"no relabel: the rules now", []store.NodeEvent{first}, "1 h100 map[rack:r1 switch:s9]", nil},
		{"relabeled in the window", []store.NodeEvent{first, relabel(30, sw("s1")), relabel(30, sw("s9"))},
			"1 h100 map[rack:r1 switch:s1]", []string{"30 n3 1 h100 map[rack:r1 switch:s9]"}},
		{"relabeled before the window and in it", []store.NodeEvent{first, relabel(-50, sw("s1")), relabel(-50, sw("s2")),
			relabel(30, sw("s2")), relabel(30, sw("s9"))},
			"1 h100 map[rack:r1 switch:s2]", []string{"30 n3 1 h100 map[rack:r1 switch:s9]"}},
		{"registered again between relabels", []store.NodeEvent{first, relabel(-50, sw("s1")), relabel(-50, sw("s2")),
			reg(20, map[string]string{"rack": "r2"}), relabel(30, map[string]string{"rack": "r2", "switch": "s2"}),
			relabel(30, map[string]string{"rack": "r2", "switch": "s9"})},
			"1 h100 map[rack:r1 switch:s2]", []string{"20 n3 1 h100 map[rack:r2 switch:s2]", "30 n3 1 h100 map[rack:r2 switch:s9]"}},
		{"registered again after the last relabel", []store.NodeEvent{first, relabel(10, sw("s1")), relabel(10, sw("s9")),
			reg(20, map[string]string{"rack": "r2"})},
			"1 h100 map[rack:r1 switch:s1]", []string{"10 n3 1 h100 map[rack:r1 switch:s9]", "20 n3 1 h100 map[rack:r2 switch:s9]"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := &scenario.Scenario{}
			sc.Pools = []scenario.Pool{{Pool: spec.Pool{Name: "default"}, Nodes: []scenario.Node{
				{Node: spec.Node{Name: "n1"}, Slots: 4, GPU: "h100"}, {Node: spec.Node{Name: "n3"}, Slots: 3, GPU: "h100"}}}}
			notes, _ := exportReshapes(sc, now, c.evs, func(time.Time) bool { return false }, nil, since, at(1000))
			p := sc.Pools[0]
			n := p.Nodes[slices.IndexFunc(p.Nodes, func(n scenario.Node) bool { return n.Name == "n3" })]
			if got := shapeLine(n); got != c.start {
				t.Errorf("n3 written as %s, want %s", got, c.start)
			}
			var events []string
			for _, e := range sc.Events {
				events = append(events, fmt.Sprintf("%d %s %s", e.At, e.Node, shapeLine(*e.Shape)))
			}
			if !slices.Equal(events, c.events) {
				t.Errorf("events %q, want %q", events, c.events)
			}
			if len(notes) > 0 {
				t.Errorf("notes %q, want none", notes)
			}
		})
	}
}
