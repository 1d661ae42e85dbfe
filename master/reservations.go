package master

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// reservations lists, by pool, the starts that the last scheduling pass
// reserved (sched.Pending with ReasonReserved and a time), earliest
// first. The jobs' pending explanations hold the pass's plan, so nothing
// more is kept for it.
func (v *readView) reservations() map[string][]api.Reservation {
	out := map[string][]api.Reservation{}
	for j := range v.jobs.all() {
		p := j.pending
		// A job short of a license whose start the pass reserved (at the
		// license's release) holds its start as a slot reservation does.
		reserved := p != nil && (p.p.Reason == sched.ReasonReserved || p.p.Reason == sched.ReasonLicense)
		if !reserved || p.code != "" || p.p.At < 0 || p.p.At == sched.Never {
			continue
		}
		r := api.Reservation{Job: j.rec.ID, Start: time.Unix(p.p.At, 0).UTC(), Slots: p.p.Need}
		if p.p.Reason == sched.ReasonLicense {
			r.License = p.ctx.license.Name
		}
		out[j.rec.Pool] = append(out[j.rec.Pool], r)
	}
	for _, rs := range out {
		slices.SortFunc(rs, func(a, b api.Reservation) int {
			if c := a.Start.Compare(b.Start); c != 0 {
				return c
			}
			return cmp.Compare(a.Job, b.Job)
		})
	}
	return out
}

// backfillWindow is the room of a pool that a job may use now without
// delaying a reservation: the free GPUs of its schedulable nodes (up, not
// draining), until the earliest reservation's start. A reservation due
// already leaves a window of no time.
func (v *readView) backfillWindow(pool string, res []api.Reservation, now time.Time) *api.BackfillWindow {
	w := &api.BackfillWindow{}
	for _, n := range v.nodes {
		if n.pool == pool && n.up && !n.draining {
			w.Slots += n.free
		}
	}
	if len(res) > 0 {
		until := res[0].Start
		w.Until = &until
		w.Seconds = max(int64(until.Sub(now)/time.Second), 0)
	}
	return w
}

// carriedReservations keeps the reservations conservative backfilling
// carries from one event pass to the next (keep) and stores them (save),
// so that a restarted master hands the core the snapshot it would have
// had without the restart (restore): rebuilt from scratch, they would
// compress another schedule than the simulator's, which keeps them all
// along (the replay test's restarts, replay_restart_test.go). Its own
// state is which of them changed since they were last stored. The
// planner holds it; mu guards it.
type carriedReservations struct {
	// dirty holds the carried reservations that changed since they were
	// last stored, by job.
	dirty map[*mjob]store.Reservation
}

// keep carries each pending job's reserved start into the next pass, by
// the rule the simulator carries them by (lifecycle.Reservations), and
// notes the jobs whose reservations changed for save. The entries of
// roster r take them at the next build (applyCarried, by the Roster's
// Reserve, as the simulator's do): until then the snapshot stays the one
// the plan was made from, which the forecast and explain read between
// schedulings.
func (c *carriedReservations) keep(r *jobRoster, plan *sched.Plan) {
	r.applyCarried() // none left: each build takes them
	lifecycle.Reservations(plan, func(i int, at int64, nodes []sched.NodeSlots) {
		ri := r.List()[i]
		j := r.jobs[ri]
		if j.gone {
			return // it left the mirror while the core planned: nothing to store
		}
		if was, wasNodes := r.reservation(j); was == at && slices.Equal(wasNodes, nodes) {
			return
		}
		r.carry(ri, at, nodes)
		row := store.Reservation{JobID: j.rec.ID, At: at}
		for _, ns := range nodes {
			row.Nodes = append(row.Nodes, store.ReservedSlots{Node: ns.Node, Slots: ns.Slots})
		}
		if c.dirty == nil {
			c.dirty = map[*mjob]store.Reservation{}
		}
		c.dirty[j] = row
	})
}

// save stores the reservations changed since the last save, in m's
// batch when there is one, once the passes of a scheduling have settled:
// only the last pass's reservations are carried to the next scheduling.
// Callers hold mu.
func (c *carriedReservations) save(ctx context.Context, m *Master) error {
	if len(c.dirty) == 0 {
		return nil
	}
	rs := make([]store.Reservation, 0, len(c.dirty))
	for _, r := range c.dirty {
		rs = append(rs, r)
	}
	// By job, so that the writes do not depend on the map's order.
	slices.SortFunc(rs, func(a, b store.Reservation) int { return cmp.Compare(a.JobID, b.JobID) })
	write := func(tx store.Tx) error { return tx.SetReservations(ctx, rs) }
	var err error
	if m.batches.bt != nil {
		err = write(m.batches.bt.tx)
	} else {
		err = m.st.Update(ctx, write)
	}
	if err != nil {
		return fmt.Errorf("store the carried reservations: %w", err)
	}
	clear(c.dirty)
	return nil
}

// restore gives m's live jobs the reservations stored for them, kept on
// roster r until their entries are made. Callers hold mu or have the
// master to themselves.
func (c *carriedReservations) restore(ctx context.Context, m *Master, r *jobRoster) error {
	rs, err := m.st.Reservations(ctx)
	if err != nil {
		return fmt.Errorf("restore the carried reservations: %w", err)
	}
	for _, row := range rs {
		j := m.jobs[row.JobID]
		if j == nil {
			continue // ended: its row goes when the job is pruned
		}
		var nodes []sched.NodeSlots
		for _, ns := range row.Nodes {
			nodes = append(nodes, sched.NodeSlots{Node: ns.Node, Slots: ns.Slots})
		}
		// Kept until the job's entry is made, at the first build.
		r.keep(j, row.At, nodes)
	}
	return nil
}
