package master

import (
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/scenario"
)

// A gang that spanned two nodes of a pool before a reload moved one of
// them to another pool (a trial's j4-ana-gang: 6 slots over n1:4 and
// n2:2 in teams, before a node rule put n2 in campus). The pool is
// smaller now than the gang, but the export writes n2 in the pool it
// was in when the window began and its move as a node_reshape, so the
// gang fitted the pool the file gives it for the whole window until
// then: the export keeps it (whatif_room.go). It used to leave it out,
// judged against the pool now, and the replay then started the gang's
// neighbours where the gang ran.

// movedGangPools: default and campus, n3 pinned to campus;
// movedGangPoolsN2 pins n2 to campus too.
const (
	movedGangPools   = "pools:\n  - {name: default, policy: fifo}\n  - {name: campus, policy: fifo}\nnodes:\n  - {name: n3, pool: campus}\n"
	movedGangPoolsN2 = movedGangPools + "  - {name: n2, pool: campus}\n"
)

// movedGangCases: g (6 slots) holds n1's four and two of n2's until 600,
// s n2's other two from 10 to 210, c n3 until 700. The reload at 300
// moves n2, g on it, to campus: x (campus) starts on n2's two free
// slots at 350, and w (default) waits for n1, which only g's end frees.
func movedGangCases() []replayCase {
	return []replayCase{
		{name: "fifo-reload-moves-gang-node", config: movedGangPools, nodes: []rnode{{"n1", 4}, {"n2", 4}, {"n3", 1}},
			jobs: []rjob{
				{name: "g", slots: 6, submit: 0, run: 600},
				{name: "c", slots: 1, submit: 0, run: 700, pool: "campus"},
				{name: "s", slots: 2, submit: 10, run: 200},
				{name: "x", slots: 2, submit: 350, run: 100, pool: "campus"},
				{name: "w", slots: 4, submit: 400, run: 100},
			},
			reloads: []rreload{{at: 300, config: movedGangPoolsN2}}},
	}
}

// TestReplayReloadMovesGangNode: the gang is in the export, with no
// warning that a job was left out, and the replay makes the live
// decisions byte for byte (checkReplay), batched and live.
func TestReplayReloadMovesGangNode(t *testing.T) {
	for _, c := range movedGangCases() {
		for _, live := range []bool{false, true} {
			name := c.name
			if live {
				c.tick, c.eager, name = 5, true, name+"-live"
			}
			t.Run(name, func(t *testing.T) {
				body := checkReplay(t, c)
				sc, err := scenario.Parse("history.yaml", []byte(body))
				if err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(sc.Jobs, func(j scenario.Job) bool { return strings.HasSuffix(j.Name, "-g") && j.Slots == 6 }) {
					t.Errorf("the gang g is not in the export:\n%s", body)
				}
				if strings.Contains(body, "# Warning: ") {
					t.Errorf("the export warns of a job left out:\n%s", body)
				}
			})
		}
	}
}
