package master

import (
	"testing"

	"github.com/allot-sched/allot/store"
)

// TestHeldOutsideOn: a node's GPUs held outside the snapshot are one
// count of both kinds, a left-out job's (which n.used names, so they are
// off what the allocations hold too) and a stray's (counted only where
// the node has the GPU and no task holds it).
func TestHeldOutsideOn(t *testing.T) {
	in, out := &mjob{}, &mjob{}
	node := func(used map[int]*mjob) *mnode {
		n := &mnode{rec: store.Node{Name: "n1"}, used: map[int]*mtask{}}
		for i := range 4 {
			n.rec.GPUs = append(n.rec.GPUs, store.GPU{Index: i})
		}
		for g, j := range used {
			n.used[g] = &mtask{job: j}
		}
		return n
	}
	left := map[*mjob]struct{}{out: {}}
	for _, c := range []struct {
		name        string
		used        map[int]*mjob
		o           heldOutside
		held, tasks int
	}{
		{"nothing outside", map[int]*mjob{0: in}, heldOutside{}, 0, 0},
		{"a left-out job's", map[int]*mjob{0: in, 1: out, 2: out}, heldOutside{jobs: left}, 2, 2},
		{"a stray's", map[int]*mjob{0: in}, heldOutside{strays: map[string]map[int]bool{"n1": {2: true, 3: true}}}, 2, 0},
		{"a stray on another node", nil, heldOutside{strays: map[string]map[int]bool{"n2": {2: true}}}, 0, 0},
		{"a stray's GPU a task holds", map[int]*mjob{2: in}, heldOutside{strays: map[string]map[int]bool{"n1": {2: true}}}, 0, 0},
		{"a stray's GPU the node lacks", nil, heldOutside{strays: map[string]map[int]bool{"n1": {7: true}}}, 0, 0},
		{"both", map[int]*mjob{0: in, 1: out},
			heldOutside{jobs: left, strays: map[string]map[int]bool{"n1": {1: true, 3: true}}}, 2, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			held, tasks := c.o.on(node(c.used))
			if held != c.held || tasks != c.tasks {
				t.Errorf("on = %d held, %d of tasks; want %d, %d", held, tasks, c.held, c.tasks)
			}
		})
	}
}
