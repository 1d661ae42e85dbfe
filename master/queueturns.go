package master

import (
	"slices"

	"github.com/allot-sched/allot/sched"
)

// Queue positions are the core's own order: every pass numbers each
// pool's pending jobs in the order the pool's policy offered them
// (sched.Pending.Turn), and readView.positions reads that order. It is
// published per pass, apart from the jobs' records: when a job ahead
// starts, every turn behind it moves up by one, and republishing each
// job's record for that would cost a pass over a long queue what a
// publish of all of it costs (docs/performance.md, the read view).

// queueTurns is a pass's order of each pool's pending jobs: their ids by
// pool name, in the order of their turns. Never changed once published.
type queueTurns map[string][]int64

// turnEntry is one pending entry of a pass, as noteTurns reads it.
type turnEntry struct {
	id         int64
	pool, turn int32
}

// beginTurns starts noting a pass's pending entries (addTurn). Callers
// hold mu.
func (p *readPublisher) beginTurns() { p.turnEntries = p.turnEntries[:0] }

// addTurn notes pe, of the job id in the snapshot's pool pool. Callers
// hold mu.
func (p *readPublisher) addTurn(pe sched.Pending, id int64, pool int) {
	p.turnEntries = append(p.turnEntries, turnEntry{id: id, pool: int32(pool), turn: pe.Turn})
}

// noteTurns keeps the order of the noted entries for the read view, pools
// being the snapshot's; a pass that leaves the order as it was keeps the
// published one, so that the next publish copies nothing. Callers hold
// mu.
func (p *readPublisher) noteTurns(pools []sched.Pool) {
	off := slices.Grow(p.turnOff[:0], len(pools)+1)[:len(pools)+1]
	clear(off)
	for _, e := range p.turnEntries {
		off[e.pool+1]++
	}
	for i := 1; i < len(off); i++ {
		off[i] += off[i-1]
	}
	buf := slices.Grow(p.turnBuf[:0], len(p.turnEntries))[:len(p.turnEntries)]
	clear(buf)
	for _, e := range p.turnEntries {
		if k := off[e.pool] + int(e.turn) - 1; e.turn > 0 && k < off[e.pool+1] {
			buf[k] = e.id // the core numbers 1..n; an id of 0 is no job
		}
	}
	p.turnOff, p.turnBuf = off, buf
	same, n := true, 0
	for i := range pools {
		if off[i+1] > off[i] {
			n++
			same = same && slices.Equal(p.turns[pools[i].Name], buf[off[i]:off[i+1]])
		}
	}
	if same && n == len(p.turns) {
		return
	}
	ids := slices.Clone(buf)
	turns := make(queueTurns, n)
	for i := range pools {
		if off[i+1] > off[i] {
			turns[pools[i].Name] = ids[off[i]:off[i+1]:off[i+1]]
		}
	}
	p.turns = turns
	p.readStale = true
}
