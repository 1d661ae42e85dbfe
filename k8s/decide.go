package k8s

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/allot-sched/allot/sched"
)

// Bind is a pod to bind and the node it goes to.
type Bind struct {
	Pod  *v1.Pod
	Node string
}

// Actions is what one pass asks of the API server.
type Actions struct {
	Binds []Bind
	Waits []Wait
	// Evicts are the pods to evict so that waiting work can run.
	Evicts []Evict
}

// Plan runs the core over the pass and turns its plan into bindings and
// waits. A gang's starts become bindings only when, with the pods already
// bound, they reach min-available. A gang the core could only place in
// part is withdrawn (its Waiting set to 0) and the pass planned again, so
// that the GPUs it was given go to other work instead of idling behind a
// gang that cannot run; each round withdraws at least one gang, so this
// ends. The final plan's preemptions become evictions (victims).
func Plan(core *sched.Scheduler, p *Pass) (*Actions, error) {
	withdrawn := make([]string, len(p.Jobs))
	for {
		plan, err := core.Schedule(&p.Snap)
		if err != nil {
			return nil, fmt.Errorf("schedule: %w", err)
		}
		binds, waits, short := decide(p, plan, withdrawn)
		if len(short) == 0 {
			return &Actions{Binds: binds, Waits: waits, Evicts: victims(p, plan)}, nil
		}
		for _, j := range short {
			p.Snap.Jobs[j].Waiting = 0
			jp := &p.Jobs[j]
			withdrawn[j] = fmt.Sprintf("gang %s: only %d of its %d waiting pods fit now (%d bound, min-available %d); none is bound until enough fit together",
				p.Snap.Jobs[j].ID, placedCount(plan, j), len(jp.Pending), jp.Bound, jp.Min)
		}
	}
}

func placedCount(plan *sched.Plan, job int) int {
	n := 0
	for _, st := range plan.Starts {
		if st.Job == job {
			n++
		}
	}
	return n
}

// decide maps one plan to bindings and waits, and lists the gangs placed
// only in part. A gang placed in part while victims drain for it is not
// short: it binds nothing yet and keeps its preemptions, so that it gets
// its room once they are gone. Starts that span nodes are dropped: a pod
// runs on one node (Build keeps pods that need more than one away from
// the core, so this is a safeguard).
func decide(p *Pass, plan *sched.Plan, withdrawn []string) (binds []Bind, waits []Wait, short []int) {
	placed := make([][]string, len(p.Jobs))
	for _, st := range plan.Starts {
		if len(st.Nodes) == 1 {
			placed[st.Job] = append(placed[st.Job], p.Snap.Nodes[st.Nodes[0].Node].Name)
		}
	}
	reasons := slices.Clone(withdrawn)
	held := make([]bool, len(p.Jobs))
	never := neverVictims(p, plan)
	for i, pe := range plan.Pending {
		if reasons[pe.Job] == "" {
			// The plan's message: its binds are made with it, so the
			// slots it gives away are not idle to the pods that wait.
			reasons[pe.Job] = plan.Message(&p.Snap, i) + classNote(p, p.Snap.Jobs[pe.Job].GPU)
		}
		held[pe.Job] = pe.Reason == sched.ReasonCheckpointing && never[pe.Job] == 0
		if n := never[pe.Job]; n > 0 && withdrawn[pe.Job] == "" {
			reasons[pe.Job] = fmt.Sprintf("its preemptionPolicy is Never, so the %d running pods that would make room for it are not evicted; waiting for GPUs to free up", n)
		}
	}
	waits = append(waits, p.Waits...)
	for j := range p.Jobs {
		jp := &p.Jobs[j]
		if n := len(placed[j]); n > 0 && jp.Bound+n < jp.Min {
			if held[j] {
				placed[j] = nil
			} else {
				short = append(short, j)
				continue
			}
		}
		b, w := decideJob(jp, placed[j], reasons[j])
		binds = append(binds, b...)
		waits = append(waits, w...)
	}
	return binds, waits, short
}

// decideJob binds the job's first pending pods to the nodes placed for
// it and gives the rest the reason they wait.
func decideJob(jp *JobPods, nodes []string, reason string) (binds []Bind, waits []Wait) {
	for i, p := range jp.Pending {
		if i < len(nodes) {
			binds = append(binds, Bind{Pod: p, Node: nodes[i]})
		} else if reason != "" {
			waits = append(waits, Wait{Pod: p, Message: reason})
		}
	}
	return binds, waits
}

// neverVictims counts, per job whose pods must not preempt, the tasks the
// plan would preempt or move for it; victims leaves them running.
func neverVictims(p *Pass, plan *sched.Plan) []int {
	n := make([]int, len(p.Jobs))
	for _, pr := range plan.Preemptions {
		if p.Jobs[pr.For].NoPreempt {
			n[pr.For]++
		}
	}
	for _, mv := range plan.Moves {
		if p.Jobs[mv.For].NoPreempt {
			n[mv.For]++
		}
	}
	return n
}
