package metrics

import (
	"cmp"
	"slices"
)

// account is one fair-share account's state in the accounts' fairness.
// Its own figures are its own jobs'; sub ones its whole subtree's.
type account struct {
	name    string
	parent  int32
	shares  float64
	norm    float64 // its share of the whole tree: sibling fractions multiplied down
	kids    bool
	charged bool // its own jobs had demand at some time
	seen    bool // its subtree had demand or held slots at some time
	active  bool // it had an entitlement at the last entitle
	own     int  // slots its own live jobs would hold if they all ran
	sub     int  // own plus its descendants'
	// ownHeld and subHeld are the slots held now; heldSecs and
	// ownHeldSecs their integrals up to heldAt.
	ownHeld, subHeld      int
	heldSecs, ownHeldSecs float64
	heldAt                int64
	// ent is the subtree's entitlement in slots, ownEnt its own jobs'
	// part; entSecs and ownEntSecs their integrals up to entAt.
	ent, ownEnt         float64
	entSecs, ownEntSecs float64
	entAt               int64
}

// member is one claim on a parent's entitlement: a sub-account (idx),
// or the parent's own jobs (idx -1).
type member struct {
	demand, weight, share float64
	idx                   int32
}

// accountFair computes the accounts' entitlements, a weighted
// water-filling down the account tree (doc.go). The integrals are taken
// lazily, when a value changes, so that Advance costs nothing per account.
type accountFair struct {
	slots    int
	accts    []account
	roots    []int32
	kidStart []int32 // the children of a are kidList[kidStart[a]:kidStart[a+1]]
	kidList  []int32
	members  []member
	stack    []int32
	active   []int32
	dirty    bool
}

// Accounts sets the fair-share account tree whose fairness the collector
// computes: parents[i] is the index of account i's parent (-1 at the top;
// the tree must have no cycle) and shares[i] its shares among its
// siblings. Call it once, before the run; jobs are then reported with
// AccountDemand and AccountHold, and the capacity with AccountSlots.
func (c *Collector) Accounts(names []string, parents []int32, shares []float64) {
	f := &c.acc
	n := len(names)
	f.accts = make([]account, n)
	f.kidStart = make([]int32, n+1)
	f.kidList = make([]int32, 0, n)
	f.members = make([]member, 0, n+1)
	f.stack = make([]int32, 0, n)
	f.active = make([]int32, 0, n)
	f.roots = f.roots[:0]
	for i := range names {
		f.accts[i] = account{name: names[i], parent: parents[i], shares: shares[i]}
		if p := parents[i]; p >= 0 {
			f.kidStart[p+1]++
			f.accts[p].kids = true
		} else {
			f.roots = append(f.roots, int32(i))
		}
	}
	for i := range n {
		f.kidStart[i+1] += f.kidStart[i]
	}
	f.kidList = f.kidList[:n]
	fill := slices.Clone(f.kidStart[:n])
	for i, p := range parents {
		if p >= 0 {
			f.kidList[fill[p]] = int32(i)
			fill[p]++
		}
	}
	f.normShares(f.roots, 1)
}

func (f *accountFair) kids(a int32) []int32 { return f.kidList[f.kidStart[a]:f.kidStart[a+1]] }

// normShares sets the norm of siblings whose parent's norm is given, and
// of their subtrees: parents need not be listed before their children.
func (f *accountFair) normShares(sibs []int32, parent float64) {
	sum := 0.0
	for _, a := range sibs {
		sum += f.accts[a].shares
	}
	for _, a := range sibs {
		f.accts[a].norm = 0
		if sum > 0 {
			f.accts[a].norm = parent * f.accts[a].shares / sum
		}
		f.normShares(f.kids(a), f.accts[a].norm)
	}
}

// AccountSlots sets the capacity the accounts' entitlements share.
func (c *Collector) AccountSlots(slots int) {
	if c.acc.slots != slots {
		c.acc.slots, c.acc.dirty = slots, true
	}
}

// AccountDemand changes the slots that the live jobs charging account a
// (< 0: none) would hold if all ran.
func (c *Collector) AccountDemand(a int32, delta int) {
	if a < 0 || delta == 0 {
		return
	}
	f := &c.acc
	f.accts[a].own += delta
	f.accts[a].charged = true
	for ; a >= 0; a = f.accts[a].parent {
		f.accts[a].sub += delta
		f.accts[a].seen = true
	}
	f.dirty = true
}

// AccountHold changes the slots held by jobs charging account a (< 0:
// none).
func (c *Collector) AccountHold(a int32, delta int) {
	if a < 0 || delta == 0 {
		return
	}
	f := &c.acc
	f.flushHeld(a, c.last)
	f.accts[a].ownHeld += delta
	for ; a >= 0; a = f.accts[a].parent {
		f.flushHeld(a, c.last)
		f.accts[a].subHeld += delta
		f.accts[a].seen = true
	}
}

func (f *accountFair) flushHeld(a int32, now int64) {
	x := &f.accts[a]
	dt := float64(now - x.heldAt)
	x.heldSecs += float64(x.subHeld) * dt
	x.ownHeldSecs += float64(x.ownHeld) * dt
	x.heldAt = now
}

func (f *accountFair) flushEnt(a int32, now int64) {
	x := &f.accts[a]
	dt := float64(now - x.entAt)
	x.entSecs += x.ent * dt
	x.ownEntSecs += x.ownEnt * dt
	x.entAt = now
}

// begin starts every integral at the run's first Advance.
func (f *accountFair) begin(t int64) {
	for i := range f.accts {
		f.accts[i].heldAt, f.accts[i].entAt = t, t
	}
}

// entitle recomputes the entitlements from time now on: the capacity
// split among the top accounts with demand, and each account's split
// among its sub-accounts with demand and its own jobs, top-down.
func (f *accountFair) entitle(now int64) {
	f.dirty = false
	for _, a := range f.active {
		f.flushEnt(a, now)
		x := &f.accts[a]
		x.ent, x.ownEnt, x.active = 0, 0, false
	}
	f.active = f.active[:0]
	f.stack = f.stack[:0]
	f.split(max(float64(f.slots), 0), f.roots, -1, now)
	for len(f.stack) > 0 {
		a := f.stack[len(f.stack)-1]
		f.stack = f.stack[:len(f.stack)-1]
		x := &f.accts[a]
		if !x.kids {
			x.ownEnt = x.ent
			continue
		}
		f.split(x.ent, f.kids(a), a, now)
	}
}

// split shares capacity among sibs with demand and, when owner >= 0,
// the owner's own jobs (with 1 share, as a user's leaf), and pushes the
// siblings that got some for their own split.
func (f *accountFair) split(capacity float64, sibs []int32, owner int32, now int64) {
	ms := f.members[:0]
	for _, a := range sibs {
		if d := f.accts[a].sub; d > 0 {
			ms = append(ms, member{demand: float64(d), weight: f.accts[a].shares, idx: a})
		}
	}
	if owner >= 0 && f.accts[owner].own > 0 {
		ms = append(ms, member{demand: float64(f.accts[owner].own), weight: 1, idx: -1})
	}
	weightedFill(capacity, ms)
	for _, m := range ms {
		if m.idx < 0 {
			f.accts[owner].ownEnt = m.share
			continue
		}
		f.flushEnt(m.idx, now)
		x := &f.accts[m.idx]
		x.ent, x.active = m.share, true
		f.active = append(f.active, m.idx)
		f.stack = append(f.stack, m.idx)
	}
	f.members = ms
}

// byLevel orders members for weightedFill: those with weight by the
// level demand ÷ weight at which they are satisfied, then those without
// by demand; ties by index, for determinism.
func byLevel(a, b member) int {
	if (a.weight > 0) != (b.weight > 0) {
		if a.weight > 0 {
			return -1
		}
		return 1
	}
	la, lb := a.demand, b.demand
	if a.weight > 0 {
		la, lb = a.demand/a.weight, b.demand/b.weight
	}
	if c := cmp.Compare(la, lb); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}

// weightedFill sets each member's share of capacity: in proportion to
// its weight, none above its demand, and what one does not need split
// among the rest by their weights. Members of weight 0 split what the
// others leave, equally (max-min). It sorts ms in place.
func weightedFill(capacity float64, ms []member) {
	slices.SortFunc(ms, byLevel)
	left, w := capacity, 0.0
	pos := 0
	for pos < len(ms) && ms[pos].weight > 0 {
		w += ms[pos].weight
		pos++
	}
	for i := 0; i < pos; i++ {
		fair := 0.0
		if w > 0 {
			fair = left * ms[i].weight / w
		}
		if ms[i].demand <= fair {
			ms[i].share = ms[i].demand
			left -= ms[i].demand
			w -= ms[i].weight
			continue
		}
		// Every later member is satisfied only at a higher level: all
		// get their weight's part of what is left.
		for j := i; j < pos; j++ {
			ms[j].share = left * ms[j].weight / w
		}
		left = 0
		break
	}
	for i := pos; i < len(ms); i++ {
		equal := left / float64(len(ms)-i)
		ms[i].share = min(ms[i].demand, equal)
		left -= ms[i].share
	}
}

// WeightedFill returns the shares of capacity for demands with weights,
// in the order given: the weighted water-filling of each account's split
// (doc.go).
func WeightedFill(capacity float64, demands, weights []float64) []float64 {
	ms := make([]member, len(demands))
	for i := range demands {
		ms[i] = member{demand: demands[i], weight: weights[i], idx: int32(i)}
	}
	weightedFill(capacity, ms)
	out := make([]float64, len(demands))
	for _, m := range ms {
		out[m.idx] = m.share
	}
	return out
}

// AccountSummary is one account's share of a run: its subtree's.
type AccountSummary struct {
	Name   string `json:"name"`
	Parent string `json:"parent,omitempty"`
	// NormShares is its share of the whole tree (sshare's NormShares).
	NormShares float64 `json:"norm_shares"`
	// SlotHours were held by its jobs and its sub-accounts';
	// EntitledSlotHours are the integral of its entitlement.
	SlotHours         float64 `json:"slot_hours"`
	EntitledSlotHours float64 `json:"entitled_slot_hours"`
	// ShareRatio is SlotHours ÷ EntitledSlotHours (0 without an
	// entitlement).
	ShareRatio float64 `json:"share_ratio"`
	// Charged says jobs charged it directly: it is one of the accounts
	// of the Jain index, with OwnShareRatio, its own jobs' ratio, when
	// it also has sub-accounts (else ShareRatio is its own).
	Charged       bool    `json:"charged"`
	OwnShareRatio float64 `json:"own_share_ratio,omitempty"`
}

// accountSummaries reports the accounts whose subtree had demand or held
// slots, in the tree's order, and Jain's index over the accounts jobs
// charged of their own received ÷ entitled; ok is false when no account
// was seen.
func (f *accountFair) summaries(now int64) (out []AccountSummary, jain float64, ok bool) {
	var ratios []float64
	for i := range f.accts {
		f.flushHeld(int32(i), now)
		f.flushEnt(int32(i), now)
		x := &f.accts[i]
		if !x.seen {
			continue
		}
		s := AccountSummary{Name: x.name, NormShares: Round(x.norm, 6),
			SlotHours: Round(x.heldSecs/3600, 3), EntitledSlotHours: Round(x.entSecs/3600, 3)}
		if x.parent >= 0 {
			s.Parent = f.accts[x.parent].name
		}
		if x.entSecs > 0 {
			s.ShareRatio = Round(x.heldSecs/x.entSecs, 4)
		}
		s.Charged = x.charged
		if x.ownEntSecs > 0 {
			ratios = append(ratios, x.ownHeldSecs/x.ownEntSecs)
			if x.kids {
				s.OwnShareRatio = Round(x.ownHeldSecs/x.ownEntSecs, 4)
			}
		}
		out = append(out, s)
	}
	return out, Round(Jain(ratios), 4), len(out) > 0
}
