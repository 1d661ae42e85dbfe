package api

import "testing"

func TestCompactNodes(t *testing.T) {
	cases := []struct {
		name  string
		nodes []string
		want  string
	}{
		{"none", nil, ""},
		{"one", []string{"n2"}, "n2"},
		{"a run", []string{"n1", "n2", "n3"}, "n[1-3]"},
		{"runs and a gap", []string{"n1", "n2", "n3", "n5"}, "n[1-3,5]"},
		{"name order is not number order", []string{"n1", "n10", "n2", "n9"}, "n[1-2,9-10]"},
		{"no number", []string{"dgx-a", "dgx-b"}, "dgx-a,dgx-b"},
		{"mixed prefixes", []string{"a1", "a2", "b7", "dev"}, "a[1-2],b7,dev"},
		{"zero padding kept", []string{"gpu01", "gpu02", "gpu03"}, "gpu[01-03]"},
		{"padded and not padded apart", []string{"gpu01", "gpu2"}, "gpu01,gpu2"},
		{"repeated", []string{"n1", "n1", "n2"}, "n[1-2]"},
		{"a huge number stays as it is", []string{"n12345678901"}, "n12345678901"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := CompactNodes(c.nodes); got != c.want {
				t.Errorf("CompactNodes(%q) = %q, want %q", c.nodes, got, c.want)
			}
		})
	}
}
