package master

import (
	"slices"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// What a pool offered over the window, which the export judges a job's
// size against. A scenario refuses a task larger than its pool's nodes,
// each counted at its largest shape in every pool it is in at some time
// (the file's pools and their node_reshape events: scenario/reshape.go),
// and the export writes each node in the pool it was in when the window
// began, moving it on as the live master did (whatif_reshaped.go). A job
// that fits the pool so counted is exported even where a move has since
// taken a node out of it: a gang that spanned two nodes of pool teams
// before a reload moved one of them to campus ran, and its replay runs
// it there too (it waits, as live, where it comes after the move). The
// nodes registered in the pool now are not enough: the jobs are exported
// before exportReshapes writes the moves, as its events name them.

// windowRoom is, by pool of sc, its slots as the scenario's parser will
// count them once exportReshapes has written the nodes' shapes, pools
// and moves in the window [since, until) from the node history evs: it
// runs exportReshapes on a copy of sc's pools, with no job to name.
func windowRoom(sc *scenario.Scenario, cfg *config.Config, evs []store.NodeEvent, since, until time.Time) map[string]int {
	dry := &scenario.Scenario{}
	dry.Pools = slices.Clone(sc.Pools)
	for i := range dry.Pools {
		dry.Pools[i].Nodes = slices.Clone(dry.Pools[i].Nodes)
	}
	exportReshapes(dry, cfg, evs, func(time.Time) bool { return false }, nil, since, until)
	best, in := largestShapes(dry)
	room := map[string]int{}
	for pool, nodes := range in {
		for _, n := range nodes {
			largest := 0
			for _, slots := range best[n] {
				largest = max(largest, slots)
			}
			room[pool] += largest
		}
	}
	return room
}

// roomOf is the slots a task of pool p may have in the scenario: the
// most of its nodes now (with those placeStarts moved out of it) and
// what it offered over the window (windowRoom, of the pool whose nodes
// p shares, if it shares another's).
func (x *jobExport) roomOf(p *scenario.Pool) int {
	name := p.Name
	if p.SharesNodesWith != "" {
		name = p.SharesNodesWith
	}
	return max(poolSlots(p)+x.movedOut[p.Name], x.room[name])
}
