package storetest

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testReservations: reservations round-trip, are replaced and forgotten
// job by job, roll back with their Update, and go with a pruned job.
func testReservations(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	a, b := mustCreate(t, s, sampleJob("a"), 1), mustCreate(t, s, sampleJob("b"), 1)
	ra := store.Reservation{JobID: a.ID, At: 1700, Nodes: []store.ReservedSlots{{Node: 2, Slots: 4}, {Node: 0, Slots: 1}}}
	rb := store.Reservation{JobID: b.ID, At: 1800}
	steps := []struct {
		name string
		set  []store.Reservation
		fail bool // set in an Update that then fails
		want []store.Reservation
	}{
		{"stored", []store.Reservation{rb, ra}, false, []store.Reservation{ra, rb}},
		{"replaced", []store.Reservation{{JobID: b.ID, At: 1900, Nodes: []store.ReservedSlots{{Node: 1, Slots: 2}}}}, false,
			[]store.Reservation{ra, {JobID: b.ID, At: 1900, Nodes: []store.ReservedSlots{{Node: 1, Slots: 2}}}}},
		{"rolled back", []store.Reservation{{JobID: a.ID}}, true,
			[]store.Reservation{ra, {JobID: b.ID, At: 1900, Nodes: []store.ReservedSlots{{Node: 1, Slots: 2}}}}},
		{"forgotten", []store.Reservation{{JobID: b.ID}}, false, []store.Reservation{ra}},
	}
	for _, st := range steps {
		var err error
		if st.fail {
			err = s.Update(ctx, func(tx store.Tx) error {
				if err := tx.SetReservations(ctx, st.set); err != nil {
					return err
				}
				return store.ErrConflict
			})
			wantErr(t, err, store.ErrConflict, st.name)
		} else if err = s.SetReservations(ctx, st.set); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got, err := s.Reservations(ctx)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		wantEqual(t, st.name, got, st.want)
	}
	runTo(t, s, a, store.TaskCompleted, at(time.Hour))
	if n, err := s.PruneJobs(ctx, at(2*time.Hour), 10); err != nil || n != 1 {
		t.Fatalf("prune: %d, %v; want 1", n, err)
	}
	if got, err := s.Reservations(ctx); err != nil || len(got) != 0 {
		t.Fatalf("reservations after the job's prune: %+v, %v; want none", got, err)
	}
}
