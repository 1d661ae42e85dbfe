package sim

import "github.com/allot-sched/allot/sched"

// Fair share. The simulator's lifecycle.Cluster keeps each account's
// decayed usage between passes, which the core leaves to its caller
// (sched.Decay), and the simulator puts it in the snapshot's accounts at
// each event (Cluster.Advance). The accounting is lifecycle.Usage's, the
// master's too: usage counted per period, as seed 003 counts it per day,
// periods running in steps of Decay.Period from the Unix epoch, as on
// the live master: the ledger's time is Input.Epoch + the simulated time
// (time 0 itself with an Epoch of 0). What an account's
// jobs hold during a period counts in full, and at the end of each
// period all usage so far decays once. So six hours on all of four nodes
// is 0.25 for the rest of that day, and 0.175 the day after with a decay
// of 0.7.
//
// An account is charged for every slot its jobs hold, checkpointing and
// draining slots included.

// chargedSlots is the capacity usage is a share of: the slots of the
// multifactor pools, the only pools whose jobs charge accounts. A node
// down or drained later still counts (lifecycle.InFairShareCapacity), so
// it is fixed for the run.
func chargedSlots(in *Input) int {
	capacity := 0
	for _, p := range in.Pools {
		if p.Policy != sched.PolicyMultifactor {
			continue
		}
		for _, n := range p.Nodes {
			capacity += n.Slots
		}
	}
	return capacity
}
