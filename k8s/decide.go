package k8s

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/allot-sched/allot/sched"
)

// Bind is a pod to bind and the node it goes to.
type Bind struct {
	Pod  *v1.Pod
	Node string
}

// Decide turns a plan into bindings and waits. A gang's starts become
// bindings only when, with the pods already bound, they reach
// min-available; otherwise none of them do, so that a gang never holds
// GPUs while it cannot run. Starts that span nodes are dropped: a pod
// runs on one node (Build keeps pods that need more than one away from
// the core, so this is a safeguard).
func Decide(p *Pass, plan *sched.Plan) (binds []Bind, waits []Wait) {
	placed := make([][]string, len(p.Jobs))
	for _, st := range plan.Starts {
		if len(st.Nodes) != 1 {
			continue
		}
		placed[st.Job] = append(placed[st.Job], p.Snap.Nodes[st.Nodes[0].Node].Name)
	}
	reasons := make([]string, len(p.Jobs))
	for _, pe := range plan.Pending {
		reasons[pe.Job] = pe.Message(&p.Snap)
	}
	waits = append(waits, p.Waits...)
	for j := range p.Jobs {
		b, w := decideJob(&p.Jobs[j], p.Snap.Jobs[j].ID, placed[j], reasons[j])
		binds = append(binds, b...)
		waits = append(waits, w...)
	}
	return binds, waits
}

// decideJob binds the job's first pending pods to the nodes placed for
// it, all or none, and gives the rest the core's reason.
func decideJob(jp *JobPods, id string, nodes []string, reason string) (binds []Bind, waits []Wait) {
	if len(jp.Pending) == 0 {
		return nil, nil
	}
	if jp.Bound+len(nodes) < jp.Min {
		if len(nodes) > 0 || reason == "" {
			reason = fmt.Sprintf("gang %s: %d of its pods fit now and %d are bound, but min-available is %d; none is bound until enough fit together",
				id, len(nodes), jp.Bound, jp.Min)
		}
		nodes = nil
	}
	for i, p := range jp.Pending {
		if i < len(nodes) {
			binds = append(binds, Bind{Pod: p, Node: nodes[i]})
		} else if reason != "" {
			waits = append(waits, Wait{Pod: p, Message: reason})
		}
	}
	return binds, waits
}
