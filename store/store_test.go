package store_test

import (
	"os"
	"testing"

	"github.com/allot-sched/allot/store/pgtest"
	"github.com/allot-sched/allot/store/storetest"
)

func TestMain(m *testing.M) {
	if os.Getenv(envCrashDSN) != "" || os.Getenv(envCrashDir) != "" {
		runCrashWriter() // the child of the crash tests; never returns
	}
	os.Exit(pgtest.Main(m))
}

func TestSQLite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Target {
		return storetest.Target{DataDir: t.TempDir()}
	})
}

func TestPostgres(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Target {
		return storetest.Target{DSN: pgtest.DSN(t), DataDir: t.TempDir()}
	})
}
