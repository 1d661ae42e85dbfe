package sched

import (
	"fmt"
	"math"
	"slices"
)

// Account is a fair-share entity of multifactor pools: a department, a
// group, or a user. Accounts nest; users are the leaves.
type Account struct {
	Name string
	// Parent is the index of the parent account, or -1 at the top.
	Parent int
	// Shares is the account's entitlement relative to its siblings: two
	// siblings with 1 and 3 shares are entitled to 25% and 75% of what
	// their parent is entitled to.
	Shares float64
	// Usage is the decayed usage charged directly to this account, as a
	// share of the cluster's capacity (see Decay); the core adds each
	// account's children to it.
	Usage float64
}

// FairShareMode selects how the fair-share factor is computed.
type FairShareMode string

// Classic is seed 003's P = S − U per account; fair tree is Slurm's Fair
// Tree, which ranks every user by walking the account tree with siblings in
// order of their level fair share.
const (
	FairShareClassic FairShareMode = "classic"
	FairShareTree    FairShareMode = "fair_tree"
)

// accountPass holds per-account numbers for one pass, indexed by account.
type accountPass struct {
	kids  [][]int32
	roots []int32
	order []int32 // pre-order: every parent before its children
	stack []int32
	tmp   []int32
	// norm is S, the account's normalised share of the whole cluster: the
	// product of its share among its siblings down the tree.
	norm []float64
	// sib is the account's share among its siblings.
	sib []float64
	// total is U, the usage of the account and all its descendants.
	total []float64
	// lf is the level fair share of fair tree: sib / (total among
	// siblings).
	lf []float64
	// ranked marks, under fair tree, the accounts it ranks (markRanked),
	// hasUser those with a ranked account at or under them, and place
	// is each ranked account's place among the users, 1 the best (tied
	// users share one), of users; 0 for the others.
	ranked  []bool
	hasUser []bool
	place   []int32
	users   int
	frames  []tieFrame
	// factor and level, per mode: the fair-share factor in 0..1, and the
	// unclamped value that breaks ties (classic: S − U).
	factor [2][]float64
	level  [2][]float64
	built  bool
	done   [2]bool
}

func modeIndex(m FairShareMode) int {
	if m == FairShareTree {
		return 1
	}
	return 0
}

func (ap *accountPass) reset() {
	ap.built = false
	ap.done = [2]bool{}
}

// validateAccounts checks the account tree: parents exist, no cycle, and
// shares and usage are finite and not negative.
func validateAccounts(s *Snapshot) error {
	for i := range s.Accounts {
		a := &s.Accounts[i]
		if !finiteNonNeg(a.Shares) {
			return fmt.Errorf("account %q: shares must be a finite number >= 0, got %v", a.Name, a.Shares)
		}
		if !finiteNonNeg(a.Usage) {
			return fmt.Errorf("account %q: usage must be a finite number >= 0, got %v", a.Name, a.Usage)
		}
		at, depth := a.Parent, 0
		for at >= 0 {
			if at >= len(s.Accounts) {
				return fmt.Errorf("account %q: parent index %d out of range", a.Name, at)
			}
			if depth++; depth > len(s.Accounts) {
				return fmt.Errorf("account %q: its parents form a cycle", a.Name)
			}
			at = s.Accounts[at].Parent
		}
	}
	return nil
}

func finiteNonNeg(x float64) bool { return x >= 0 && !math.IsInf(x, 1) }

// build indexes the tree and computes S and U for every account.
func (ap *accountPass) build(s *Snapshot) {
	if ap.built {
		return
	}
	ap.built = true
	n := len(s.Accounts)
	ap.kids = resizeLists(ap.kids, n)
	ap.roots = ap.roots[:0]
	for i := range s.Accounts {
		if p := s.Accounts[i].Parent; p < 0 {
			ap.roots = append(ap.roots, int32(i))
		} else {
			ap.kids[p] = append(ap.kids[p], int32(i))
		}
	}
	ap.norm = resize(ap.norm, n)
	ap.sib = resize(ap.sib, n)
	ap.total = resize(ap.total, n)
	ap.lf = resize(ap.lf, n)
	ap.sibShares(s, ap.roots)
	for i := range s.Accounts {
		ap.sibShares(s, ap.kids[i])
	}
	// Pre-order: parents come first, so S multiplies down and U adds up
	// in reverse.
	ap.order = ap.order[:0]
	ap.stack = append(ap.stack[:0], ap.roots...)
	for len(ap.stack) > 0 {
		a := ap.stack[len(ap.stack)-1]
		ap.stack = ap.stack[:len(ap.stack)-1]
		ap.order = append(ap.order, a)
		ap.stack = append(ap.stack, ap.kids[a]...)
	}
	for _, a := range ap.order {
		ap.norm[a] = ap.sib[a]
		if p := s.Accounts[a].Parent; p >= 0 {
			ap.norm[a] *= ap.norm[p]
		}
		ap.total[a] = s.Accounts[a].Usage
	}
	for i := len(ap.order) - 1; i >= 0; i-- {
		a := ap.order[i]
		if p := s.Accounts[a].Parent; p >= 0 {
			ap.total[p] += ap.total[a]
		}
	}
}

// sibShares sets each sibling's share of the siblings' shares.
func (ap *accountPass) sibShares(s *Snapshot, sibs []int32) {
	sum := 0.0
	for _, a := range sibs {
		sum += s.Accounts[a].Shares
	}
	for _, a := range sibs {
		ap.sib[a] = 0
		if sum > 0 {
			ap.sib[a] = s.Accounts[a].Shares / sum
		}
	}
}

// factors returns the fair-share factor and tie-break level per account
// for a mode, computing them once per pass.
func (ap *accountPass) factors(s *Snapshot, m FairShareMode) (factor, level []float64) {
	k := modeIndex(m)
	if ap.done[k] {
		return ap.factor[k], ap.level[k]
	}
	ap.build(s)
	n := len(s.Accounts)
	ap.factor[k] = resize(ap.factor[k], n)
	ap.level[k] = resize(ap.level[k], n)
	if m == FairShareTree {
		ap.fairTree(s, ap.factor[k])
		copy(ap.level[k], ap.factor[k])
	} else {
		for a := range n {
			d := ap.norm[a] - ap.total[a]
			ap.level[k][a] = d
			ap.factor[k][a] = min(max(d, 0), 1)
		}
	}
	ap.done[k] = true
	return ap.factor[k], ap.level[k]
}

// fairTree ranks the leaves (Slurm's Fair Tree): siblings are sorted by
// level fair share, LF = S / U with both S and U taken among the siblings
// only, higher first (then more shares first), and the tree is walked
// depth first. Users reached in that order get factor rank/leaves, rank
// counting down from leaves; ties are allowed, as in Slurm: siblings of
// equal LF and shares are tied (tiedLevel), a tied user shares the rank
// of the user before it, tied accounts have their children merged and
// ranked together, and the first user under an account tied with a user
// before it shares that user's rank. The user after a tie takes the
// rank it would have had without one (1, 1, 3 of 3: factors 1, 1 and
// 1/3). So no user's factor hangs on which account was made first (trial
// 29i I9: two users with no usage got 1 and 2/3). Only the leaves that
// stand for users are ranked (markRanked): an account with children gets
// 0, as jobs may not charge it, and so does a leaf with neither jobs nor
// usage, such as a project no user has run in, which must not push the
// users down nor stand between tied users.
func (ap *accountPass) fairTree(s *Snapshot, factor []float64) {
	ap.levelShares(ap.roots)
	for i := range s.Accounts {
		ap.levelShares(ap.kids[i])
	}
	clear(factor)
	ap.place = resize(ap.place, len(s.Accounts))
	clear(ap.place)
	leaves := ap.markRanked(s)
	ap.users = leaves
	// Walk with an explicit stack of sibling lists, each a stretch of
	// ap.tmp above its parent's: a list is pushed when its account is
	// reached and dropped once walked, so the best child goes first.
	ap.tmp = ap.appendRanked(ap.tmp[:0], ap.roots)
	slices.SortFunc(ap.tmp, ap.byLevel)
	ap.frames = append(ap.frames[:0], tieFrame{end: int32(len(ap.tmp))})
	rank, next := leaves, leaves // next: the rank without ties (Slurm's rnt)
	for len(ap.frames) > 0 {
		f := &ap.frames[len(ap.frames)-1]
		if f.pos == f.end {
			ap.tmp = ap.tmp[:f.start]
			ap.frames = ap.frames[:len(ap.frames)-1]
			continue
		}
		a := ap.tmp[f.pos]
		tied := f.tied
		if f.pos > f.start {
			tied = ap.tiedLevel(ap.tmp[f.pos-1], a)
		}
		f.pos++
		if ap.ranked[a] {
			if !tied {
				rank = next
			}
			factor[a] = float64(rank) / float64(leaves)
			ap.place[a] = int32(leaves - rank + 1)
			next--
			continue
		}
		// a and the accounts after it tied with it: their children,
		// merged. Users sort before accounts of their level, so only
		// accounts follow.
		first, start := f.pos, len(ap.tmp)
		for f.pos < f.end && ap.tiedLevel(a, ap.tmp[f.pos]) {
			f.pos++
		}
		last := f.pos
		ap.tmp = ap.appendRanked(ap.tmp, ap.kids[a])
		for i := first; i < last; i++ {
			ap.tmp = ap.appendRanked(ap.tmp, ap.kids[ap.tmp[i]])
		}
		slices.SortFunc(ap.tmp[start:], ap.byLevel)
		ap.frames = append(ap.frames, tieFrame{start: int32(start), end: int32(len(ap.tmp)), pos: int32(start), tied: tied})
	}
}

// tieFrame is one list of siblings (merged, for tied accounts) that
// fairTree walks: ap.tmp[start:end], the next at pos. tied says its
// first one ties with the user ranked before it.
type tieFrame struct {
	start, end, pos int32
	tied            bool
}

// byLevel orders siblings for fair tree: higher LF first, then more
// shares, then the users before the accounts (so that a user tied with
// an account comes first, and tied accounts are next to each other),
// then by index, which decides nothing: tied users share a rank and
// tied accounts are merged.
func (ap *accountPass) byLevel(a, b int32) int {
	switch {
	case ap.lf[a] != ap.lf[b]:
		return cmpDesc(ap.lf[a], ap.lf[b])
	case ap.sib[a] != ap.sib[b]:
		return cmpDesc(ap.sib[a], ap.sib[b])
	case ap.ranked[a] != ap.ranked[b]:
		if ap.ranked[a] {
			return -1
		}
		return 1
	}
	return int(a - b)
}

// tiedLevel reports whether a and b tie for fair tree: the same LF and
// the same share among their siblings. Equal shares are part of the tie
// as more shares rank first (ties to more shares): two users who used
// nothing tie only when entitled to as much.
func (ap *accountPass) tiedLevel(a, b int32) bool {
	return ap.lf[a] == ap.lf[b] && ap.sib[a] == ap.sib[b]
}

// appendRanked appends to dst the accounts of src with a ranked leaf at
// or under them: the others take no rank, and must not tie with those
// that do.
func (ap *accountPass) appendRanked(dst, src []int32) []int32 {
	for _, a := range src {
		if ap.hasUser[a] {
			dst = append(dst, a)
		}
	}
	return dst
}

// markRanked marks the accounts fair tree ranks and counts them: those
// without children that have usage of their own or a job that charges
// them (in a multifactor pool that weighs fair share, the only jobs whose
// account the core reads). Slurm ranks user associations; here an
// account a job may charge is a user's, whatever its name (a scenario's
// jobs may charge an account with no user under it), and one with
// neither jobs nor usage is no user's yet.
func (ap *accountPass) markRanked(s *Snapshot) int {
	ap.ranked = resize(ap.ranked, len(s.Accounts))
	clear(ap.ranked)
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if j.Pool < 0 || j.Pool >= len(s.Pools) || j.Account < 0 || j.Account >= len(s.Accounts) {
			continue
		}
		if pl := &s.Pools[j.Pool]; pl.Policy == PolicyMultifactor && pl.Multifactor.FairShare > 0 {
			ap.ranked[j.Account] = true
		}
	}
	n := 0
	for a := range s.Accounts {
		r := len(ap.kids[a]) == 0 && (ap.ranked[a] || ap.total[a] > 0)
		ap.ranked[a] = r
		if r {
			n++
		}
	}
	// hasUser: a ranked leaf at or under the account; children come
	// after their parent in ap.order.
	ap.hasUser = resize(ap.hasUser, len(s.Accounts))
	copy(ap.hasUser, ap.ranked)
	for i := len(ap.order) - 1; i >= 0; i-- {
		a := ap.order[i]
		if p := s.Accounts[a].Parent; p >= 0 && ap.hasUser[a] {
			ap.hasUser[p] = true
		}
	}
	return n
}

// levelShares computes each sibling's level fair share.
func (ap *accountPass) levelShares(sibs []int32) {
	sum := 0.0
	for _, a := range sibs {
		sum += ap.total[a]
	}
	for _, a := range sibs {
		u := 0.0
		if sum > 0 {
			u = ap.total[a] / sum
		}
		switch {
		case ap.sib[a] == 0:
			ap.lf[a] = 0
		case u == 0:
			ap.lf[a] = math.Inf(1)
		default:
			ap.lf[a] = ap.sib[a] / u
		}
	}
}

func cmpDesc(a, b float64) int {
	if a > b {
		return -1
	}
	if a < b {
		return 1
	}
	return 0
}
