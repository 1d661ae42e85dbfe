package master

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// TestDrainedAtStartDeleted: a node drained before the window is drained
// at 0, unless it was deleted since: a node of its name that registered
// again is a new one, not drained, until drained again.
func TestDrainedAtStartDeleted(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	ev := func(s int, from, to store.NodeState) store.NodeEvent {
		return store.NodeEvent{Node: "n1", From: from, To: to, At: t0.Add(time.Duration(s) * time.Second)}
	}
	drain := ev(1, store.NodeSchedulable, store.NodeDrained)
	deleted := ev(2, store.NodeUp, store.NodeDeleted)
	back := ev(3, "", store.NodeUp)
	again := ev(4, store.NodeSchedulable, store.NodeDrained)
	for _, c := range []struct {
		name string
		evs  []store.NodeEvent
		want int // drain events at 0
	}{
		{"drained", []store.NodeEvent{drain}, 1},
		{"drained, deleted", []store.NodeEvent{drain, deleted}, 0},
		{"drained, deleted, back", []store.NodeEvent{drain, deleted, back}, 0},
		{"drained, deleted, back, drained", []store.NodeEvent{drain, deleted, back, again}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := drainedAtStart(c.evs, t0.Add(time.Minute), map[string]bool{"n1": true})
			if len(got) != c.want {
				t.Errorf("drain events at 0 %+v, want %d", got, c.want)
			}
		})
	}
}

// TestReshapedNodes: a node deleted in the window is noted where the node
// the scenario has of its name is of another shape (GPUs, GPU type,
// labels) or pool, and not where it is the same.
func TestReshapedNodes(t *testing.T) {
	since := time.Unix(1_700_000_000, 0)
	cfg := &config.Config{DefaultPool: "default"}
	gpus := func(n int, typ string) []store.GPU {
		out := make([]store.GPU, n)
		for i := range out {
			out[i] = store.GPU{Index: i, Type: typ}
		}
		return out
	}
	sc := &scenario.Scenario{}
	sc.Pools = []scenario.Pool{{Pool: spec.Pool{Name: "default"}, Nodes: []scenario.Node{
		{Node: spec.Node{Name: "n3"}, Slots: 2, GPU: "h100"}}}, {Pool: spec.Pool{Name: "other"}}}
	for _, c := range []struct {
		name string
		rec  store.Node
		want string // in the note; "" for none
	}{
		{"same", store.Node{Name: "n3", GPUs: gpus(2, "h100")}, ""},
		{"other GPUs", store.Node{Name: "n3", GPUs: gpus(1, "h100")}, "node n3 was 1 h100 in pool default until its deletion at 50s"},
		{"other type", store.Node{Name: "n3", GPUs: gpus(2, "a100")}, "was 2 a100 in pool default"},
		{"other pool", store.Node{Name: "n3", Pool: "other", GPUs: gpus(2, "h100")}, "was 2 h100 in pool other"},
		{"labelled", store.Node{Name: "n3", Labels: map[string]string{"rack": "r1"}, GPUs: gpus(2, "h100")},
			"was 2 h100 in pool default labelled rack=r1"},
		{"another name", store.Node{Name: "n9", GPUs: gpus(1, "h100")}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			notes := reshapedNodes(sc, cfg, []deletedNode{{c.rec, since.Add(50 * time.Second)}}, since)
			switch {
			case c.want == "" && len(notes) > 0:
				t.Errorf("notes %q, want none", notes)
			case c.want != "" && (len(notes) != 1 || !strings.Contains(notes[0], c.want) ||
				!strings.Contains(notes[0], "runs n3 as 2 h100 in pool default for the whole window")):
				t.Errorf("notes %q, want one with %q", notes, c.want)
			}
		})
	}
}
