// Package storetest is the conformance suite that every store backend must
// pass. A backend's test calls Run with a function that names a fresh,
// empty database:
//
//	storetest.Run(t, func(t *testing.T) storetest.Target {
//		return storetest.Target{DataDir: t.TempDir()} // SQLite
//	})
//
// The suite opens the target with store.Open, often several times (to
// check that a reopened store keeps everything), and closes what it opens;
// it closes a store before reopening its target, as PostgreSQL refuses a
// second store on a database in use (the master lock).
package storetest
