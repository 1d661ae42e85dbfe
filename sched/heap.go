package sched

// heapOrder is a binary min-heap laid out in a slice that its owner keeps:
// less compares and swap exchanges the entries at two positions. The
// heaps of the core are written this way rather than on container/heap so
// that pushing and popping do not box every index.
type heapOrder interface {
	less(i, k int) bool
	swap(i, k int)
}

// siftDown restores heap order below position i of a heap of n entries.
func siftDown[H heapOrder](h H, i, n int) {
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h.less(l, m) {
			m = l
		}
		if r < n && h.less(r, m) {
			m = r
		}
		if m == i {
			return
		}
		h.swap(i, m)
		i = m
	}
}

// siftUp moves the entry at i up while it precedes its parent, and
// returns where it stopped.
func siftUp[H heapOrder](h H, i int) int {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			break
		}
		h.swap(i, parent)
		i = parent
	}
	return i
}

// heapify orders n entries into a heap.
func heapify[H heapOrder](h H, n int) {
	for i := n/2 - 1; i >= 0; i-- {
		siftDown(h, i, n)
	}
}
