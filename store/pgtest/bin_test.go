package pgtest

import (
	"strings"
	"testing"
)

func TestMissingBinariesFailWithInstructions(t *testing.T) {
	t.Setenv(EnvBin, t.TempDir())
	_, err := launch(Options{})
	if err == nil {
		t.Fatal("launch succeeded without server binaries")
	}
	for _, want := range []string{"not found", "apt-get install -y postgresql-15", EnvDSN} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}
