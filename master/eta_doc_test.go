package master

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestETADocMatchesInterval: docs/cli.md tells users that a job submitted
// since the last forecast has no START yet, and how often the forecast
// runs; the interval it gives must be etaEvery's.
func TestETADocMatchesInterval(t *testing.T) {
	b, err := os.ReadFile("../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ")
	want := fmt.Sprintf("master runs every %d seconds", int(etaEvery.Seconds()))
	if !strings.Contains(doc, want) {
		t.Errorf("docs/cli.md does not say %q (etaEvery is %v)", want, etaEvery)
	}
}
