package master

import (
	"cmp"
	"slices"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
)

// reservations lists, by pool, the starts that the last scheduling pass
// reserved (sched.Pending with ReasonReserved and a time), earliest
// first. The jobs' pending explanations hold the pass's plan, so nothing
// more is kept for it.
func (v *readView) reservations() map[string][]api.Reservation {
	out := map[string][]api.Reservation{}
	for j := range v.jobs.all() {
		p := j.pending
		if p == nil || p.code != "" || p.p.Reason != sched.ReasonReserved || p.p.At < 0 || p.p.At == sched.Never {
			continue
		}
		out[j.rec.Pool] = append(out[j.rec.Pool], api.Reservation{Job: j.rec.ID,
			Start: time.Unix(p.p.At, 0).UTC(), Slots: p.p.Need})
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
