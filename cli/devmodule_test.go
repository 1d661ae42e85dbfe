package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplesNote: allot dev warns that the go build examples fail when it
// runs in this repository with a data directory outside it, and only
// then.
func TestExamplesNote(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "allot")
	other := filepath.Join(root, "other")
	for dir, mod := range map[string]string{repo: allotModule, other: "example.com/other"} {
		if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("// comment\nmodule "+mod+"\n\ngo 1.26\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, cwd, data string
		note            bool
	}{
		{"the default data directory", repo, ".allot-dev", false},
		{"a data directory inside, from a subdirectory", filepath.Join(repo, "sub"), "../.allot-dev-9090", false},
		{"an absolute one inside", repo, filepath.Join(repo, "x"), false},
		{"one outside", repo, filepath.Join(root, "dev"), true},
		{"one outside, relative", repo, "../dev", true},
		{"a sibling whose name starts as the repository's", repo, filepath.Join(root, "allot-dev"), true},
		{"started in another module", other, filepath.Join(root, "dev"), false},
		{"started outside any module", root, filepath.Join(root, "dev"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := examplesNote(tt.cwd, tt.data)
			if (got != "") != tt.note {
				t.Fatalf("examplesNote(%s, %s) = %q, want a note: %v", tt.cwd, tt.data, got, tt.note)
			}
			if tt.note && (!strings.Contains(got, repo) || !strings.Contains(got, "experiment.yaml")) {
				t.Errorf("note %q does not name the repository and the examples", got)
			}
		})
	}
}
