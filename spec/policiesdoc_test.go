package spec

import (
	"os"
	"strings"
	"testing"
)

// TestPoliciesDocListsEvery: the opening of docs/policies.md, where a new
// user reads which policies a pool may pick, names every policy the
// parser accepts (it once left multifactor out).
func TestPoliciesDocListsEvery(t *testing.T) {
	b, err := os.ReadFile("../docs/policies.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(b), "\n\n")
	first, _, _ := strings.Cut(rest, "\n\n")
	for _, p := range Policies {
		if !strings.Contains(first, "`"+string(p)+"`") {
			t.Errorf("the first paragraph of docs/policies.md does not name policy %s:\n%s", p, first)
		}
	}
}
