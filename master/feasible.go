package master

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// Submit-time feasibility. A job that no node of its pool could ever
// hold, even with the pool empty (more slots per task than the pool's
// matching nodes have, a GPU type no node has, more of a license than
// exist), would otherwise wait forever. It is refused at submission, with
// the field and the most that could fit, by the same check the simulator
// makes (sched.Feasible). The nodes it counts are every node registered
// in the pool, up or lost, since a lost node may come back. A user who
// expects the cluster to grow (new nodes, a config change) can submit
// such a job anyway with ?allow_infeasible=true (allot submit
// --allow-infeasible); it then waits with the reason the core gives. A
// pool that no node has joined yet is not judged.

// AllowInfeasibleParam is the submit query parameter that keeps a job
// that cannot run on today's cluster.
const AllowInfeasibleParam = "allow_infeasible"

// checkFeasible returns a 422 naming the field when rec (with hints j)
// could never run on the nodes registered now. Callers do not hold mu.
func (m *Master) checkFeasible(rec store.Job, j *mjob) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	pool := m.cfg.PoolIndex(rec.Pool)
	if pool < 0 {
		return nil // jobRecord resolved it; a reload since is the pass's to report
	}
	s := &sched.Snapshot{Licenses: m.cfg.SchedLicenses()}
	for _, p := range m.cfg.Pools {
		s.Pools = append(s.Pools, p.Sched())
	}
	inPool := 0
	for _, n := range m.nodes {
		i := m.cfg.PoolIndex(n.pool)
		if i < 0 {
			continue
		}
		if i == pool {
			inPool++
		}
		sn := sched.Node{Name: n.rec.Name, Pool: i, Slots: len(n.rec.GPUs), Labels: m.nodeLabels(n)}
		sn.Switch = sn.Labels[switchLabel]
		if len(n.rec.GPUs) > 0 {
			sn.GPU = n.rec.GPUs[0].Type
		}
		s.Nodes = append(s.Nodes, sn)
	}
	if inPool == 0 {
		// No node has joined the pool yet (a master just started): there
		// is nothing to judge by, and the job waits with reason no_nodes.
		return nil
	}
	e := sched.Job{ID: rec.Name, Pool: pool, Slots: rec.Slots}
	if p := m.schedHints(j, &e); p != nil {
		return nil // an unknown QOS or license: the pass reports it
	}
	if e.Slots == 0 {
		return nil // zero-slot tasks need no GPU
	}
	err := sched.Feasible(s, &e)
	var ie *sched.InfeasibleError
	if !errors.As(err, &ie) {
		return err
	}
	field := "resources." + ie.Field
	switch ie.Field {
	case "pool":
		field = "pool"
	case "slots":
		if j.spec.minSlots > 0 {
			field = "resources.min_slots"
		}
	}
	msg := fmt.Sprintf("%s: %s. ", field, ie.Error())
	if ie.Field == "slots" || ie.Field == "licenses" {
		msg += fmt.Sprintf("The most that could fit is %d. ", ie.Max)
	}
	msg += "Submit it with " + AllowInfeasibleParam + "=true (allot submit --allow-infeasible) to queue it anyway, " +
		"for nodes yet to join or a configuration yet to change."
	return &httpError{status: http.StatusUnprocessableEntity, field: field, msg: msg}
}
