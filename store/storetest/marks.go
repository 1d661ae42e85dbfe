package storetest

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testMarks: a mark is unset until set, stays set when set again, rolls
// back with its Update, and outlives the pruning of every job.
func testMarks(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	steps := []struct {
		name string
		set  string // "": set nothing
		fail bool   // set in an Update that then fails
		want map[string]bool
	}{
		{"unset", "", false, map[string]bool{store.MarkGrows: false, "other": false}},
		{"rolled back", store.MarkGrows, true, map[string]bool{store.MarkGrows: false}},
		{"set", store.MarkGrows, false, map[string]bool{store.MarkGrows: true, "other": false}},
		{"set again", store.MarkGrows, false, map[string]bool{store.MarkGrows: true}},
		{"another", "other", false, map[string]bool{store.MarkGrows: true, "other": true}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			switch {
			case st.set == "":
			case st.fail:
				err := s.Update(ctx, func(tx store.Tx) error {
					if err := tx.Mark(ctx, st.set); err != nil {
						return err
					}
					return store.ErrConflict
				})
				wantErr(t, err, store.ErrConflict, st.name)
			default:
				if err := s.Mark(ctx, st.set); err != nil {
					t.Fatal(err)
				}
			}
			for name, want := range st.want {
				if got, err := s.Marked(ctx, name); err != nil || got != want {
					t.Errorf("Marked(%q) = %v, %v; want %v", name, got, err, want)
				}
			}
		})
	}
	a := mustCreate(t, s, sampleJob("a"), 1)
	runTo(t, s, a, store.TaskCompleted, at(time.Hour))
	if n, err := s.PruneJobs(ctx, at(2*time.Hour), 10); err != nil || n != 1 {
		t.Fatalf("prune: %d, %v; want 1", n, err)
	}
	if got, err := s.Marked(ctx, store.MarkGrows); err != nil || !got {
		t.Fatalf("mark after a prune: %v, %v; want set", got, err)
	}
}
