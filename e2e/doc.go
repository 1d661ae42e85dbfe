// Package e2e holds Allot's end-to-end tests. They build the real `allot`
// binary (and examples/train) once, then run real processes: a master on
// SQLite or PostgreSQL (store/pgtest), agents with fake GPUs whose tasks
// are real process groups, the CLI with ALLOT_MASTER set, `allot dev`,
// and the dashboard in headless Chromium. Nothing is mocked.
//
// # Invariants of the harness
//
//   - Every process a test starts, and every task its agents start, carries
//     the environment variable E2E_CLUSTER with a value unique to the
//     test's cluster; cleanup stops the daemons gracefully (checking that
//     they exit 0), then SIGKILLs every process group it started and every
//     process still carrying the marker, so no test leaves anything
//     running, even after kill -9 of an agent.
//   - Waits poll the real API under a context deadline and fail with what
//     they last saw; no test sleeps to assert. Deadlines are generous,
//     because the binaries run with the race detector on a loaded machine.
//   - With -race the binaries are built with -race too, and any data race
//     a daemon reports fails the test.
//
// The package has no non-test code besides this comment.
package e2e
