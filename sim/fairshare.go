package sim

import (
	"cmp"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// fairUsage keeps each account's decayed usage between passes, which the
// core leaves to its caller (sched.Decay), and puts it in the snapshot's
// accounts. The accounting is lifecycle.Usage's, the master's too: usage
// counted per period, as seed 003 counts it per day, periods running in
// steps of Decay.Period from the Unix epoch, as on the live master: the
// ledger's clock is the Unix time, Input.Epoch + the simulated time (time
// 0 itself with an Epoch of 0). What an account's jobs hold during a
// period counts in full, and at the end of each period all usage so far
// decays once. So six hours on all of four nodes is 0.25 for the rest of
// that day, and 0.175 the day after with a decay of 0.7.
//
// An account is charged for every slot its jobs hold, checkpointing and
// draining slots included. The capacity is the slots of the multifactor
// pools, the only pools whose jobs charge accounts.
type fairUsage struct {
	ledger *lifecycle.Usage[int32] // keyed by account index
	at     int64                   // the accounts hold the usage up to at
	epoch  int64                   // the ledger's time at simulated time 0
	on     bool
}

func (u *fairUsage) init(in *Input) {
	capacity := 0
	for _, p := range in.Pools {
		if p.Policy != sched.PolicyMultifactor {
			continue
		}
		for _, n := range p.Nodes {
			capacity += n.Slots
		}
	}
	u.on = len(in.Accounts) > 0 && capacity > 0
	if !u.on {
		return
	}
	u.epoch = in.Epoch
	u.ledger = lifecycle.NewUsage(in.Decay, capacity, u.epoch, cmp.Compare[int32])
	for i, a := range in.Accounts {
		u.ledger.Add(int32(i), a.Usage)
	}
}

// hold changes the slots held by jobs charging account a (< 0: none).
func (u *fairUsage) hold(a int32, slots int) {
	if u.on && a >= 0 {
		u.ledger.Hold(a, slots)
	}
}

// advance brings the accounts' usage up to time t.
func (u *fairUsage) advance(acc []sched.Account, t int64) {
	if !u.on || t <= u.at {
		return // nothing changed since the accounts were last set
	}
	u.at = t
	u.ledger.Advance(u.epoch + t)
	for i := range acc {
		acc[i].Usage = u.ledger.Get(int32(i))
	}
}
