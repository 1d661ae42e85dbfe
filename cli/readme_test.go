package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the README's SP2 figures from a fresh replay")

// readmeCompare is the README's command whose output it quotes.
const readmeCompare = "go run ./cmd/allot sim compare ../shared/traces/SDSC-SP2-1998-4.2-cln.swf.gz --html sp2.html"

// TestREADMEFigures keeps the README's SP2 comparison, and the sentence
// that quotes it, equal to what the command prints today. Run
// `go test ./cli -run TestREADMEFigures -update-readme` to regenerate them.
func TestREADMEFigures(t *testing.T) {
	readmePath := filepath.Join("..", "README.md")
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	i := strings.Index(readme, readmeCompare)
	if i < 0 {
		t.Fatalf("README.md no longer shows %q", readmeCompare)
	}
	open := strings.Index(readme[i:], "```\n\n```\n")
	if open < 0 {
		t.Fatal("README.md: no output block after the compare command")
	}
	start := i + open + len("```\n\n```\n")
	end := start + strings.Index(readme[start:], "```\n")
	quoted := readme[start:end]

	out := mustRun(t, "sim", "compare", filepath.Join(sharedTraces, "SDSC-SP2-1998-4.2-cln.swf.gz"), "-q")
	sentence, err := sp2Sentence(out)
	if err != nil {
		t.Fatal(err)
	}
	oldSentence := regexp.MustCompile(`EASY cuts the mean wait from \S+ under FCFS to \S+ and lifts\nutilisation from \S+ to \S+\.`)
	if *updateReadme {
		updated := readme[:start] + out + readme[end:]
		updated = oldSentence.ReplaceAllString(updated, sentence)
		if err := os.WriteFile(readmePath, []byte(updated), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if quoted != out {
		t.Errorf("README.md's SP2 figures are stale; run go test ./cli -run TestREADMEFigures -update-readme.\nREADME:\n%s\nnow:\n%s", quoted, out)
	}
	if !strings.Contains(readme, sentence) {
		t.Errorf("README.md's sentence on the figures is stale; want %q (run with -update-readme)", sentence)
	}
}

// sp2Sentence quotes the comparison's mean waits and utilisations.
func sp2Sentence(out string) (string, error) {
	field := func(name string) ([]string, error) {
		for _, line := range strings.Split(out, "\n") {
			if rest, ok := strings.CutPrefix(line, name); ok {
				if f := strings.Fields(rest); len(f) >= 3 {
					return f, nil
				}
			}
		}
		return nil, fmt.Errorf("no %q row in the comparison:\n%s", name, out)
	}
	wait, err := field("wait mean")
	if err != nil {
		return "", err
	}
	util, err := field("utilisation")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("EASY cuts the mean wait from %s under FCFS to %s and lifts\nutilisation from %s to %s.",
		wait[0], wait[1], util[0], util[1]), nil
}
