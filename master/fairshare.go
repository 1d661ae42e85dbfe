package master

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// Fair share of multifactor pools. The account tree is the project tree,
// with each project's Shares, and under every project one leaf account
// per user who has run or submitted work there, with the user's Shares. A
// job charges the leaf of (its project, its user). Usage is charged from
// the store's usage records, which the master writes when an attempt ends
// (up to its processes' exit, usageexit.go) and every usageInterval while
// it runs (up to when its agent was last heard), into a lifecycle.Usage
// ledger per (pool, project, user), in slot-periods (slot-seconds over the decay
// period): the simulator's accounting, per period as seed 003 counts it
// (a period's usage counts in full, and all usage decays once at each
// period's end, periods aligned to the Unix epoch). A snapshot sums the
// multifactor pools' usage of each leaf, adds what open attempts used
// since their last record, and divides by the multifactor pools' slots.
// New rebuilds it all from the store's usage records.

// usageInterval is how often open attempts get a usage record.
const usageInterval = 5 * time.Minute

// noUser names the leaf of jobs submitted without a user.
const noUser = "-"

// leafKey names a leaf account.
type leafKey struct{ project, user string }

// usageKey names one usage counter.
type usageKey struct{ pool, project, user string }

// fairShare is the master's fair-share state. Guarded by Master.mu.
type fairShare struct {
	decay  sched.Decay
	leaves map[leafKey]int // leaf → index in accounts
	// accounts is the tree as the core takes it: the configuration's
	// projects in order, then the leaves by (project index, user).
	accounts []sched.Account
	leafOf   []leafKey // per account; zero for projects
	dirty    bool      // a leaf was added since accounts was built
	// usage is the decayed usage in slot-periods; its keys are sorted, so
	// that sums are taken in one order and snapshots are reproducible to
	// the last bit.
	usage *lifecycle.Usage[usageKey]
	// scratch: what open attempts used since their last record, per
	// account, in slot-periods as of the snapshot's time.
	open []float64
}

func newFairShare(d sched.Decay) *fairShare {
	return &fairShare{decay: d, leaves: map[leafKey]int{},
		usage: lifecycle.NewUsage(d, 1, 0, cmpUsageKey), dirty: true}
}

func leafOf(project, user string) leafKey {
	if user == "" {
		user = noUser
	}
	return leafKey{project, user}
}

// addLeaf makes sure a leaf exists for (project, user).
func (f *fairShare) addLeaf(project, user string) {
	k := leafOf(project, user)
	if _, ok := f.leaves[k]; !ok {
		f.leaves[k] = -1
		f.dirty = true
	}
}

// rebuild lays the tree out again for cfg. Leaves of projects the
// configuration no longer has are kept out of the tree (index -1: their
// jobs are left out of the snapshot as unknown_project) but stay known,
// so that a later configuration that has the project again lays them out
// again: dropping them left the live jobs of a project removed and then
// re-added with no leaf, and every pass failing on their account -1.
func (f *fairShare) rebuild(cfg *config.Config) {
	f.dirty = false
	f.accounts = f.accounts[:0]
	f.leafOf = f.leafOf[:0]
	for _, p := range cfg.Projects {
		f.accounts = append(f.accounts, sched.Account{Name: p.Name, Parent: cfg.ProjectIndex(p.Parent), Shares: p.Shares})
		f.leafOf = append(f.leafOf, leafKey{})
	}
	keys := make([]leafKey, 0, len(f.leaves))
	for k := range f.leaves {
		if cfg.ProjectIndex(k.project) >= 0 {
			keys = append(keys, k)
		} else {
			f.leaves[k] = -1
		}
	}
	slices.SortFunc(keys, func(a, b leafKey) int { return cmpLeaves(cfg, a, b) })
	for _, k := range keys {
		f.leaves[k] = len(f.accounts)
		f.accounts = append(f.accounts, leafAccount(cfg, k))
		f.leafOf = append(f.leafOf, k)
	}
}

// cmpLeaves orders leaves as rebuild lays them out: by their project's
// place in the configuration, then by user.
func cmpLeaves(cfg *config.Config, a, b leafKey) int {
	if c := cmp.Compare(cfg.ProjectIndex(a.project), cfg.ProjectIndex(b.project)); c != 0 {
		return c
	}
	return cmp.Compare(a.user, b.user)
}

// leafAccount is leaf k's account: under its project, with its user's
// shares (1 for a user the configuration does not list).
func leafAccount(cfg *config.Config, k leafKey) sched.Account {
	shares := 1.0
	if u, ok := cfg.User(k.user); ok {
		shares = u.Shares
	}
	return sched.Account{Name: k.project + "/" + k.user, Parent: cfg.ProjectIndex(k.project), Shares: shares}
}

// leafIn returns the index of (project, user)'s leaf in s, a copy of the
// last pass's snapshot, making it there when it is not made yet: a dry
// run's job may be its user's first in the project, whose leaf the
// submission would make (addLeaf) before the next pass. It goes where
// rebuild would put it, the accounts after it and the jobs charging them
// shifted by one, so that fair tree's ties, broken by index, come out as
// they would; it has no usage yet. Only s changes: the master's tree is
// left as it is, as a dry run changes nothing. Callers hold mu.
func (f *fairShare) leafIn(s *sched.Snapshot, cfg *config.Config, project, user string) int {
	k := leafOf(project, user)
	if i, ok := f.leaves[k]; ok && i >= 0 && i < len(s.Accounts) {
		return i
	}
	pos := len(s.Accounts)
	if len(f.leafOf) == len(s.Accounts) {
		for i, o := range f.leafOf {
			if o != (leafKey{}) && cmpLeaves(cfg, o, k) > 0 {
				pos = i
				break
			}
		}
	}
	acc := leafAccount(cfg, k)
	if acc.Parent >= pos {
		pos = len(s.Accounts) // a configuration reloaded since the pass
	}
	s.Accounts = slices.Insert(s.Accounts, pos, acc)
	for i := range s.Jobs {
		if s.Jobs[i].Account >= pos {
			s.Jobs[i].Account++
		}
	}
	return pos
}

// account returns the leaf index of (project, user), or -1.
func (f *fairShare) account(project, user string) int {
	if i, ok := f.leaves[leafOf(project, user)]; ok {
		return i
	}
	return -1
}

// charge adds a usage record's slot-seconds, used over [start, end), to
// its counter. Records may come late or out of order (a restart reads
// them back): each period's part is decayed as if it had come in time.
func (f *fairShare) charge(pool, project, user string, start, end int64, slotSeconds float64) {
	f.usage.Charge(usageKey{pool, project, leafOf(project, user).user}, start, end, slotSeconds)
}

// openUsage is what an open attempt's slots used from its last record at
// from to now count at now, in slot-periods.
func (f *fairShare) openUsage(slots int, from, now time.Time) float64 {
	secs := max(now.Sub(from).Seconds(), 0)
	return lifecycle.Worth(f.decay, 1, from.Unix(), now.Unix(), float64(slots)*secs, now.Unix())
}

// fill sets every account's Usage for a snapshot at now: the recorded
// usage in multifactor pools decayed to now, plus f.open (what open
// attempts used since their last record), over the multifactor pools'
// capacity in slots.
func (f *fairShare) fill(cfg *config.Config, now int64, capacity int) {
	for i := range f.accounts {
		f.accounts[i].Usage = 0
	}
	if capacity <= 0 {
		return
	}
	f.usage.Advance(now)
	for _, k := range f.usage.Keys() {
		p, ok := cfg.Pool(k.pool)
		if !ok || p.Policy != sched.PolicyMultifactor {
			continue
		}
		if i := f.account(k.project, k.user); i >= 0 {
			f.accounts[i].Usage += f.usage.Get(k) / float64(capacity)
		}
	}
	for i, u := range f.open {
		if i < len(f.accounts) && u > 0 {
			f.accounts[i].Usage += u / float64(capacity)
		}
	}
}

func cmpUsageKey(a, b usageKey) int {
	if c := cmp.Compare(a.pool, b.pool); c != 0 {
		return c
	}
	if c := cmp.Compare(a.project, b.project); c != 0 {
		return c
	}
	return cmp.Compare(a.user, b.user)
}

// usageHorizon is how far back usage still counts at least 1e-6 of its
// value; 0 means forever (no decay).
func usageHorizon(d sched.Decay) time.Duration {
	const negligible = 1e-6
	var secs float64
	switch {
	case d.HalfLife > 0:
		secs = float64(d.HalfLife) * math.Log2(1/negligible)
	case d.PerPeriod > 0 && d.PerPeriod < 1:
		secs = float64(d.Period) * math.Log(negligible) / math.Log(d.PerPeriod)
	default:
		return 0
	}
	if secs >= float64(math.MaxInt64/int64(time.Second)) {
		return 0
	}
	return time.Duration(secs) * time.Second
}

// usagePage bounds the usage records read at once on start.
const usagePage = 10000

// restoreUsage rebuilds the usage counters from the store's records that
// still count, and sets each open attempt's usedTo to the end of its last
// record, so that nothing is charged twice or lost across a restart.
func (m *Master) restoreUsage(ctx context.Context) error {
	now := m.now()
	var since time.Time
	if h := usageHorizon(m.fair.decay); h > 0 {
		since = now.Add(-h)
	}
	open := map[attemptKey]*mattempt{}
	for _, j := range m.jobs {
		for _, t := range j.tasks {
			if t.att != nil {
				open[attemptKey{j.rec.ID, t.rec.Index, t.att.number}] = t.att
				if !since.IsZero() && t.att.started.Before(since) {
					since = t.att.started
				}
			}
		}
	}
	var after int64
	n := 0
	for {
		recs, err := m.st.Usage(ctx, store.UsageFilter{Since: since, AfterID: after, Limit: usagePage})
		if err != nil {
			return fmt.Errorf("restore usage: %w", err)
		}
		for _, u := range recs {
			m.fair.charge(u.Pool, u.Project, u.User, u.Start.Unix(), u.End.Unix(), u.GPUSeconds)
			m.fair.addLeaf(u.Project, u.User)
			if a := open[attemptKey{u.JobID, u.Index, u.Attempt}]; a != nil && u.End.After(a.usedTo) {
				a.usedTo = u.End
			}
			after = u.ID
		}
		n += len(recs)
		if len(recs) < usagePage {
			break
		}
	}
	if since.IsZero() {
		m.log.Info("fair-share usage restored", "records", n)
		return nil
	}
	// since is the decay's horizon (or an open attempt's start): older
	// usage has decayed to nothing the fair share could tell.
	m.log.Info("fair-share usage restored", "records", n, "counting_from", since, "older", "decayed away")
	return nil
}

type attemptKey struct {
	job     int64
	index   int
	attempt int
}

// usageOf is the usage record of t's open attempt from its usedTo to end,
// or nil when the attempt holds no GPU or no time passed.
func usageOf(t *mtask, end time.Time) *store.Usage {
	if t.att == nil || !end.After(t.att.usedTo) {
		return nil
	}
	gpus := 0
	for _, p := range t.att.parts {
		gpus += len(p.gpus)
	}
	if gpus == 0 {
		return nil
	}
	j := t.job
	return &store.Usage{Project: j.rec.Project, User: j.rec.User, Pool: j.rec.Pool, JobID: j.rec.ID,
		Index: t.rec.Index, Attempt: t.att.number, Start: t.att.usedTo, End: end,
		GPUSeconds: float64(gpus) * end.Sub(t.att.usedTo).Seconds()}
}

// charged notes a stored usage record in the counters.
func (m *Master) charged(u *store.Usage) {
	m.metric.chargeGPU(u.Pool, u.Project, u.User, u.GPUSeconds)
	m.fair.charge(u.Pool, u.Project, u.User, u.Start.Unix(), u.End.Unix(), u.GPUSeconds)
}

// flushUsage records the usage of every open attempt since its last
// record, once per usageInterval, up to the last time its agent said it
// runs (heardTo): not past an exit the master has not heard of yet
// (usageexit.go). Callers hold mu.
func (m *Master) flushUsage(ctx context.Context) error {
	m.tails.settle(m.nodes)
	now := m.now()
	if now.Before(m.nextUsageFlush) {
		return nil
	}
	m.nextUsageFlush = now.Add(usageInterval)
	var recs []*store.Usage
	var atts []*mattempt
	for _, j := range m.order {
		if j.gone {
			continue
		}
		for _, t := range j.tasks {
			if t.att == nil {
				continue
			}
			to := t.att.heardTo
			if to.After(now) {
				to = now // a clock set back
			}
			if u := usageOf(t, to); u != nil {
				recs, atts = append(recs, u), append(atts, t.att)
			}
		}
	}
	if len(recs) == 0 {
		return nil
	}
	err := m.st.Update(ctx, func(tx store.Tx) error {
		for _, u := range recs {
			if _, err := tx.RecordUsage(ctx, *u); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record usage of %d open attempts: %w", len(recs), err)
	}
	for i, u := range recs {
		m.charged(u)
		atts[i].usedTo = u.End
	}
	return nil
}
