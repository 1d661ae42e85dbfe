package master

import (
	"slices"
	"testing"

	"github.com/allot-sched/allot/store"
)

// TestRestartRecordsRelabels: a master started on a changed
// configuration records each change of a node's labels in effect
// against those the node history last had, a registration's
// (store.Node.InEffect) as a relabel's (recordMoves), so it relabels a
// node that nothing relabeled before, and does not a node whose agent
// dropped the label its rule gives alike. With the agent's labels only,
// the first recorded nothing, and the second a change from the agent's
// labels under the rule the last relabel implied, which lacked it.
func TestRestartRecordsRelabels(t *testing.T) {
	file := func(n1, n2 string) string {
		f := "pools:\n  - {name: default, policy: fifo}\nnodes:\n  - {name: n2, labels: {switch: " + n2 + "}}\n"
		if n1 != "" {
			f += "  - {name: n1, labels: {switch: " + n1 + "}}\n"
		}
		return f
	}
	h := newHarness(t, withConfig(mustConfig(t, file("", "s1"))))
	h.agent("n1", 1)
	n2 := h.agent("n2", 1)
	n2.Labels = map[string]string{"switch": "s1"} // the rule's alike
	if _, err := n2.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, file string
		drop       bool // n2's agent registers with no labels first
		relabels   []string
	}{
		{"n1 under s2, never relabeled before", file("s2", "s1"), false, []string{"n1 default", "n1 default map[switch:s2]"}},
		{"the same again: no relabel", file("s2", "s1"), false, nil},
		{"n2 under s3", file("s2", "s3"), false, []string{"n2 default map[switch:s1]", "n2 default map[switch:s3]"}},
		{"n2 under s1 again", file("s2", "s1"), false, []string{"n2 default map[switch:s3]", "n2 default map[switch:s1]"}},
		{"n2's agent drops the rule's switch: no relabel", file("s2", "s1"), true, nil},
	}
	var seq int64
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.drop {
				n2.Labels, n2.Master = nil, h.srv.URL
				if _, err := n2.Register(h.ctx); err != nil {
					t.Fatal(err)
				}
			}
			h.opt.Config = mustConfig(t, tc.file)
			h.start()
			evs, err := h.st.NodeEvents(h.ctx, store.NodeEventFilter{AfterSeq: seq})
			if err != nil {
				t.Fatal(err)
			}
			var relabels []string
			for _, e := range evs {
				seq = e.Seq
				if e.To == store.NodeRelabeled {
					relabels = append(relabels, moveLine(e))
				}
			}
			if !slices.Equal(relabels, tc.relabels) {
				t.Errorf("relabels in the history %q, want %q", relabels, tc.relabels)
			}
		})
	}
}
