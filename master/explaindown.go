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

// downMessage is the message of pending pe of snap's job when nodes of
// its pool are lost or left and the core's message would blame quota or
// give no start: "" where it has nothing to add. Callers hold mu.
func (m *Master) downMessage(snap *sched.Snapshot, pe sched.Pending) string {
	noStart := pe.Reason == sched.ReasonReserved && (pe.At < 0 || pe.At == sched.Never)
	if (pe.Reason != sched.ReasonNoSpare && !noStart) || pe.Job < 0 || pe.Job >= len(snap.Jobs) {
		return ""
	}
	j := &snap.Jobs[pe.Job]
	if j.Pool < 0 || j.Pool >= len(snap.Pools) {
		return ""
	}
	pool := snap.Pools[j.Pool].Name
	down := m.downNodes(pool)
	if down == "" {
		return ""
	}
	if noStart {
		return fmt.Sprintf("nodes of pool %s are down: %s; it has no start until they come back", pool, down)
	}
	within := ""
	if p := j.Project; p >= 0 && p < len(snap.Projects) && snap.Projects[p].Quota > 0 {
		held := heldInPool(snap, j.Pool).alloc[p]
		if held+pe.Need > snap.Projects[p].Quota {
			return "" // past its quota: the core's reason is the right one
		}
		within = fmt.Sprintf("within its project's quota (%d of %d held), but ", held, snap.Projects[p].Quota)
	}
	return fmt.Sprintf("%snodes of pool %s are down: %s; waiting for them to come back or for idle slots (needs %d, %d free)",
		within, pool, down, pe.Need, pe.Free)
}

// downNodes names the nodes of pool that are not up with their state and
// last contact ("gpu-a100 (lost, no contact since 09:07:36)"), sorted, up
// to three and a count of the rest. Callers hold mu.
func (m *Master) downNodes(pool string) string {
	var names []string
	for name, n := range m.nodes {
		if n.pool != pool || n.up() {
			continue
		}
		s := name + " (" + string(n.rec.State)
		if n.rec.State == store.NodeLost && !n.rec.HeartbeatAt.IsZero() {
			s += ", no contact since " + n.rec.HeartbeatAt.UTC().Format("15:04:05")
		}
		names = append(names, s+")")
	}
	slices.Sort(names)
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("%d more", len(names)-3))
	}
	return strings.Join(names, ", ")
}
