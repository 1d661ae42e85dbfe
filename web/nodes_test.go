package web

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestNodeRuleView: the nodes view says what the master's node rule
// decided of each node, as allot nodes -o wide does: the rule (named by
// the node) with the pool it pins and the labels it sets, the agent's own
// value of a label it overrode, and "none" for a node no rule changes;
// among the labels the scheduler matches, the rule's are marked.
func TestNodeRuleView(t *testing.T) {
	p := openPage(t, newFixture(), "#/nodes", wide)
	row := `#nodes tr[data-node="gpu-a2"]`
	cases := []struct {
		name, sel string
		want      []string
	}{
		{"the rule of a ruled node", row + " td.rule", []string{"gpu-a2", "pins pool a100 (agent: t4)", "sets switch=leaf-9 (agent: leaf-3), tier=a"}},
		{"a pool its agent asked for that is not configured", `#nodes tr[data-node="t4-1"] td:nth-of-type(1)`, []string{"t4 (agent asked for v100)"}},
		{"its pool", row + " td:nth-of-type(1)", []string{"a100 (by rule)"}},
		{"its labels", row + " td:nth-of-type(6)", []string{"rack=r1", "switch=leaf-9", "tier=a", "zone=eu-1"}},
		{"a node without a rule", `#nodes tr[data-node="gpu-a1"] td.rule`, []string{"none"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := p.sub(t)
			got := p.waitText(c.sel, c.want[0])
			for _, w := range c.want[1:] {
				if !strings.Contains(got, w) {
					t.Errorf("%s = %q, want %q", c.sel, got, w)
				}
			}
		})
	}
	t.Run("the rule's labels are marked", func(t *testing.T) {
		p := p.sub(t)
		marked := evalJS[[]string](p, fmt.Sprintf(`[...document.querySelectorAll('%s li.by-rule')].map((li) => li.textContent + ': ' + li.title)`, row))
		want := []string{"switch=leaf-9: Set by the node rule, over the agent's switch=leaf-3", "tier=a: Set by the node rule"}
		if strings.Join(marked, "\n") != strings.Join(want, "\n") {
			t.Errorf("marked labels %q, want %q", marked, want)
		}
		if n := evalJS[int](p, `document.querySelectorAll('#nodes tr[data-node="gpu-a1"] li.by-rule').length`); n != 0 {
			t.Errorf("%d labels of gpu-a1, which has no rule, marked", n)
		}
	})
}

// TestNodeLossView: a lost node's state says since when, and until when
// the master holds its tasks through the loss; an up node says neither.
func TestNodeLossView(t *testing.T) {
	f := newFixture()
	f.mu.Lock()
	// From the clock now, not the fixture's: the page counts from the
	// browser's clock, and the package's tests run for a minute. Half a
	// minute over keeps "in 10m" for a page up to 30 s slow.
	lost, until := time.Now().UTC().Add(-10*time.Minute), time.Now().UTC().Add(10*time.Minute+30*time.Second)
	f.nodes[0].State, f.nodes[0].LostAt, f.nodes[0].HeldUntil = "lost", &lost, &until
	f.mu.Unlock()
	p := openPage(t, f, "#/nodes", wide)
	name := f.nodes[0].Name
	got := p.waitText(fmt.Sprintf(`#nodes tr[data-node=%q] td:nth-of-type(2)`, name), "since")
	for _, want := range []string{"lost", "since 10m", "tasks held until in 10m"} {
		if !strings.Contains(got, want) {
			t.Errorf("state of lost %s = %q, want %q", name, got, want)
		}
	}
	if n := evalJS[int](p, `document.querySelectorAll('#nodes td .loss').length`); n != 1 {
		t.Errorf("%d loss notes, want 1 (only the lost node)", n)
	}
}
