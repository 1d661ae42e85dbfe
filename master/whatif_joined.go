package master

import (
	"slices"
	"time"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// Nodes that joined within the window. A scenario's nodes are there from
// time 0, but a node whose agent first registered (or registered again
// after a deletion before the window) some seconds into the window was
// not there before, to place work on or in the fair-share capacity: the
// export deletes it at 0 and brings it up at its registration, the
// node_delete and node_up a deleted node that registers again gets
// (node_delete takes it out of the fair-share capacity too, as the live
// master had no such node). A node that registered in the window's first
// second counts as there from the start, as the replay's submissions of
// that second come after its node events anyway.

// joinedInWindow are node_delete events at 0 for the nodes of the file
// (inFile) that did not exist when the window began (no event before
// since, or a deletion last) and whose first event in the window is a
// registration that made them, a second or more after since; evs is the
// whole node history, in its order. The nodes are marked down, so that
// their registration is exported as their node_up.
func joinedInWindow(evs []store.NodeEvent, since, until time.Time, inFile, down map[string]bool) []scenario.Event {
	existed, seen := map[string]bool{}, map[string]bool{}
	var joined []string
	for _, e := range evs {
		switch {
		case !inFile[e.Node] || !e.At.Before(until):
		case e.At.Before(since):
			existed[e.Node] = e.To != store.NodeDeleted
		case seen[e.Node]:
		default:
			seen[e.Node] = true
			if !existed[e.Node] && e.From == "" && e.To == store.NodeUp && e.At.Sub(since) >= time.Second {
				joined = append(joined, e.Node)
			}
		}
	}
	slices.Sort(joined)
	out := make([]scenario.Event, 0, len(joined))
	for _, n := range joined {
		down[n] = true
		out = append(out, scenario.Event{At: 0, Kind: scenario.EventNodeDelete, Node: n})
	}
	return out
}
