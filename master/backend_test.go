package master

import (
	"fmt"
	"os"
	"testing"

	"github.com/allot-sched/allot/store/pgtest"
)

func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	// A difference found in a handler's goroutine, whose panic net/http
	// recovers, fails the run here.
	if msg := readMismatch.Load(); msg != nil {
		fmt.Fprintln(os.Stderr, "FAIL: the read view missed a change:", *msg)
		code = 1
	}
	os.Exit(code)
}

// onBackends runs a scenario on the master over SQLite and over
// PostgreSQL: the master must behave the same on both stores.
func onBackends(t *testing.T, scenario func(t *testing.T, h *harness)) {
	t.Run("sqlite", func(t *testing.T) { scenario(t, newHarness(t)) })
	t.Run("postgres", func(t *testing.T) { scenario(t, newHarnessOn(t, pgtest.DSN(t), t.TempDir())) })
}
