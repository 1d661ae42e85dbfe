package master

import "github.com/allot-sched/allot/sched"

// Jobs out of the snapshot that hold GPUs. A job whose entry cannot be
// made (its project or pool is not configured, its QOS or a license is
// unknown: snapJob) is left out of the snapshot with that reason, but a
// job that ran when it was left out (a master started without its
// project, a reload since) still runs, and its attempts still hold their
// GPUs. The core sees only the snapshot's allocations, so without more
// it counted those GPUs free and planned other jobs onto them, which the
// applier's re-check refused (apply.go), pass after pass, while a job
// that fitted in the rest waited behind them for ever. The nodes where
// such jobs hold GPUs offer that many slots less instead:
// the GPUs are busy for as long as the agents run the attempts, which
// no pass of the core decides.

// noteOutside notes whether job j's last entry was made (in) or it was
// left out of the snapshot.
func (r *jobRoster) noteOutside(j *mjob, in bool) {
	if in {
		delete(r.outside, j)
		return
	}
	if r.outside == nil {
		r.outside = map[*mjob]struct{}{}
	}
	r.outside[j] = struct{}{}
}

// holdOutside takes the GPUs that jobs out of snapshot s hold from
// their nodes' slots (nodes are the snapshot's, in its order). It costs
// nothing while no such job holds any, and a walk of the nodes' GPUs in
// use while one does.
func (r *jobRoster) holdOutside(s *sched.Snapshot, nodes []*mnode) {
	holding := false
	for j := range r.outside {
		if j.gone || j.rostered {
			delete(r.outside, j)
			continue
		}
		holding = holding || j.active() > 0
	}
	if !holding {
		return
	}
	for i, n := range nodes {
		out := 0
		for _, t := range n.used {
			if _, ok := r.outside[t.job]; ok {
				out++
			}
		}
		if out > 0 {
			s.Nodes[i].Slots = max(s.Nodes[i].Slots-out, 0)
		}
	}
}
