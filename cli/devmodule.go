package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// allotModule is the module path of this repository's go.mod.
const allotModule = "github.com/allot-sched/allot"

// examplesNote warns, for allot dev started in this repository with its
// data directory outside it, that the example jobs that build
// examples/train with go build (experiment.yaml, asha.yaml) will fail: their
// tasks run in the data directory, where go build finds no go.mod, and each
// trial fails at once with an error about modules (docs/dev.md). "" when
// the data directory is inside the repository, or allot dev was not
// started in it.
func examplesNote(cwd, data string) string {
	repo := allotRoot(cwd)
	if repo == "" {
		return ""
	}
	abs := data
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, data)
	}
	if rel, err := filepath.Rel(repo, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return fmt.Sprintf("note: the data directory is outside the repository (%s): examples/jobs/experiment.yaml and asha.yaml,\n"+
		"which build examples/train with go build there, will fail; give a --data inside the repository to run them.\n", repo)
}

// allotRoot is the directory at or above dir whose go.mod is this
// repository's, or "" when the nearest go.mod is another module's or
// there is none.
func allotRoot(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			if modulePath(data) == allotModule {
				return d
			}
			return ""
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// modulePath reads the module line of a go.mod.
func modulePath(gomod []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}
