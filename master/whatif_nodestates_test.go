package master

import (
	"fmt"
	"slices"
	"testing"

	"github.com/allot-sched/allot/store"
)

// TestNodeStatesEvents: the scenario events the export writes for a
// node's history: an agent's leave drains the node until it ends (the
// node back, or the agent registered again while the node was up), an
// admin's resume during it lifts the admin's drain only, and an admin's
// drain during it outlasts it.
func TestNodeStatesEvents(t *testing.T) {
	const (
		up, lost, left  = store.NodeUp, store.NodeLost, store.NodeLeft
		leaving, gone   = store.NodeLeaving, store.NodeDeleted
		drained, resume = store.NodeDrained, store.NodeSchedulable
	)
	type step struct{ from, to store.NodeState }
	goodbye, stayed := step{up, leaving}, step{leaving, up}
	drain, undrain := step{resume, drained}, step{drained, resume}
	cases := []struct {
		name    string
		history []step // one a second, from 1
		want    []string
	}{
		{name: "an admin's drain and resume", history: []step{drain, undrain},
			want: []string{"1 drain", "2 resume"}},
		{name: "a leave drains the node until it is back", history: []step{goodbye, {up, left}, {left, up}},
			want: []string{"1 drain", "2 node_down", "3 node_up", "3 resume"}},
		{name: "a leave lost drains the node until it is back", history: []step{goodbye, {up, lost}, {lost, up}},
			want: []string{"1 drain", "2 node_down", "3 node_up", "3 resume"}},
		{name: "a leave the agent ends registering again", history: []step{goodbye, stayed},
			want: []string{"1 drain", "2 resume"}},
		{name: "a second goodbye drains once", history: []step{goodbye, goodbye, stayed},
			want: []string{"1 drain", "3 resume"}},
		{name: "a return of a node not seen going changes nothing", history: []step{drain, {lost, up}},
			want: []string{"1 drain"}},
		{name: "an admin's resume during a leave waits for its return", history: []step{drain, goodbye, undrain, {up, left}, {left, up}},
			want: []string{"1 drain", "4 node_down", "5 node_up", "5 resume"}},
		{name: "an admin's resume during a leave waits for the agent", history: []step{drain, goodbye, undrain, stayed},
			want: []string{"1 drain", "4 resume"}},
		{name: "a drain and resume during a leave", history: []step{goodbye, drain, undrain, stayed},
			want: []string{"1 drain", "4 resume"}},
		{name: "a drain during a leave outlasts its return", history: []step{goodbye, drain, {up, left}, {left, up}, undrain},
			want: []string{"1 drain", "3 node_down", "4 node_up", "5 resume"}},
		{name: "a drain during a leave outlasts the agent", history: []step{goodbye, drain, stayed, undrain},
			want: []string{"1 drain", "4 resume"}},
		{name: "a leave of a drained node", history: []step{drain, goodbye, {up, left}, {left, up}, undrain},
			want: []string{"1 drain", "3 node_down", "4 node_up", "5 resume"}},
		{name: "a leave ends with the node's deletion", history: []step{goodbye, {left, gone}, {"", up}},
			want: []string{"1 drain", "2 node_delete", "3 node_up"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ns := newNodeStates()
			var got []string
			for i, s := range c.history {
				for _, ev := range ns.events(store.NodeEvent{Node: "n", From: s.from, To: s.to}, int64(i+1)) {
					if ev.Node != "n" {
						t.Errorf("event %v: node %q", ev, ev.Node)
					}
					got = append(got, fmt.Sprintf("%d %s", ev.At, ev.Kind))
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("events %q, want %q", got, c.want)
			}
		})
	}
}
