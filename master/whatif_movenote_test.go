package master

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// TestExportMoveNoteCause: a node's move, or start, that the file cannot
// carry is noted with the true reason its pool is missing: the
// configuration in force has no such pool, or has it but the export left
// it out, as no node with GPUs is registered in it.
func TestExportMoveNoteCause(t *testing.T) {
	since := time.Unix(1_700_000_000, 0)
	at := func(s int) time.Time { return since.Add(time.Duration(s) * time.Second) }
	pool := func(name string) config.Pool { return config.Pool{Pool: spec.Pool{Name: name}} }
	cfg := &config.Config{DefaultPool: "default"}
	cfg.Pools = []config.Pool{pool("default"), pool("other"), pool("idle")}
	shape := func(p string) *store.Node {
		return &store.Node{Name: "n3", Pool: p, GPUs: []store.GPU{{Index: 0, Type: "h100"}}}
	}
	for _, c := range []struct {
		name string
		evs  []store.NodeEvent
		note string
	}{
		{"to a pool the configuration has not", []store.NodeEvent{
			{Node: "n3", To: store.NodeUp, At: at(-100), Shape: shape("default")},
			{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(30), Shape: shape("gone")}},
			"node n3 moved from pool default to pool gone at 30s, and the configuration in force has no pool gone: the replay keeps it in default"},
		{"to a configured pool the export left out", []store.NodeEvent{
			{Node: "n3", To: store.NodeUp, At: at(-100), Shape: shape("default")},
			{Node: "n3", From: store.NodeUp, To: store.NodeReshaped, At: at(30), Shape: shape("idle")}},
			"node n3 moved from pool default to pool idle at 30s, and pool idle is not in the exported scenario, as no node with GPUs is registered in it: the replay keeps it in default"},
		{"by a reload, from a configured pool the export left out", []store.NodeEvent{
			{Node: "n3", To: store.NodeUp, At: at(-100), Shape: shape("idle")},
			{Node: "n3", From: store.NodeReconfigured, To: store.NodeReshaped, At: at(5), Shape: shape("default")}},
			"node n3 moved from pool idle to pool default at 5s, and pool idle is not in the exported scenario, as no node with GPUs is registered in it: the replay keeps it in default"},
		{"in a configured pool the export left out when the window began", []store.NodeEvent{
			{Node: "n3", To: store.NodeUp, At: at(-100), Shape: shape("idle")}},
			"node n3 was in pool idle when the window began, and later in pool default, and pool idle is not in the exported scenario, as no node with GPUs is registered in it, so the replay runs it in default"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := &scenario.Scenario{}
			sc.Pools = []scenario.Pool{{Pool: spec.Pool{Name: "default"}, Nodes: []scenario.Node{
				{Node: spec.Node{Name: "n3"}, Slots: 1, GPU: "h100"}}}, {Pool: spec.Pool{Name: "other"}}}
			notes, _ := exportReshapes(sc, cfg, recordedFree(c.evs), func(time.Time) bool { return false }, nil, since, at(1000))
			if !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, c.note) }) {
				t.Errorf("notes %q\nwant one starting %q", notes, c.note)
			}
		})
	}
}
