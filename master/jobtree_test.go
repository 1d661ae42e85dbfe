package master

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-sched/allot/store"
)

// TestJobTree checks the trie against a map under random sets and
// removals, and that a tree once taken never changes.
func TestJobTree(t *testing.T) {
	tests := []struct {
		name  string
		ids   func(r *rand.Rand) int64
		steps int
	}{
		{"dense ids", func(r *rand.Rand) int64 { return 1 + r.Int64N(300) }, 2000},
		{"sparse ids", func(r *rand.Rand) int64 { return 1 + r.Int64N(1<<40) }, 500},
		{"growing ids", nil, 3000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			var tree jobTree
			model := map[int64]*jobRead{}
			var next int64
			for step := range tt.steps {
				var id int64
				if tt.ids != nil {
					id = tt.ids(r)
				} else {
					next += 1 + r.Int64N(3)
					id = next
					if step%3 == 0 && next > 10 {
						id = 1 + r.Int64N(next) // remove an older one
					}
				}
				var rec *jobRead
				if r.IntN(3) > 0 && (tt.ids != nil || id == next) {
					rec = &jobRead{rec: store.Job{ID: id}}
				}
				before, snapshot := tree, slices.Collect(tree.all())
				tree = tree.set(new(treeEdit), id, rec)
				if got := slices.Collect(before.all()); !slices.Equal(got, snapshot) {
					t.Fatalf("step %d: an earlier tree changed", step)
				}
				if rec == nil {
					delete(model, id)
				} else {
					model[id] = rec
				}
				checkTree(t, tree, model)
			}
		})
	}
}

func checkTree(t *testing.T, tree jobTree, model map[int64]*jobRead) {
	t.Helper()
	var ids []int64
	for id, r := range model {
		ids = append(ids, id)
		if tree.get(id) != r {
			t.Fatalf("get(%d) = %v, want %v", id, tree.get(id), r)
		}
	}
	slices.Sort(ids)
	var got []int64
	for r := range tree.all() {
		got = append(got, r.rec.ID)
	}
	if !slices.Equal(got, ids) || tree.size != len(ids) {
		t.Fatalf("all() = %v (size %d), want %v", got, tree.size, ids)
	}
	if len(ids) == 0 {
		return
	}
	limit := ids[len(ids)/2]
	var desc []int64
	for r := range tree.below(limit) {
		desc = append(desc, r.rec.ID)
	}
	want := slices.Clone(ids[:len(ids)/2])
	slices.Reverse(want)
	if !slices.Equal(desc, want) {
		t.Fatalf("below(%d) = %v, want %v", limit, desc, want)
	}
}
