package master

import (
	"os"
	"testing"

	"github.com/allot-sched/allot/store/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// onBackends runs a scenario on the master over SQLite and over
// PostgreSQL: the master must behave the same on both stores.
func onBackends(t *testing.T, scenario func(t *testing.T, h *harness)) {
	t.Run("sqlite", func(t *testing.T) { scenario(t, newHarness(t)) })
	t.Run("postgres", func(t *testing.T) { scenario(t, newHarnessOn(t, pgtest.DSN(t), t.TempDir())) })
}
