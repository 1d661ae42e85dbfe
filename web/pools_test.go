package web

import (
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestPoolsCountMovedNodes: a node a configuration reload moved between
// pools while jobs ran there. The pool it went to counts the other
// pool's GPUs there as used, and the pool it left says where its jobs
// hold GPUs, on the pools page and on the overview's cards, as allot
// pools does; without it the bar read as free GPUs no job could get.
func TestPoolsCountMovedNodes(t *testing.T) {
	f := newFixture()
	// a100's jobs hold 3 GPUs on t4-1, which a reload moved into t4.
	f.pools[0].Elsewhere = []api.PoolNode{{Node: "t4-1", Pool: "t4"}}
	f.pools[1].Guests = []api.PoolGuest{{Node: "t4-1", Pool: "a100", GPUs: 3}}
	cases := []struct {
		name, page, sel string
		want            []string
	}{
		{"pools page, the pool moved into", "#/pools", `#pools tr[data-pool="t4"]`,
			[]string{"3 / 4", "a100's jobs hold 3 GPUs on t4-1, counted as used", "configuration reload"}},
		{"pools page, the pool moved out of", "#/pools", `#pools tr[data-pool="a100"]`,
			[]string{"12 / 16", "its jobs hold GPUs on t4-1 (now in t4)"}},
		{"overview card", "#/", `#ov-pools [data-pool="t4"]`,
			[]string{"3 / 4 slots used", "a100's jobs hold 3 GPUs on t4-1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := openPage(t, f, c.page, wide)
			for _, w := range c.want {
				p.waitText(c.sel, w)
			}
		})
	}
}
