package sim

import "github.com/allot-sched/allot/sched"

// fairUsage keeps each account's decayed usage between passes, which the
// core leaves to its caller (sched.Decay), and puts it in the snapshot's
// accounts.
//
// Usage is accounted per period, as seed 003 counts it per day: periods
// run from time 0 in steps of Decay.Period; what an account's jobs hold
// during a period counts in full (slot-seconds over the capacity of one
// period, sched.UsageShare), and at the end of each period all usage so
// far decays once (by Decay.PerPeriod, or 2^(−Period/HalfLife)). So six
// hours on all of four nodes is 0.25 for the rest of that day, and 0.175
// the day after with a decay of 0.7. Both steps go through
// sched.Decay.Charge.
//
// An account is charged for every slot its jobs hold, checkpointing and
// draining slots included. The capacity is the slots of the multifactor
// pools, the only pools whose jobs charge accounts.
type fairUsage struct {
	decay    sched.Decay
	capacity int
	held     []int // slots held by the jobs charging each account
	at       int64 // usage counts everything up to this time
	on       bool
}

func (u *fairUsage) init(in *Input) {
	u.decay = in.Decay
	for _, p := range in.Pools {
		if p.Policy != sched.PolicyMultifactor {
			continue
		}
		for _, n := range p.Nodes {
			u.capacity += n.Slots
		}
	}
	u.held = make([]int, len(in.Accounts))
	u.on = len(in.Accounts) > 0 && u.capacity > 0
}

// hold changes the slots held by jobs charging account a (< 0: none).
func (u *fairUsage) hold(a int32, slots int) {
	if u.on && a >= 0 {
		u.held[a] += slots
	}
}

// advance brings the accounts' usage up to time t.
func (u *fairUsage) advance(acc []sched.Account, t int64) {
	if !u.on {
		return
	}
	period := u.decay.Period
	for u.at < t {
		end := (u.at/period + 1) * period // the end of the current period
		if end > t {
			u.charge(acc, t-u.at, 0)
			u.at = t
			return
		}
		u.charge(acc, end-u.at, period)
		u.at = end
		if k := (t - end) / period; k > 0 && u.idle() {
			// Whole periods in which nothing is held only decay.
			u.charge(acc, 0, k*period)
			u.at += k * period
		}
	}
}

// charge adds dt seconds of the current holdings, then decays every
// account's usage by elapsed seconds of periods that ended.
func (u *fairUsage) charge(acc []sched.Account, dt, elapsed int64) {
	for i := range acc {
		if u.held[i] > 0 {
			acc[i].Usage = u.decay.Charge(acc[i].Usage, 0, float64(u.held[i])*float64(dt), u.capacity)
		}
		if elapsed > 0 {
			acc[i].Usage = u.decay.Charge(acc[i].Usage, elapsed, 0, u.capacity)
		}
	}
}

func (u *fairUsage) idle() bool {
	for _, h := range u.held {
		if h != 0 {
			return false
		}
	}
	return true
}
