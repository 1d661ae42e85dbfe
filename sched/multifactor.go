package sched

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Multifactor configures a multifactor pool (Slurm's multi-factor
// priority). A job's priority is
//
//	Age·age + FairShare·fairshare + JobSize·size + QOS·qos + Pool·pool − Nice
//
// where every factor lies in 0..1 and Nice is the job's own adjustment in
// priority units. Higher priority runs first, so this number runs the
// other way from Job.Priority, which multifactor pools ignore.
type Multifactor struct {
	// Weights of the factors; each is finite and not negative, and at
	// least one is positive.
	Age, FairShare, JobSize, QOS, Pool float64
	// MaxAge is the queue wait, in seconds, at which the age factor
	// reaches 1 and stops growing. Required when Age is positive.
	MaxAge int64
	// FavorSmall makes the job-size factor favour small jobs: a one-slot
	// task scores nearly 1 and a task the size of the pool 0. By default
	// large jobs are favoured.
	FavorSmall bool
	// FairShareMode is classic (S − U) or fair_tree. Required when
	// FairShare is positive.
	FairShareMode FairShareMode
	// PoolPriority is the pool's own priority value; the pool factor is
	// it divided by the largest PoolPriority of any multifactor pool.
	PoolPriority float64
}

// QOS is a quality of service. Its Priority, divided by the largest
// Priority in Snapshot.QOS, is the QOS factor. A QOS with Preempt may
// preempt preemptible tasks of jobs whose QOS has a lower Priority (and, in
// multifactor pools, a lower computed priority), even in a pool without
// preemption: the `emergency` QOS.
type QOS struct {
	Name     string
	Priority int
	Preempt  bool
}

// DefaultMultifactor is a starting point: QOS dominates (an emergency job
// outranks any job of priority-0 QOS, whatever its other factors), then fair
// share (fair tree), then age over seven days, then size (large first).
func DefaultMultifactor() Multifactor {
	return Multifactor{
		QOS: 100000, FairShare: 10000, Age: 1000, JobSize: 500, Pool: 0,
		MaxAge: 7 * 86400, FairShareMode: FairShareTree,
	}
}

// DefaultQOS is the QOS list that goes with DefaultMultifactor: normal,
// high, and emergency, which may preempt.
func DefaultQOS() []QOS {
	return []QOS{{Name: "normal"}, {Name: "high", Priority: 10}, {Name: "emergency", Priority: 100, Preempt: true}}
}

// Factors is the breakdown of one job's multifactor priority (what Slurm's
// sprio shows): each factor in 0..1 before its weight, the nice value, and
// the resulting priority.
type Factors struct {
	Age, FairShare, JobSize, QOS, Pool float64
	Nice                               int
	Priority                           float64
}

// PriorityFactors computes the multifactor priority of every job in a
// multifactor pool, indexed like s.Jobs; jobs in other pools get zero
// Factors. It rejects the snapshots Schedule rejects.
func PriorityFactors(s *Snapshot) ([]Factors, error) {
	var parents []bool
	if err := validate(s, &parents, nil); err != nil {
		return nil, err
	}
	var ap accountPass
	capacity := make([]int, len(s.Pools))
	for i := range s.Nodes {
		if n := &s.Nodes[i]; n.Pool >= 0 && n.Pool < len(s.Pools) {
			capacity[n.Pool] += n.Slots
		}
	}
	g := globalFactors(s)
	out := make([]Factors, len(s.Jobs))
	for ji := range s.Jobs {
		j := &s.Jobs[ji]
		pl := &s.Pools[j.Pool]
		if pl.Policy != PolicyMultifactor {
			continue
		}
		fs, _ := ap.factors(s, pl.Multifactor.FairShareMode)
		out[ji] = jobFactors(s, j, &pl.Multifactor, capacity[j.Pool], fs, g)
	}
	return out, nil
}

// global holds the snapshot-wide maxima that normalise the pool and QOS
// factors.
type global struct {
	poolMax float64
	qosMax  int
}

func globalFactors(s *Snapshot) global {
	var g global
	for i := range s.Pools {
		if s.Pools[i].Policy == PolicyMultifactor {
			g.poolMax = max(g.poolMax, s.Pools[i].Multifactor.PoolPriority)
		}
	}
	for i := range s.QOS {
		g.qosMax = max(g.qosMax, s.QOS[i].Priority)
	}
	return g
}

// jobFactors computes one job's factors and priority. The sum is always
// taken in the same order, so equal inputs give bit-equal priorities.
func jobFactors(s *Snapshot, j *Job, mf *Multifactor, capacity int, fs []float64, g global) Factors {
	var f Factors
	if mf.MaxAge > 0 {
		age := min(max(s.Now-j.Submit, 0), mf.MaxAge)
		f.Age = float64(age) / float64(mf.MaxAge)
	}
	if mf.FairShare > 0 {
		f.FairShare = fs[j.Account]
	}
	if capacity > 0 {
		f.JobSize = min(float64(j.Slots)/float64(capacity), 1)
	}
	if mf.FavorSmall {
		f.JobSize = 1 - f.JobSize
	}
	if g.qosMax > 0 && len(s.QOS) > 0 {
		f.QOS = float64(s.QOS[j.QOS].Priority) / float64(g.qosMax)
	}
	if g.poolMax > 0 {
		f.Pool = mf.PoolPriority / g.poolMax
	}
	f.Nice = j.Nice
	f.Priority = mf.Age*f.Age + mf.FairShare*f.FairShare + mf.JobSize*f.JobSize +
		mf.QOS*f.QOS + mf.Pool*f.Pool - float64(j.Nice)
	return f
}

// validateMultifactor checks the multifactor weights, QOS and accounts; it
// reports whether a pool uses fair tree, and then leaves in scratch which
// accounts have sub-accounts, for fair tree's rule that jobs charge
// leaves (validateJobMultifactor checks each job).
func validateMultifactor(s *Snapshot, scratch *[]bool) (bool, error) {
	for i := range s.Pools {
		if s.Pools[i].Policy == PolicyMultifactor {
			if err := validateWeights(&s.Pools[i].Multifactor); err != nil {
				return false, fmt.Errorf("pool %q: %w", s.Pools[i].Name, err)
			}
		}
	}
	for i := range s.QOS {
		if s.QOS[i].Priority < 0 {
			return false, fmt.Errorf("qos %q: priority must not be negative, got %d", s.QOS[i].Name, s.QOS[i].Priority)
		}
	}
	if err := validateAccounts(s); err != nil {
		return false, err
	}
	if !slices.ContainsFunc(s.Pools, func(p Pool) bool {
		return p.Policy == PolicyMultifactor && p.Multifactor.FairShareMode == FairShareTree
	}) {
		return false, nil
	}
	parents := resize(*scratch, len(s.Accounts))
	*scratch = parents
	for i := range s.Accounts {
		if p := s.Accounts[i].Parent; p >= 0 {
			parents[p] = true
		}
	}
	return true, nil
}

func validateWeights(mf *Multifactor) error {
	w := [...]struct {
		name string
		v    float64
	}{{"age", mf.Age}, {"fair_share", mf.FairShare}, {"job_size", mf.JobSize}, {"qos", mf.QOS},
		{"pool", mf.Pool}, {"pool_priority", mf.PoolPriority}}
	positive := false
	for _, x := range w {
		if !finiteNonNeg(x.v) {
			return fmt.Errorf("multifactor weight %s must be a finite number >= 0, got %v", x.name, x.v)
		}
		positive = positive || (x.v > 0 && x.name != "pool_priority")
	}
	switch {
	case !positive:
		return errors.New("multifactor policy needs at least one positive weight (age, fair_share, job_size, qos, pool)")
	case mf.MaxAge < 0:
		return fmt.Errorf("multifactor max_age must not be negative, got %d", mf.MaxAge)
	case mf.Age > 0 && mf.MaxAge == 0:
		return errors.New("multifactor age weight is set but max_age is 0; give the age at which the factor reaches 1")
	}
	switch mf.FairShareMode {
	case FairShareClassic, FairShareTree:
	case "":
		if mf.FairShare > 0 {
			return errors.New("multifactor fair_share weight is set but no fair-share mode (classic or fair_tree)")
		}
	default:
		return fmt.Errorf("unknown fair-share mode %q, want classic or fair_tree", mf.FairShareMode)
	}
	return nil
}

func validateJobMultifactor(s *Snapshot, j *Job, parents []bool) error {
	if j.Pool < 0 || j.Pool >= len(s.Pools) {
		return nil // reported by validate
	}
	pl := &s.Pools[j.Pool]
	if pl.Policy != PolicyMultifactor && pl.Policy != PolicyPriority {
		return nil
	}
	switch {
	case len(s.QOS) == 0 && j.QOS != 0:
		return fmt.Errorf("job %q: qos index %d but the snapshot lists no QOS", j.ID, j.QOS)
	case len(s.QOS) > 0 && (j.QOS < 0 || j.QOS >= len(s.QOS)):
		return fmt.Errorf("job %q: qos index %d out of range (%d QOS)", j.ID, j.QOS, len(s.QOS))
	}
	mf := &pl.Multifactor
	if pl.Policy != PolicyMultifactor || mf.FairShare == 0 {
		return nil
	}
	if j.Account < 0 || j.Account >= len(s.Accounts) {
		return fmt.Errorf("job %q: runs in multifactor pool %q with a fair-share weight but its account index %d is out of range (%d accounts)",
			j.ID, pl.Name, j.Account, len(s.Accounts))
	}
	if mf.FairShareMode == FairShareTree && parents[j.Account] {
		return fmt.Errorf("job %q: charges account %q, which has sub-accounts; under fair_tree jobs charge leaf accounts (users)",
			j.ID, s.Accounts[j.Account].Name)
	}
	return nil
}

// mfPass holds the multifactor numbers of one pass.
type mfPass struct {
	prio []float64 // per job, for jobs of multifactor pools
	acc  accountPass
	g    global
	// qosPreempt is set when some QOS may preempt, so priority pools
	// prepare victim lists.
	qosPreempt bool
	// parents is validation's scratch: which accounts have children.
	parents []bool
}

func (m *mfPass) reset(s *Snapshot) {
	m.acc.reset()
	m.g = globalFactors(s)
	m.qosPreempt = slices.ContainsFunc(s.QOS, func(q QOS) bool { return q.Preempt })
	m.prio = resize(m.prio, len(s.Jobs))
}

// qosOf returns a job's QOS priority and whether it may preempt.
func qosOf(s *Snapshot, j *Job) (int, bool) {
	if len(s.QOS) == 0 {
		return 0, false
	}
	q := &s.QOS[j.QOS]
	return q.Priority, q.Preempt
}

func (m *mfPass) priorities(p *pass, pool int, jobs []int32) {
	mf := &p.s.Pools[pool].Multifactor
	var fs []float64
	if mf.FairShare > 0 {
		fs, _ = m.acc.factors(p.s, mf.FairShareMode)
	}
	capacity := 0
	for _, gi := range p.st.poolGroups[pool] {
		capacity += int(p.st.groups[gi].size) * len(p.st.groups[gi].nodes)
	}
	for _, j := range jobs {
		m.prio[j] = jobFactors(p.s, &p.s.Jobs[j], mf, capacity, fs, m.g).Priority
	}
}

// sortJobs orders jobs by priority, higher first. Ties go to the
// account with the better fair-share standing (classic: the higher S − U,
// unclamped; then the larger share, as seed 003 breaks its tie), then by
// submission. kind is the list's kind in the kept orders (listMFJobs or
// listMFZero): every job's age moves with Now, but most pairs keep their
// order, so the previous order is repaired rather than sorted again.
func (m *mfPass) sortJobs(p *pass, pool int, jobs []int32, kind int) {
	mf := &p.s.Pools[pool].Multifactor
	prio := m.prio
	var level, norm []float64
	if mf.FairShare > 0 {
		_, level = m.acc.factors(p.s, mf.FairShareMode)
		norm = m.acc.norm
	}
	cmp := func(a, b int32) int {
		if prio[a] != prio[b] {
			return cmpDesc(prio[a], prio[b])
		}
		ja, jb := &p.s.Jobs[a], &p.s.Jobs[b]
		if level != nil && ja.Account != jb.Account {
			if c := cmpDesc(level[ja.Account], level[jb.Account]); c != 0 {
				return c
			}
			if c := cmpDesc(norm[ja.Account], norm[jb.Account]); c != 0 {
				return c
			}
		}
		return lessFIFO(ja, jb)
	}
	p.sc.orders.sort(pool*listKinds+kind, jobs, len(p.s.Jobs), p.sc.memo.jobNewOf(), cmp, nil)
}

// victims returns the pool's running tasks as victims: lowest QOS
// first, then lowest priority, then least work lost (see lessLost).
func (m *mfPass) victims(p *pass, pool int) []int32 {
	v := append(p.vic.list[:0], p.sc.poolRuns[pool]...)
	prio := m.prio
	p.sc.orders.sort(pool*listKinds+listVictims, v, len(p.s.Allocs), p.sc.allocs.newOf, func(a, b int32) int {
		aa, ab := &p.s.Allocs[a], &p.s.Allocs[b]
		qa, _ := qosOf(p.s, &p.s.Jobs[aa.Job])
		qb, _ := qosOf(p.s, &p.s.Jobs[ab.Job])
		switch {
		case qa != qb:
			return qa - qb
		case prio[aa.Job] != prio[ab.Job]:
			return -cmpDesc(prio[aa.Job], prio[ab.Job])
		}
		return p.vic.lessLost(a, b)
	}, nil)
	p.vic.list = v
	p.vic.next = resize(p.vic.next, len(v))
	return v
}

// FormatPriority renders a multifactor priority as reasons and
// explanations print it: at most four decimals, no trailing zeros.
func FormatPriority(x float64) string { return fmtPriority(x) }

// fmtPriority renders a priority for people: at most four decimals, no
// trailing zeros.
func fmtPriority(x float64) string {
	r := math.Round(x*1e4) / 1e4
	if r == 0 {
		r = 0 // no "-0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}
