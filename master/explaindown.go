package master

import (
	"fmt"
	"slices"
	"strings"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// The pending message of a job held back by its pool's capacity being
// down (trial F14): the core sees only the nodes that are up, so a job
// within its project's quota reads as no_spare (the slots that are up are
// taken), and a gang whose reservation needs the lost node has no start
// at all. The master knows which nodes are lost or left, and says so.

// downView answers downMessage for one pass's pending jobs: the down
// nodes of each pool are named once per pass, and what the projects of a
// pool hold is summed at its first job that needs it, so that a long
// queue costs a map lookup per job, not a walk of the nodes and the
// allocations.
type downView struct {
	snap *sched.Snapshot
	down map[string]string // pool name: its nodes not up, named; nil when all are up
	held map[int]quotaHeld // pool index: what its projects hold
}

// newDownView names the nodes that are not up, by pool. Callers hold mu.
func newDownView(nodes map[string]*mnode, snap *sched.Snapshot) *downView {
	v := &downView{snap: snap}
	byPool := map[string][]string{}
	for name, n := range nodes {
		if n.up() {
			continue
		}
		s := name + " (" + string(n.rec.State)
		if !n.lostAt.IsZero() {
			s += " at " + n.lostAt.UTC().Format("15:04:05")
		}
		if n.rec.State == store.NodeLost && !n.rec.HeartbeatAt.IsZero() {
			s += ", no contact since " + n.rec.HeartbeatAt.UTC().Format("15:04:05")
		}
		byPool[n.pool] = append(byPool[n.pool], s+")")
	}
	if len(byPool) == 0 {
		return v
	}
	v.down, v.held = make(map[string]string, len(byPool)), map[int]quotaHeld{}
	for pool, names := range byPool {
		slices.Sort(names)
		if len(names) > 3 {
			names = append(names[:3], fmt.Sprintf("%d more", len(names)-3))
		}
		v.down[pool] = strings.Join(names, ", ")
	}
	return v
}

// message is the message of pending pe when nodes of its job's pool are
// lost or left and the core's message would blame quota or give no
// start: "" where it has nothing to add.
func (v *downView) message(pe sched.Pending) string {
	if v.down == nil {
		return ""
	}
	snap := v.snap
	noStart := pe.Reason == sched.ReasonReserved && (pe.At < 0 || pe.At == sched.Never)
	if (pe.Reason != sched.ReasonNoSpare && !noStart) || pe.Job < 0 || pe.Job >= len(snap.Jobs) {
		return ""
	}
	j := &snap.Jobs[pe.Job]
	if j.Pool < 0 || j.Pool >= len(snap.Pools) {
		return ""
	}
	pool := snap.Pools[j.Pool].Name
	down := v.down[pool]
	if down == "" {
		return ""
	}
	if noStart {
		return fmt.Sprintf("nodes of pool %s are down: %s; it has no start until they come back", pool, down)
	}
	within := ""
	if p := j.Project; p >= 0 && p < len(snap.Projects) && snap.Projects[p].Quota > 0 {
		h, ok := v.held[j.Pool]
		if !ok {
			h = heldInPool(snap, j.Pool)
			v.held[j.Pool] = h
		}
		if h.alloc[p]+pe.Need > snap.Projects[p].Quota {
			return "" // past its quota: the core's reason is the right one
		}
		within = fmt.Sprintf("within its project's quota (%d of %d held), but ", h.alloc[p], snap.Projects[p].Quota)
	}
	return fmt.Sprintf("%snodes of pool %s are down: %s; waiting for them to come back or for idle slots (needs %d, %d free)",
		within, pool, down, pe.Need, pe.Free)
}
