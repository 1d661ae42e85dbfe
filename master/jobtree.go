package master

import "iter"

// jobTree is the read view's map of live jobs by id, persistent: a trie
// of 64-way nodes over the bits of the id, in which a change copies only
// the path to the job (a few nodes), so that a publish costs what changed
// and every earlier view stays as it was. Job ids grow, so the trie grows
// a level on top when an id passes what it covers, and a subtree whose
// jobs all left is dropped.
type jobTree struct {
	root  *jobNode
	shift uint // the lowest bit of the id that the root's slots index
	size  int
}

const (
	treeBits  = 6
	treeWidth = 1 << treeBits
	treeMask  = treeWidth - 1
)

// jobNode holds kids in the inner levels, jobs at the bottom one. A node
// belongs to the edit that made it; only that edit changes it in place.
type jobNode struct {
	kids []*jobNode
	jobs []*jobRead
	n    int // slots in use
	edit *treeEdit
}

// treeEdit is one batch of changes to a jobTree: the nodes it copied are
// its own until the tree is published.
type treeEdit struct{ _ byte }

// covers reports whether the trie's levels reach id.
func (t *jobTree) covers(id int64) bool {
	return t.root != nil && (t.shift+treeBits >= 63 || id>>(t.shift+treeBits) == 0)
}

// get returns the job with id, or nil.
func (t *jobTree) get(id int64) *jobRead {
	if id < 0 || !t.covers(id) {
		return nil
	}
	n := t.root
	for s := t.shift; s > 0; s -= treeBits {
		if n = n.kids[(id>>s)&treeMask]; n == nil {
			return nil
		}
	}
	return n.jobs[id&treeMask]
}

// set returns the tree with id mapped to r, or removed when r is nil.
// Nodes of e are changed in place; others are copied.
func (t jobTree) set(e *treeEdit, id int64, r *jobRead) jobTree {
	if r == nil && t.get(id) == nil {
		return t
	}
	if t.root == nil {
		t.shift = 0
		for t.shift+treeBits < 63 && id>>(t.shift+treeBits) != 0 {
			t.shift += treeBits
		}
	}
	for t.root != nil && !t.covers(id) {
		top := &jobNode{kids: make([]*jobNode, treeWidth), n: 1, edit: e}
		top.kids[0] = t.root
		t.root, t.shift = top, t.shift+treeBits
	}
	var added int
	t.root, added = setIn(t.root, t.shift, e, id, r)
	t.size += added
	if t.root == nil {
		t.shift = 0
	}
	return t
}

// setIn sets id in the subtree n whose slots index the bits from shift,
// returning the new subtree (nil when empty) and the change in size.
func setIn(n *jobNode, shift uint, e *treeEdit, id int64, r *jobRead) (*jobNode, int) {
	i := (id >> shift) & treeMask
	if n == nil {
		if r == nil {
			return nil, 0
		}
		n = &jobNode{edit: e}
		if shift == 0 {
			n.jobs = make([]*jobRead, treeWidth)
		} else {
			n.kids = make([]*jobNode, treeWidth)
		}
	} else if n.edit != e {
		c := &jobNode{n: n.n, edit: e}
		if shift == 0 {
			c.jobs = append(make([]*jobRead, 0, treeWidth), n.jobs...)
		} else {
			c.kids = append(make([]*jobNode, 0, treeWidth), n.kids...)
		}
		n = c
	}
	added := 0
	if shift == 0 {
		switch {
		case n.jobs[i] == nil && r != nil:
			n.n++
			added = 1
		case n.jobs[i] != nil && r == nil:
			n.n--
			added = -1
		}
		n.jobs[i] = r
	} else {
		was := n.kids[i] != nil
		n.kids[i], added = setIn(n.kids[i], shift-treeBits, e, id, r)
		switch is := n.kids[i] != nil; {
		case is && !was:
			n.n++
		case was && !is:
			n.n--
		}
	}
	if n.n == 0 {
		return nil, added
	}
	return n, added
}

// all yields the jobs in id order.
func (t *jobTree) all() iter.Seq[*jobRead] {
	return func(yield func(*jobRead) bool) {
		walk(t.root, t.shift, 0, false, 0, yield)
	}
}

// below yields the jobs with ids below limit (every job when limit is 0),
// highest first.
func (t *jobTree) below(limit int64) iter.Seq[*jobRead] {
	return func(yield func(*jobRead) bool) {
		walk(t.root, t.shift, 0, true, limit, yield)
	}
}

// walk yields the jobs under n, whose ids start with base, in id order
// or reversed, skipping ids from limit up (none when 0); false when yield
// stopped it.
func walk(n *jobNode, shift uint, base int64, desc bool, limit int64, yield func(*jobRead) bool) bool {
	if n == nil {
		return true
	}
	for k := range treeWidth {
		i := k
		if desc {
			i = treeMask - k
		}
		lo := base | int64(i)<<shift
		if limit > 0 && lo >= limit {
			continue
		}
		if shift == 0 {
			if r := n.jobs[i]; r != nil && !yield(r) {
				return false
			}
		} else if !walk(n.kids[i], shift-treeBits, lo, desc, limit, yield) {
			return false
		}
	}
	return true
}
