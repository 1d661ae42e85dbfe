package master

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// TestPlaceStartsKeepsEmptiedPool: a pool whose node a move took away in
// the window gets it back in the file, when the node's pool now keeps
// another, and keeps its jobs; otherwise it is left out with a note
// saying why.
func TestPlaceStartsKeepsEmptiedPool(t *testing.T) {
	since := time.Unix(1_700_000_000, 0)
	at := func(s int) time.Time { return since.Add(time.Duration(s) * time.Second) }
	pool := func(name string) config.Pool { return config.Pool{Pool: spec.Pool{Name: name}} }
	cfg := &config.Config{DefaultPool: "default"}
	cfg.Pools = []config.Pool{pool("default"), pool("batch")}
	shape := func(name, p string, gpus int) *store.Node {
		n := &store.Node{Name: name, Pool: p}
		for i := range gpus {
			n.GPUs = append(n.GPUs, store.GPU{Index: i, Type: "h100"})
		}
		return n
	}
	node := func(name string, slots int) scenario.Node {
		return scenario.Node{Node: spec.Node{Name: name}, Slots: slots, GPU: "h100"}
	}
	for _, c := range []struct {
		name     string
		now      []scenario.Node // default's nodes now; batch has none
		evs      []store.NodeEvent
		pools    map[string][]string // the file's pools and their nodes
		movedOut map[string]int
		note     string
	}{
		{"moved by a reload in the window", []scenario.Node{node("n1", 4), node("n3", 1)}, []store.NodeEvent{
			{Node: "n1", To: store.NodeUp, At: at(-100), Shape: shape("n1", "default", 4)},
			{Node: "n3", To: store.NodeUp, At: at(-100), Shape: shape("n3", "batch", 1)},
			{Node: "n3", From: store.NodeReconfigured, To: store.NodeReshaped, At: at(100), Shape: shape("n3", "default", 1)}},
			map[string][]string{"default": {"n1"}, "batch": {"n3"}}, map[string]int{"default": 1}, ""},
		{"registered in the window's first second", []scenario.Node{node("n1", 4), node("n3", 1)}, []store.NodeEvent{
			{Node: "n1", To: store.NodeUp, At: at(0), Shape: shape("n1", "default", 4)},
			{Node: "n3", To: store.NodeUp, At: at(0), Shape: shape("n3", "batch", 1)},
			{Node: "n3", From: store.NodeReconfigured, To: store.NodeReshaped, At: at(100), Shape: shape("n3", "default", 1)}},
			map[string][]string{"default": {"n1"}, "batch": {"n3"}}, map[string]int{"default": 1}, ""},
		{"moved after the window began, the only node now", []scenario.Node{node("n3", 1)}, []store.NodeEvent{
			{Node: "n3", To: store.NodeUp, At: at(-100), Shape: shape("n3", "batch", 1)},
			{Node: "n3", From: store.NodeReconfigured, To: store.NodeReshaped, At: at(100), Shape: shape("n3", "default", 1)}},
			map[string][]string{"default": {"n3"}}, map[string]int{},
			"pool batch left out: no node with GPUs is registered in it, and node n3, in it when the window began, is the only node of pool default now, which a scenario pool needs"},
		{"moved before the window began", []scenario.Node{node("n1", 4), node("n3", 1)}, []store.NodeEvent{
			{Node: "n3", To: store.NodeUp, At: at(-100), Shape: shape("n3", "batch", 1)},
			{Node: "n3", From: store.NodeReconfigured, To: store.NodeReshaped, At: at(-50), Shape: shape("n3", "default", 1)}},
			map[string][]string{"default": {"n1", "n3"}}, map[string]int{},
			"pool batch left out: no node with GPUs is registered in it, nor was one when the window began"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := &scenario.Scenario{}
			sc.Pools = []scenario.Pool{{Pool: spec.Pool{Name: "default"}, Nodes: slices.Clone(c.now)}, {Pool: spec.Pool{Name: "batch"}}}
			movedOut, stuck := placeStarts(sc, cfg, recordedFree(c.evs), since)
			notes := dropEmptyPools(sc, cfg, stuck)
			got := map[string][]string{}
			for _, p := range sc.Pools {
				for _, n := range p.Nodes {
					got[p.Name] = append(got[p.Name], n.Name)
				}
			}
			if !maps.EqualFunc(got, c.pools, slices.Equal) {
				t.Errorf("pools %v, want %v", got, c.pools)
			}
			if !maps.Equal(movedOut, c.movedOut) {
				t.Errorf("moved out %v, want %v", movedOut, c.movedOut)
			}
			if want := slices.DeleteFunc([]string{c.note}, func(n string) bool { return n == "" }); !slices.Equal(notes, want) {
				t.Errorf("notes %q, want %q", notes, want)
			}
		})
	}
}
