package sched

import "math/bits"

// domain is the set of a group's nodes under one switch.
type domain struct {
	name    string
	members bitset // positions in the group
	size    int32  // how many nodes
}

// buildSwitches splits the group into one domain per switch its nodes
// name (nodes, the snapshot's), in order of first appearance; nodes
// without a switch form a domain of their own. A group without any
// switch gets none and is one domain as a whole.
func (g *group) buildSwitches(nodes []Node) {
	g.switches = g.switches[:0]
	labelled := false
	for _, n := range g.nodes {
		if nodes[n].Switch != "" {
			labelled = true
			break
		}
	}
	if !labelled {
		return
	}
	for pos, n := range g.nodes {
		name := nodes[n].Switch
		d := -1
		for i := range g.switches {
			if g.switches[i].name == name {
				d = i
				break
			}
		}
		if d < 0 {
			d = len(g.switches)
			if len(g.switches) < cap(g.switches) {
				g.switches = g.switches[:d+1]
			} else {
				g.switches = append(g.switches, domain{})
			}
			g.switches[d].name, g.switches[d].size = name, 0
			g.switches[d].members.reset(len(g.nodes))
		}
		g.switches[d].members.set(int32(pos))
		g.switches[d].size++
	}
}

// countIn counts the members of b that are in m and not in mask.
func countIn(b, m, mask *bitset) int32 {
	n := 0
	for w := range b.words {
		x := b.words[w] & m.words[w]
		if mask != nil {
			x &^= mask.words[w]
		}
		n += bits.OnesCount64(x)
	}
	return int32(n)
}

// nextIn returns the lowest member >= from of b that is in m and not in
// mask, or -1.
func nextIn(b, m, mask *bitset, from int32) int32 {
	for w := int(from >> 6); w < len(b.words); w++ {
		x := b.words[w] & m.words[w]
		if mask != nil {
			x &^= mask.words[w]
		}
		if w == int(from>>6) {
			x &^= 1<<uint(from&63) - 1
		}
		if x != 0 {
			return int32(w<<6 + bits.TrailingZeros64(x))
		}
	}
	return -1
}

// gangUnderSwitch places a gang on whole nodes of one switch, plus a
// remainder on a partly used node of that switch (best fit) or one more
// whole node there. Of the switches that can hold it, it takes the one
// with the fewest whole free nodes, so that larger gangs keep the roomier
// switches; ties go to the first switch. It returns nil when no switch can.
func (g *group) gangUnderSwitch(r *request, out []NodeSlots) []NodeSlots {
	var mask *bitset
	if !r.useDrain {
		mask = &g.draining
	}
	n, rem := r.slots/g.size, r.slots%g.size
	full := &g.buckets[g.size]
	best, bestWhole, bestPart := -1, int32(0), int32(-1)
	for d := range g.switches {
		sw := &g.switches[d]
		whole := countIn(full, &sw.members, mask)
		if whole < n {
			continue
		}
		part := int32(-1)
		if rem > 0 {
			part = g.partIn(sw, rem, mask)
			if part < 0 && whole < n+1 {
				continue
			}
		}
		if best < 0 || whole < bestWhole {
			best, bestWhole, bestPart = d, whole, part
		}
	}
	if best < 0 {
		return nil
	}
	sw := &g.switches[best]
	pos := nextIn(full, &sw.members, mask, 0)
	for i := int32(0); i < n; i++ {
		out = append(out, NodeSlots{Node: g.nodes[pos], Slots: g.size})
		pos = nextIn(full, &sw.members, mask, pos+1)
	}
	switch {
	case rem == 0:
	case bestPart >= 0:
		out = append(out, NodeSlots{Node: g.nodes[bestPart], Slots: rem})
	default:
		out = append(out, NodeSlots{Node: g.nodes[pos], Slots: rem})
	}
	return out
}

// partIn finds the best-fit partly used node of switch sw for rem slots.
func (g *group) partIn(sw *domain, rem int32, mask *bitset) int32 {
	for f := rem; f < g.size; f++ {
		if g.counts[f] == 0 {
			continue
		}
		if p := nextIn(&g.buckets[f], &sw.members, mask, 0); p >= 0 {
			return p
		}
	}
	return -1
}

// spansNodes reports whether the request is larger than every node it
// may use, so that it must be a gang.
func (st *state) spansNodes(r *request) bool {
	for _, gi := range st.poolGroups[r.pool] {
		g := &st.groups[gi]
		if st.matches(g, r) && g.size >= r.slots {
			return false
		}
	}
	return true
}

// fitsOneSwitch reports whether some switch (or switchless group) could
// hold the gang when empty.
func (st *state) fitsOneSwitch(r *request) bool {
	for _, gi := range st.poolGroups[r.pool] {
		g := &st.groups[gi]
		if !st.matches(g, r) || g.size == 0 {
			continue
		}
		if len(g.switches) == 0 {
			if int(g.size)*len(g.nodes) >= int(r.slots) {
				return true
			}
			continue
		}
		for d := range g.switches {
			if g.size*g.switches[d].size >= r.slots {
				return true
			}
		}
	}
	return false
}
