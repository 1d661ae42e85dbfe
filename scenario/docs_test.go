package scenario

import (
	"os"
	"strings"
	"testing"
)

// TestDocsExample parses the example at the top of docs/scenario.md, which
// shows every field: the documentation must not drift from the format.
func TestDocsExample(t *testing.T) {
	data, err := os.ReadFile("../docs/scenario.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "```yaml\n")
	block, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("docs/scenario.md has no yaml block")
	}
	s, err := Parse("docs/scenario.md", []byte(block))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Accounts) != 3 || s.Jobs[2].MinSlots != 2 || s.Pools[3].Multifactor == (Multifactor{}) {
		t.Errorf("the example lost its accounts, elastic job or multifactor pool: %+v", s)
	}
}
