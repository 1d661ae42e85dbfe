package master

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/store"
)

// The read view. The pure reads of the API (the job lists and a job's
// view, the nodes, pools and projects, the metrics, the owner of a job
// and the known nodes that requests are checked against) answer from an
// immutable picture of the mirror that is published whenever mu is
// released, and on admitting submissions, instead of taking mu: a batch
// holds mu across its commit, and a read should not wait for it. As mu is
// released only once a batch has committed or been undone, the view never
// shows a change that a failing batch puts back, only what is durable.
//
// Publishing costs what changed, not the size of the mirror: every change
// of a job or node marks it (touch, touchNode and the few changes made
// outside a batch), and publish captures only the marked ones into new
// immutable records, sharing every other record with the previous view.
// The jobs are kept in a persistent trie by id (jobtree.go), of which a
// publish copies the paths to the changed jobs; the nodes, far fewer, in
// a slice by name, copied when one changed (docs/performance.md). The
// package's tests check every release of mu against a view built from
// scratch (verifyReads).

// readView is one published picture of the mirror. Nothing in it changes
// once it is published, but the ranks that readers compute on demand.
type readView struct {
	cfg   *config.Config
	jobs  jobTree     // the live jobs, by id
	nodes []*nodeRead // by name
	// eta and etaEarly are the planner's forecasts; refreshETA replaces
	// them, never changes them.
	eta, etaEarly map[int64]time.Time
	// turns is the last pass's order of each pool's pending jobs
	// (queueturns.go), which positions reads.
	turns queueTurns

	rankOnce sync.Once
	ranks    map[int64]int
}

// jobRead is what the API shows of a live job, captured from the mirror.
type jobRead struct {
	rec                   store.Job
	tasks, active, queued int
	pending               *pendingInfo // a copy; nil when not pending
	startMF               float64      // mjob.startMF
	// nodes are where its open attempts have parts, in name order; used
	// the GPUs they hold and holding how many tasks have one.
	nodes         []string
	used, holding int
	// startedAt is the earliest first start of its open attempts (a
	// moved task's counts from its first placement); zero when none.
	// placedAt is the earliest start on their current placements (a
	// moved or resized task's restart there), and replaced says that a
	// task of them was re-placed by a move or resize: the running
	// reason's "since" (trial 2026-11-29b B5).
	startedAt time.Time
	placedAt  time.Time
	replaced  bool
	// open are the parts of open attempts that have not exited, by task
	// index and node: a lost node holds those only (lostview.go), while
	// nodes keeps a part that exited, as the node filter does.
	open []taskPart
	// done are the parts of open attempts that completed while others
	// of their attempt run (partview.go).
	done []donePart
	// stopping counts its tasks being killed, ended those that ended;
	// killedAt and killWhy are the first kill of those still stopping,
	// when and why it was made, killGrace the grace it gave them
	// (mattempt.stopGrace: a reload since changes nothing its agents
	// were told; readview_ending.go), and killBy when its agent kills
	// what is left (mattempt.stopBy: a preemption's deadline, if the kill
	// came during one and that deadline comes first).
	stopping, ended int
	killedAt        time.Time
	killWhy         string
	killGrace       time.Duration
	killBy          time.Time
	// ownOnPreempt and ownMaxRetries are the job file's exit actions
	// (specHints), which the notes of its tasks on lost nodes resolve
	// against the view's configuration (exitActionsIn), as a reload
	// changes a pool's without marking its jobs. ownMaxRetries is the
	// hints' own pointer, which nothing changes.
	ownOnPreempt  string
	ownMaxRetries *int
	// resizing is its tasks being resized in place, nil when none is
	// (readview_resizing.go).
	resizing *api.Resizing
	// moving is its tasks being moved, nil when none is
	// (readview_moving.go).
	moving *api.Moving
	// preempting is its tasks being preempted, nil when none is
	// (readview_preempting.go).
	preempting *api.Preempting
	// preemptGPUs are the GPUs ("node/index") of the attempt of the task
	// that preempting reports, which the note of a job that took other
	// GPUs reads (readview_elsewhere.go); nil when none is preempted.
	preemptGPUs map[string]bool
}

// taskPart is one part not yet exited: its task's index and its node,
// and what the end of its attempt, were it lost, depends on (lostEnd):
// whether the task is being killed, whether the attempt ran (a part of
// it did), and the task's requeues so far.
type taskPart struct {
	task         int
	node         string
	killing, ran bool
	retries      int32
}

// nodeRead is what the API shows of a node.
type nodeRead struct {
	view         api.Node
	pool         string
	up, draining bool
	slots, free  int
	state        store.NodeState
	name         string
	lostAt       time.Time // when it went lost or left (lostview.go)
	// guests are its GPUs held by jobs of other pools than its own, by
	// pool in name order (api.Pool.Guests); nil when none.
	guests []api.PoolGuest
}

// verifyReads, when set, makes every release of mu compare the view with
// one built from the whole mirror, and call it with a difference: a
// change that was not marked. Tests set it; it costs the size of the
// mirror.
var verifyReads func(difference string)

func captureJob(j *mjob) *jobRead {
	r := &jobRead{rec: j.rec, tasks: len(j.tasks), active: j.active(), queued: j.count.Queued(),
		ownOnPreempt: j.spec.onPreempt, ownMaxRetries: j.spec.maxRetries, startMF: j.startMF, resizing: resizingOf(j),
		moving: movingOf(j), preempting: preemptingOf(j), preemptGPUs: preemptingGPUs(j)}
	if j.pending != nil {
		p := *j.pending
		p.p.Nodes = nil // owned by the core, and no view shows it
		p.p.Turn = 0    // the view's turns hold the order (queueturns.go)
		p.now = 0       // views count from the request's time (jobView), and it is new every pass
		r.pending = &p
	}
	r.stopping, r.ended = j.count.Killing, j.terminal()
	for _, t := range j.tasks {
		if t.rec.State == store.TaskKilling && (r.killedAt.IsZero() || t.rec.UpdatedAt.Before(r.killedAt)) {
			r.killedAt, r.killWhy = t.rec.UpdatedAt, t.rec.Reason
			if t.att != nil {
				r.killGrace, r.killBy = t.att.stopGrace, t.att.stopBy
			}
		}
		if t.att == nil {
			continue
		}
		r.holding++
		if s := t.att.first(); r.startedAt.IsZero() || s.Before(r.startedAt) {
			r.startedAt = s
		}
		if s := t.att.started; r.placedAt.IsZero() || s.Before(r.placedAt) {
			r.placedAt = s
		}
		r.replaced = r.replaced || !t.att.continues.IsZero()
		r.done = append(r.done, captureDone(t)...)
		ran := t.mayHaveRun()
		for _, p := range t.att.parts {
			r.used += len(p.gpus)
			if !slices.Contains(r.nodes, p.node) {
				r.nodes = append(r.nodes, p.node)
			}
			if p.state != partExited {
				r.open = append(r.open, taskPart{task: t.rec.Index, node: p.node,
					killing: t.rec.State == store.TaskKilling, ran: ran, retries: t.Retries})
			}
		}
	}
	slices.Sort(r.nodes)
	return r
}

// readPublisher publishes the read view: the changes of the mirror mark
// what they change with m.pub.markJob and m.pub.markNode, and the
// handlers read the view with m.pub.reads. It owns what a publish needs
// besides the mirror: the view last published, and what changed since. m
// is the Master that holds it, whose mirror, its configuration and the
// planner's forecasts a publish captures.
type readPublisher struct {
	m *Master
	// read is the published read view, for the API's pure reads; stored
	// under Master.mu, loaded without it.
	read atomic.Pointer[readView]
	// dirtyJobs and dirtyNodes changed since the last publish; readStale
	// says the configuration or the forecasts did. Guarded by Master.mu.
	dirtyJobs  []*mjob
	dirtyNodes []*mnode
	readStale  bool
	// turns is the last pass's queue order (noteTurns); turnEntries,
	// turnOff and turnBuf are its scratch. Guarded by Master.mu.
	turns       queueTurns
	turnEntries []turnEntry
	turnOff     []int
	turnBuf     []int64
}

// captureNode renders n. Callers hold mu.
func (p *readPublisher) captureNode(n *mnode) *nodeRead {
	return &nodeRead{view: nodeView(p.m.cfg, n), pool: n.pool, up: n.up(), draining: n.draining(),
		slots: len(n.rec.GPUs), free: max(len(n.rec.GPUs)-len(n.used), 0), state: n.rec.State, name: n.rec.Name,
		lostAt: n.lostAt, guests: nodeGuests(n)}
}

// nodeGuests counts n's GPUs held by jobs of other pools than n's: a
// reload moved n while they ran there (trial 29g G6). Callers hold mu.
func nodeGuests(n *mnode) []api.PoolGuest {
	var out []api.PoolGuest
	for _, t := range n.used {
		pool := t.job.rec.Pool
		if pool == n.pool {
			continue
		}
		i := slices.IndexFunc(out, func(g api.PoolGuest) bool { return g.Pool == pool })
		if i < 0 {
			i = len(out)
			out = append(out, api.PoolGuest{Node: n.rec.Name, Pool: pool})
		}
		out[i].GPUs++
	}
	slices.SortFunc(out, func(a, b api.PoolGuest) int { return strings.Compare(a.Pool, b.Pool) })
	return out
}

// markJob records that j changed since the last publish. Callers hold mu.
func (p *readPublisher) markJob(j *mjob) {
	p.m.changes++ // for a settling's instant (settling.Scheduled)
	if !j.dirty {
		j.dirty = true
		p.dirtyJobs = append(p.dirtyJobs, j)
	}
}

// markNode records that n changed since the last publish. Callers hold
// mu.
func (p *readPublisher) markNode(n *mnode) {
	if !n.dirty {
		n.dirty = true
		p.dirtyNodes = append(p.dirtyNodes, n)
	}
}

// notePendingOf marks j when its pending explanation is no longer the one
// published. Callers hold mu.
func (p *readPublisher) notePendingOf(j *mjob) {
	if j.read == nil || !samePending(j.pending, j.read.pending) {
		p.markJob(j)
	}
}

// samePending compares two explanations as the API shows them: all but
// the core's Nodes (TestSamePendingFields keeps the list whole) and the
// pass's time, which no view reads: a view counts down to a start time
// from the request's time (jobView), so that a pass over a long queue
// whose explanations stay as they were marks no job, not even one
// reserved to start at a time that stays the same.
func samePending(a, b *pendingInfo) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := a.p, b.p
	return a.blockerID == b.blockerID && a.code == b.code && a.msg == b.msg && a.ctx == b.ctx &&
		x.Job == y.Job && x.Reason == y.Reason && x.Blocker == y.Blocker && x.Need == y.Need && x.Free == y.Free &&
		x.At == y.At && x.License == y.License && x.LicenseNeed == y.LicenseNeed && x.LicenseFree == y.LicenseFree &&
		x.Priority == y.Priority && x.Queued == y.Queued
}

// unlock publishes the view and releases mu.
func (m *Master) unlock() {
	m.pub.publish()
	m.mu.Unlock()
}

// publish makes the marked changes visible to readers. Callers hold mu,
// outside a batch.
func (p *readPublisher) publish() {
	if len(p.dirtyJobs) == 0 && len(p.dirtyNodes) == 0 && !p.readStale {
		if verifyReads != nil {
			p.verifyRead(p.read.Load()) // nothing changed that was not marked
		}
		return
	}
	m := p.m
	old := p.read.Load()
	v := &readView{cfg: m.cfg, eta: m.planner.eta, etaEarly: m.planner.etaEarly, turns: p.turns, jobs: old.jobs, nodes: old.nodes}
	if len(p.dirtyJobs) > 0 {
		v.jobs = p.mergeJobs(old.jobs)
	}
	if len(p.dirtyNodes) > 0 {
		v.nodes = p.mergeNodes(old.nodes)
	}
	p.readStale = false
	p.read.Store(v)
	if verifyReads != nil {
		p.verifyRead(v)
	}
}

// mergeJobs returns old with the marked jobs captured again, or dropped
// once they left the mirror.
func (p *readPublisher) mergeJobs(old jobTree) jobTree {
	e := new(treeEdit)
	for _, j := range p.dirtyJobs {
		if !j.dirty {
			continue // listed twice
		}
		j.dirty = false
		id := j.rec.ID
		var r *jobRead
		if cur := p.m.jobs[id]; cur != nil {
			cur.read = captureJob(cur)
			r = cur.read
		}
		old = old.set(e, id, r)
	}
	clear(p.dirtyJobs)
	p.dirtyJobs = p.dirtyJobs[:0]
	return old
}

// mergeNodes returns old with the marked nodes captured again, or dropped
// once deleted.
func (p *readPublisher) mergeNodes(old []*nodeRead) []*nodeRead {
	names := make([]string, 0, len(p.dirtyNodes))
	for _, n := range p.dirtyNodes {
		n.dirty = false
		names = append(names, n.rec.Name)
	}
	clear(p.dirtyNodes)
	p.dirtyNodes = p.dirtyNodes[:0]
	slices.Sort(names)
	names = slices.Compact(names)
	out := make([]*nodeRead, 0, len(old)+len(names))
	i := 0
	for _, name := range names {
		k, found := slices.BinarySearchFunc(old[i:], name, func(r *nodeRead, name string) int { return cmp.Compare(r.name, name) })
		out = append(out, old[i:i+k]...)
		i += k
		if found {
			i++
		}
		if n := p.m.nodes[name]; n != nil {
			out = append(out, p.captureNode(n))
		}
	}
	return append(out, old[i:]...)
}

// publishAll publishes a view of the whole mirror, as New does once the
// mirror is loaded. Callers hold mu or own the Master alone.
func (p *readPublisher) publishAll() {
	for _, j := range p.m.jobs {
		p.markJob(j)
	}
	for _, n := range p.m.nodes {
		p.markNode(n)
	}
	p.read.Store(&readView{})
	p.readStale = true
	p.publish()
}

// verifyRead reports to verifyReads how v differs from a view of the
// whole mirror.
func (p *readPublisher) verifyRead(v *readView) {
	if msg := p.readDifference(v); msg != "" {
		verifyReads(msg)
	}
}

func (p *readPublisher) readDifference(v *readView) string {
	m := p.m
	var jobs []*jobRead
	for _, j := range m.jobs {
		jobs = append(jobs, captureJob(j))
	}
	slices.SortFunc(jobs, func(a, b *jobRead) int { return cmp.Compare(a.rec.ID, b.rec.ID) })
	published := slices.Collect(v.jobs.all())
	var nodes []*nodeRead
	for _, n := range m.nodes {
		nodes = append(nodes, p.captureNode(n))
	}
	slices.SortFunc(nodes, func(a, b *nodeRead) int { return cmp.Compare(a.name, b.name) })
	if len(jobs) != len(published) || len(jobs) != v.jobs.size || len(nodes) != len(v.nodes) {
		return fmt.Sprintf("read view: %d jobs (size %d) and %d nodes published, the mirror has %d and %d",
			len(published), v.jobs.size, len(v.nodes), len(jobs), len(nodes))
	}
	for i, r := range jobs {
		if !reflect.DeepEqual(r, published[i]) {
			return fmt.Sprintf("read view: job %d published as %+v, the mirror has %+v", r.rec.ID, *published[i], *r)
		}
	}
	for i, r := range nodes {
		if !reflect.DeepEqual(r, v.nodes[i]) {
			return fmt.Sprintf("read view: node %s published as %+v, the mirror has %+v", r.name, *v.nodes[i], *r)
		}
	}
	if v.cfg != m.cfg || !sameMap(v.eta, m.planner.eta) || !sameMap(v.etaEarly, m.planner.etaEarly) {
		return "read view: configuration or forecasts not published"
	}
	if !sameMap(v.turns, p.turns) {
		return "read view: the last pass's queue order not published"
	}
	return ""
}

func sameMap[K comparable, V any](a, b map[K]V) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// reads returns what a reader without mu sees: the published view, with
// the submissions not yet admitted into the mirror (submit.go), so that
// a client finds the job it was just answered about.
func (p *readPublisher) reads() *readView {
	v, extra := p.m.subs.captured(&p.read)
	if len(extra) == 0 {
		return v
	}
	jobs, e := v.jobs, new(treeEdit)
	for _, r := range extra {
		jobs = jobs.set(e, r.rec.ID, r)
	}
	return &readView{cfg: v.cfg, jobs: jobs, nodes: v.nodes, eta: v.eta, etaEarly: v.etaEarly, turns: v.turns}
}

// job finds a live job by id.
func (v *readView) job(id int64) *jobRead { return v.jobs.get(id) }

// node finds a node by name.
func (v *readView) node(name string) *nodeRead {
	i, ok := slices.BinarySearchFunc(v.nodes, name, func(r *nodeRead, name string) int { return cmp.Compare(r.name, name) })
	if !ok {
		return nil
	}
	return v.nodes[i]
}

// nodeNames lists the nodes by name.
func (v *readView) nodeNames() []string {
	out := make([]string, len(v.nodes))
	for i, n := range v.nodes {
		out[i] = n.name
	}
	return out
}

// positions numbers each pool's jobs with waiting tasks from 1, by job
// id; computed once per view. The jobs the last pass saw pending come
// first, in the order their pool's policy offered them (turns: the
// core's own order, quota rounds and fair-share turns included); the
// jobs it did not see (submitted or requeued since, or left out of the
// snapshot with a reason of the master's) come after, by the pool's key
// (queueOrder).
func (v *readView) positions() map[int64]int {
	v.rankOnce.Do(func() {
		v.ranks = map[int64]int{}
		ranked := map[string]int{}
		for _, p := range v.cfg.Pools {
			for _, id := range v.turns[p.Name] {
				if j := v.jobs.get(id); j != nil && j.waiting() && j.rec.Pool == p.Name && !j.rec.Held() {
					ranked[p.Name]++
					v.ranks[id] = ranked[p.Name]
				}
			}
		}
		unseen := map[string][]*jobRead{}
		for j := range v.jobs.all() {
			if j.waiting() && v.ranks[j.rec.ID] == 0 && !j.rec.Held() {
				unseen[j.rec.Pool] = append(unseen[j.rec.Pool], j)
			}
		}
		for _, p := range v.cfg.Pools {
			jobs := unseen[p.Name]
			order := queueOrder(p.Policy)
			slices.SortFunc(jobs, func(a, b *jobRead) int { return order(a.facts(), b.facts()) })
			for i, j := range jobs {
				v.ranks[j.rec.ID] = ranked[p.Name] + i + 1
			}
		}
	})
	return v.ranks
}

// byTurn orders two jobs of a pool by their positions, a job with none
// (0) after one with a position; 0 when neither has one.
func byTurn(a, b int) int {
	switch {
	case a > 0 && b > 0:
		return cmp.Compare(a, b)
	case a > 0:
		return -1
	case b > 0:
		return 1
	}
	return 0
}

// waiting reports whether the job has tasks waiting to start.
func (j *jobRead) waiting() bool { return !j.rec.State.Terminal() && j.queued > 0 }

func (j *jobRead) facts() queueFacts {
	f := queueFacts{priority: j.rec.Priority, submitted: j.rec.SubmittedAt, id: j.rec.ID,
		held: j.used, demand: j.rec.Slots * (j.active + j.queued), weight: j.rec.Weight}
	if j.pending != nil {
		f.mf = j.pending.p.Priority
	}
	return f
}

// loads sums the live jobs' use by key (pool or project).
func (v *readView) loads(key func(*jobRead) string) map[string]*load {
	out := map[string]*load{}
	for j := range v.jobs.all() {
		l := out[key(j)]
		if l == nil {
			l = &load{}
			out[key(j)] = l
		}
		switch {
		case j.rec.State == store.JobQueued:
			l.queuedJobs++
		case j.waiting():
			l.waitingTasks += j.queued
		}
		l.runningTasks += j.holding
		l.used += j.used
	}
	return out
}
