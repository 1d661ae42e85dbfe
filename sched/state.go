package sched

import "fmt"

// group holds a pool's nodes that share a GPU type and a size. Within a
// group, buckets[f] is the set of nodes with exactly f available slots, so
// best fit is the first non-empty bucket at or above the need.
type group struct {
	pool  int
	gpu   string
	size  int32
	nodes []int32 // snapshot node indices, ascending
	// buckets[f] holds positions (into nodes) with avail == f.
	buckets []bitset
	counts  []int32
	// draining holds positions with slots that are draining from a
	// preempted task and not yet claimed by a hold.
	draining bitset
	// dfree[f] holds the positions in draining whose node has exactly
	// f > 0 free slots (dcounts[f] of them, drainFree in all), so that
	// freeOnDraining finds the best of them by free count as single does
	// with buckets, instead of walking draining: after a large preemption
	// is carried out thousands of nodes drain, and every placement walked
	// them all.
	dfree     []bitset
	dcounts   []int32
	drainFree int32
	avail     int
	// switches splits the nodes by switch, when any node names one.
	switches []domain
}

// state is the planning view of the cluster during a pass. avail counts
// free slots plus draining slots nobody has claimed; free counts only
// slots usable right now.
type state struct {
	groups     []group
	nodeGroup  []int32
	nodePos    []int32
	free       []int32
	drain      []int32
	zeroUsed   []int32
	poolGroups [][]int32
	keys       map[groupKey]int32
	// largest is, per pool, the biggest task the pool could hold when
	// empty: all its slots, since a gang may mix node sizes.
	largest []int32
	// gangNext is mixedGang's scratch: per group, the next whole free node.
	gangNext []int32
	// track, while set, lists in dirty every node whose available slots
	// move (once, marked in dirtyMark), for victimIndex.
	track     bool
	dirty     []int32
	dirtyMark []bool

	// layout is each node's group key as of the last successful build,
	// and pools the pool count then; nil after a failed build. When the
	// next snapshot has the same layout, refresh updates only the nodes
	// whose allocations changed instead of indexing every node again.
	layout              []groupKey
	switches            []string
	pools               int
	slots               []int32
	prevFree, prevDrain []int32
	// builds counts full builds: what depends only on the node layout
	// (jobMemo's fit answers) holds while it stays the same.
	builds uint64
	// changes counts every change of the state's slots (move, index,
	// copyFrom, update), so that findMemo can tell the state is the same.
	changes uint64
	// grew counts the changes that can give a node more free or available
	// slots (release, addDrain, index, copyFrom, update): while it stays,
	// slots are only taken, and a one-node placement that failed still
	// fails (findMemo).
	grew uint64
	// version is the Snapshot.NodesVersion of the last build.
	version uint64
}

type groupKey struct {
	pool int
	gpu  string
	size int32
}

func (st *state) avail(n int32) int32 { return st.free[n] + st.drain[n] }

// update makes st the indexed state of snapshot s. Between passes of a
// simulation or a live master the nodes rarely change while allocations
// do, so it re-indexes only the nodes whose free or draining count moved;
// the result is identical to a full build.
func (st *state) update(s *Snapshot) error {
	st.changes++
	st.grew++
	if !st.sameLayout(s) {
		return st.build(s)
	}
	st.prevFree, st.free = st.free, st.prevFree
	st.prevDrain, st.drain = st.drain, st.prevDrain
	st.free = append(st.free[:0], st.slots...)
	st.drain = resize(st.drain, len(s.Nodes))
	st.zeroUsed = resize(st.zeroUsed, len(s.Nodes))
	if err := st.subtractAllocs(s); err != nil {
		st.layout = nil
		return err
	}
	for i := range st.free {
		f, d := st.free[i], st.drain[i]
		pf, pd := st.prevFree[i], st.prevDrain[i]
		if f == pf && d == pd {
			continue
		}
		g := &st.groups[st.nodeGroup[i]]
		pos := st.nodePos[i]
		if g.draining.has(pos) && pf > 0 {
			g.dfreeMove(pos, pf, -1)
		}
		if d > 0 {
			g.draining.set(pos)
			if f > 0 {
				g.dfreeMove(pos, f, 1)
			}
		} else {
			g.draining.unset(pos)
		}
		if f+d != pf+pd {
			st.move(g, pos, pf+pd, f+d)
		}
	}
	return nil
}

// sameLayout reports whether s has the nodes, in the same order, pools and
// slot types as the last successful build.
func (st *state) sameLayout(s *Snapshot) bool {
	if st.layout == nil || len(st.layout) != len(s.Nodes) || st.pools != len(s.Pools) {
		return false
	}
	if s.NodesVersion != 0 && s.NodesVersion == st.version {
		return true
	}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		k := &st.layout[i]
		if k.pool != n.Pool || k.size != int32(n.Slots) || k.gpu != n.GPU || st.switches[i] != n.Switch {
			return false
		}
	}
	return true
}

// build indexes the snapshot's nodes and subtracts its allocations.
func (st *state) build(s *Snapshot) error {
	st.builds++
	st.layout = nil
	nn := len(s.Nodes)
	st.nodeGroup = resize(st.nodeGroup, nn)
	st.nodePos = resize(st.nodePos, nn)
	st.free = resize(st.free, nn)
	st.drain = resize(st.drain, nn)
	st.zeroUsed = resize(st.zeroUsed, nn)
	if st.keys == nil {
		st.keys = make(map[groupKey]int32)
	}
	clear(st.keys)
	st.groups = st.groups[:0]
	for i := range st.poolGroups {
		st.poolGroups[i] = st.poolGroups[i][:0]
	}
	for len(st.poolGroups) < len(s.Pools) {
		st.poolGroups = append(st.poolGroups, nil)
	}
	st.poolGroups = st.poolGroups[:len(s.Pools)]
	var prev groupKey
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if n.Pool < 0 || n.Pool >= len(s.Pools) {
			return fmt.Errorf("node %q: pool index %d out of range", n.Name, n.Pool)
		}
		if n.Slots < 0 {
			return fmt.Errorf("node %q: negative slots %d", n.Name, n.Slots)
		}
		k := groupKey{n.Pool, n.GPU, int32(n.Slots)}
		// Neighbouring nodes are usually alike: skip the map lookup then.
		g, ok := int32(-1), false
		if i > 0 && prev == k {
			g, ok = st.nodeGroup[i-1], true
		} else {
			g, ok = st.keys[k]
		}
		prev = k
		if !ok {
			g = int32(len(st.groups))
			st.keys[k] = g
			if len(st.groups) < cap(st.groups) {
				st.groups = st.groups[:len(st.groups)+1] // reuse an old group's memory
			} else {
				st.groups = append(st.groups, group{})
			}
			gr := &st.groups[g]
			gr.pool, gr.gpu, gr.size = n.Pool, n.GPU, int32(n.Slots)
			gr.nodes = gr.nodes[:0]
			gr.avail = 0
			st.poolGroups[n.Pool] = append(st.poolGroups[n.Pool], g)
		}
		gr := &st.groups[g]
		st.nodeGroup[i] = g
		st.nodePos[i] = int32(len(gr.nodes))
		gr.nodes = append(gr.nodes, int32(i))
		st.free[i] = int32(n.Slots)
	}
	if err := st.subtractAllocs(s); err != nil {
		return err
	}
	st.largest = resize(st.largest, len(s.Pools))
	for g := range st.groups {
		gr := &st.groups[g]
		st.index(gr)
		st.largest[gr.pool] += gr.size * int32(len(gr.nodes))
	}
	for g := range st.groups {
		st.groups[g].buildSwitches(s.Nodes)
	}
	st.remember(s)
	return nil
}

// remember records the layout that update compares the next snapshot with.
func (st *state) remember(s *Snapshot) {
	st.layout = resize(st.layout, len(s.Nodes))
	st.slots = resize(st.slots, len(s.Nodes))
	st.switches = resize(st.switches, len(s.Nodes))
	for i := range s.Nodes {
		n := &s.Nodes[i]
		st.layout[i] = groupKey{n.Pool, n.GPU, int32(n.Slots)}
		st.switches[i] = n.Switch
		st.slots[i] = int32(n.Slots)
	}
	st.pools = len(s.Pools)
	st.version = s.NodesVersion
}

func (st *state) subtractAllocs(s *Snapshot) error {
	for ai := range s.Allocs {
		a := &s.Allocs[ai]
		if a.Job < 0 || a.Job >= len(s.Jobs) {
			return fmt.Errorf("allocation %d: job index %d out of range", ai, a.Job)
		}
		if len(a.Nodes) == 0 {
			return fmt.Errorf("allocation %d of job %q: no nodes", ai, s.Jobs[a.Job].ID)
		}
		for k, ns := range a.Nodes {
			if ns.Node < 0 || int(ns.Node) >= len(s.Nodes) {
				return fmt.Errorf("allocation %d of job %q: node index %d out of range", ai, s.Jobs[a.Job].ID, ns.Node)
			}
			// A node named twice would be freed twice by a preemption
			// that counts each part; a driver lists each node once.
			for _, prev := range a.Nodes[:k] {
				if prev.Node == ns.Node {
					return fmt.Errorf("allocation %d of job %q: node %q listed twice",
						ai, s.Jobs[a.Job].ID, s.Nodes[ns.Node].Name)
				}
			}
			if ns.Slots < 0 {
				return fmt.Errorf("allocation %d of job %q: negative slots %d on node %q",
					ai, s.Jobs[a.Job].ID, ns.Slots, s.Nodes[ns.Node].Name)
			}
			if ns.Slots == 0 {
				st.zeroUsed[ns.Node]++
				continue
			}
			st.free[ns.Node] -= ns.Slots
			if a.Preempting && !s.Nodes[ns.Node].Drained {
				// A drained node's preempting slots stay held: the
				// drivers skip the preemption, and slots a task frees
				// there are gone (Node.Drained).
				st.drain[ns.Node] += ns.Slots
			}
			if st.free[ns.Node] < 0 {
				return fmt.Errorf("node %q is over-committed: allocations hold more than its %d slots",
					s.Nodes[ns.Node].Name, s.Nodes[ns.Node].Slots)
			}
		}
	}
	return nil
}

// index rebuilds a group's buckets from the per-node counts.
func (st *state) index(g *group) {
	st.changes++
	st.grew++
	size := int(g.size)
	for len(g.buckets) < size+1 {
		g.buckets = append(g.buckets, bitset{})
	}
	g.buckets = g.buckets[:size+1]
	g.counts = resize(g.counts, size+1)
	for f := range g.buckets {
		g.buckets[f].reset(len(g.nodes))
	}
	g.draining.reset(len(g.nodes))
	for len(g.dfree) < size+1 {
		g.dfree = append(g.dfree, bitset{})
	}
	g.dfree = g.dfree[:size+1]
	for f := range g.dfree {
		g.dfree[f].reset(len(g.nodes))
	}
	g.dcounts = resize(g.dcounts, size+1)
	g.avail, g.drainFree = 0, 0
	for pos, n := range g.nodes {
		a := st.avail(n)
		g.buckets[a].set(int32(pos))
		g.counts[a]++
		g.avail += int(a)
		if st.drain[n] > 0 {
			g.draining.set(int32(pos))
			if st.free[n] > 0 {
				g.dfreeMove(int32(pos), st.free[n], 1)
			}
		}
	}
}

// take consumes k slots of node n: free slots first, then draining ones.
func (st *state) take(n int32, k int32) { st.takeSplit(n, k, min(k, st.free[n])) }

// takeSplit consumes k slots of node n, fromFree of them free and the
// rest draining.
func (st *state) takeSplit(n, k, fromFree int32) {
	g := &st.groups[st.nodeGroup[n]]
	pos := st.nodePos[n]
	old := st.avail(n)
	st.unindexDrain(g, pos, n)
	st.free[n] -= fromFree
	st.drain[n] -= k - fromFree
	if st.drain[n] == 0 {
		g.draining.unset(pos)
	}
	st.indexDrain(g, pos, n)
	st.move(g, pos, old, old-k)
}

// addDrain makes k held slots of node n draining, as when a victim is
// preempted.
func (st *state) addDrain(n int32, k int32) {
	g := &st.groups[st.nodeGroup[n]]
	pos := st.nodePos[n]
	old := st.avail(n)
	st.grew++
	st.unindexDrain(g, pos, n)
	st.drain[n] += k
	g.draining.set(pos)
	st.indexDrain(g, pos, n)
	st.move(g, pos, old, old+k)
}

// removeDrain undoes addDrain.
func (st *state) removeDrain(n int32, k int32) {
	g := &st.groups[st.nodeGroup[n]]
	pos := st.nodePos[n]
	old := st.avail(n)
	st.unindexDrain(g, pos, n)
	st.drain[n] -= k
	if st.drain[n] == 0 {
		g.draining.unset(pos)
	}
	st.indexDrain(g, pos, n)
	st.move(g, pos, old, old-k)
}

// release gives k slots of node n back as free, as when a running task is
// expected to end (used on shadow copies for reservations).
func (st *state) release(n int32, k int32) {
	g := &st.groups[st.nodeGroup[n]]
	pos := st.nodePos[n]
	old := st.avail(n)
	st.grew++
	st.unindexDrain(g, pos, n)
	st.free[n] += k
	st.indexDrain(g, pos, n)
	st.move(g, pos, old, old+k)
}

// unindexDrain takes node n out of its group's dfree before its free or
// draining slots change; indexDrain puts it back after.
func (st *state) unindexDrain(g *group, pos, n int32) {
	if f := st.free[n]; f > 0 && g.draining.has(pos) {
		g.dfreeMove(pos, f, -1)
	}
}

func (st *state) indexDrain(g *group, pos, n int32) {
	if f := st.free[n]; f > 0 && g.draining.has(pos) {
		g.dfreeMove(pos, f, 1)
	}
}

// dfreeMove adds (d = 1) or removes (d = -1) position pos, with f free
// slots, in dfree.
func (g *group) dfreeMove(pos, f, d int32) {
	if d > 0 {
		g.dfree[f].set(pos)
	} else {
		g.dfree[f].unset(pos)
	}
	g.dcounts[f] += d
	g.drainFree += d
}

func (st *state) move(g *group, pos, from, to int32) {
	st.changes++
	if st.track {
		st.noteDirty(g.nodes[pos])
	}
	g.buckets[from].unset(pos)
	g.counts[from]--
	g.buckets[to].set(pos)
	g.counts[to]++
	g.avail += int(to - from)
}

// copyFrom makes st a copy of o that a pass may change without touching o,
// reusing st's memory. What build fixes (the grouping, node positions,
// the largest task per pool) is read-only afterwards and is shared.
func (st *state) copyFrom(o *state) {
	st.changes++
	st.grew++
	st.nodeGroup, st.nodePos = o.nodeGroup, o.nodePos
	st.poolGroups, st.largest = o.poolGroups, o.largest
	st.free = append(st.free[:0], o.free...)
	st.drain = append(st.drain[:0], o.drain...)
	st.zeroUsed = append(st.zeroUsed[:0], o.zeroUsed...)
	for len(st.groups) < len(o.groups) {
		st.groups = append(st.groups, group{})
	}
	st.groups = st.groups[:len(o.groups)]
	for i := range o.groups {
		d, s := &st.groups[i], &o.groups[i]
		d.pool, d.gpu, d.size, d.avail, d.drainFree = s.pool, s.gpu, s.size, s.avail, s.drainFree
		d.dfree = copyBitsets(d.dfree, s.dfree)
		d.dcounts = append(d.dcounts[:0], s.dcounts...)
		d.nodes, d.switches = s.nodes, s.switches
		d.buckets = copyBitsets(d.buckets, s.buckets)
		d.counts = append(d.counts[:0], s.counts...)
		d.draining.copyFrom(&s.draining)
	}
}

// copyBitsets makes dst a copy of src, reusing dst's bitsets' memory.
func copyBitsets(dst, src []bitset) []bitset {
	for len(dst) < len(src) {
		dst = append(dst, bitset{})
	}
	dst = dst[:len(src)]
	for f := range src {
		dst[f].copyFrom(&src[f])
	}
	return dst
}

// noteDirty lists node n as changed, once.
func (st *state) noteDirty(n int32) {
	if !st.dirtyMark[n] {
		st.dirtyMark[n] = true
		st.dirty = append(st.dirty, n)
	}
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}
