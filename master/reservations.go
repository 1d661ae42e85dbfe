package master

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/api"
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

// The reservations conservative backfilling carries from one event pass
// to the next are stored, so that a restarted master hands the core the
// snapshot it would have had without the restart: rebuilt from scratch,
// they would compress another schedule than the simulator's, which keeps
// them all along (the replay test's restarts, replay_restart_test.go).

// saveReservations stores the reservations changed since the last save,
// once the passes of a scheduling have settled: only the last pass's
// reservations are carried to the next scheduling. Callers hold mu.
func (pl *planner) saveReservations(ctx context.Context) error {
	if len(pl.resDirty) == 0 {
		return nil
	}
	rs := make([]store.Reservation, 0, len(pl.resDirty))
	for _, r := range pl.resDirty {
		rs = append(rs, r)
	}
	// By job, so that the writes do not depend on the map's order.
	slices.SortFunc(rs, func(a, b store.Reservation) int { return cmp.Compare(a.JobID, b.JobID) })
	write := func(tx store.Tx) error { return tx.SetReservations(ctx, rs) }
	var err error
	if pl.m.batches.bt != nil {
		err = write(pl.m.batches.bt.tx)
	} else {
		err = pl.m.st.Update(ctx, write)
	}
	if err != nil {
		return fmt.Errorf("store the carried reservations: %w", err)
	}
	clear(pl.resDirty)
	return nil
}

// restoreReservations gives the live jobs the reservations stored for
// them. Callers hold mu or have the master to themselves.
func (pl *planner) restoreReservations(ctx context.Context) error {
	rs, err := pl.m.st.Reservations(ctx)
	if err != nil {
		return fmt.Errorf("restore the carried reservations: %w", err)
	}
	for _, r := range rs {
		j := pl.m.jobs[r.JobID]
		if j == nil {
			continue // ended: its row goes when the job is pruned
		}
		var nodes []sched.NodeSlots
		for _, ns := range r.Nodes {
			nodes = append(nodes, sched.NodeSlots{Node: ns.Node, Slots: ns.Slots})
		}
		// Kept until the job's entry is made, at the first build.
		pl.roster.keep(j, r.At, nodes)
	}
	return nil
}
