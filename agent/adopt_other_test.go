//go:build !linux

package agent

// runAsChild: adoption (adopt_test.go) needs Linux's /proc, so elsewhere
// the test binary is never started as a child agent.
func runAsChild() (int, bool) { return 0, false }
