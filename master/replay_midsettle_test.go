package master

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
)

// A node event while the core plans (rdown.mid): an admin's drain that
// comes while a settling's first pass is being planned, from another
// goroutine, as a request does on a live master. The export orders a
// node event against a second's passes only by the times of the whole
// settlings' decisions (afterPassAt), and the simulator settles an
// instant whole before an after_pass event.

// midSettleCases: a (more important) and b are submitted at 100 with
// n1 and n2 free, each two slots. The first pass places a on n1 and b
// on n2; n1 is drained while it plans.
func midSettleCases() []replayCase {
	return []replayCase{
		{name: "priority-drain-mid-settling", config: "pools:\n  - {name: default, policy: priority}\n",
			nodes: []rnode{{"n1", 2}, {"n2", 2}}, drains: []rdown{{node: "n1", at: 100, back: 700, mid: true}}, jobs: []rjob{
				{name: "a", slots: 2, submit: 100, run: 300, extra: `, "priority": 10`},
				{name: "b", slots: 2, submit: 100, run: 500},
			}},
	}
}

// armMid sets the pass hook that makes the drains due now whose mid is
// set: while the core plans the next pass, the clock a millisecond on
// for each pass (time passes while the core plans), the first makes
// them from another goroutine and waits for them to be made.
func (d *replayDriver) armMid(t *testing.T, now float64) {
	var due []int
	for k, dn := range d.c.drains {
		if dn.mid && d.drains[k] == 0 && dn.at <= now+1e-9 {
			due = append(due, k)
		}
	}
	if len(due) == 0 {
		return
	}
	d.mid = func() {
		d.mid = nil
		// Made at once (the pass plans on with the node changed), or
		// once the settling is over (betweenSettlings).
		d.midDone = inAnother(t, func() {
			for _, k := range due {
				d.drains[k] = 1
				dn := d.c.drains[k]
				if code := d.h.do("POST", "/api/v1/nodes/"+dn.node+"/drain", api.NodeDrainRequest{Reason: "replay"}, nil); code/100 != 2 {
					t.Errorf("drain %s: %d", dn.node, code)
				}
			}
		})
	}
	passUnlocked = func(*sched.Plan) {
		d.h.clock.Advance(time.Millisecond)
		if d.mid != nil {
			d.mid()
		}
	}
	t.Cleanup(func() { passUnlocked = nil })
}

// TestReplayNodeEventMidSettling: live, the drain that comes while the
// core plans the first pass of 100 lands before that pass's plan is
// applied; the applier skips a's start on n1, now draining, and b
// starts on n2, a waiting for it.
func TestReplayNodeEventMidSettling(t *testing.T) {
	for _, c := range midSettleCases() {
		t.Run(c.name, func(t *testing.T) { checkReplay(t, c) })
	}
}
