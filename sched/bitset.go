package sched

import "math/bits"

// bitset is a set of small integers (node positions inside a group) that
// finds its lowest member quickly. lo is a hint: every word before it is
// zero, so repeated searches over a filling cluster stay cheap.
type bitset struct {
	words []uint64
	lo    int
}

func (b *bitset) reset(n int) {
	w := (n + 63) / 64
	if cap(b.words) < w {
		b.words = make([]uint64, w)
	} else {
		b.words = b.words[:w]
		clear(b.words)
	}
	b.lo = w
}

func (b *bitset) set(i int32) {
	w := int(i >> 6)
	b.words[w] |= 1 << uint(i&63)
	if w < b.lo {
		b.lo = w
	}
}

func (b *bitset) unset(i int32) {
	b.words[i>>6] &^= 1 << uint(i&63)
}

func (b *bitset) has(i int32) bool {
	return b.words[i>>6]&(1<<uint(i&63)) != 0
}

// first returns the lowest member not in mask (mask may be nil), or -1.
func (b *bitset) first(mask *bitset) int32 {
	for b.lo < len(b.words) && b.words[b.lo] == 0 {
		b.lo++
	}
	for w := b.lo; w < len(b.words); w++ {
		x := b.words[w]
		if mask != nil {
			x &^= mask.words[w]
		}
		if x != 0 {
			return int32(w<<6 + bits.TrailingZeros64(x))
		}
	}
	return -1
}

// next returns the lowest member >= from that is not in mask, or -1.
func (b *bitset) next(from int32, mask *bitset) int32 {
	w := int(from >> 6)
	if w >= len(b.words) {
		return -1
	}
	x := b.words[w] &^ (1<<uint(from&63) - 1)
	for {
		if mask != nil {
			x &^= mask.words[w]
		}
		if x != 0 {
			return int32(w<<6 + bits.TrailingZeros64(x))
		}
		w++
		if w >= len(b.words) {
			return -1
		}
		x = b.words[w]
	}
}

func (b *bitset) copyFrom(o *bitset) {
	if cap(b.words) < len(o.words) {
		b.words = make([]uint64, len(o.words))
	}
	b.words = b.words[:len(o.words)]
	copy(b.words, o.words)
	b.lo = o.lo
}
