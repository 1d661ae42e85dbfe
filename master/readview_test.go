package master

import "sync/atomic"

// readMismatch is the first difference between a published read view and
// the mirror that any test met; TestMain fails the run on one.
var readMismatch atomic.Pointer[string]

// Every test of the package checks each release of mu against a read view
// built from the whole mirror (readview.go).
func init() {
	verifyReads = func(difference string) {
		readMismatch.CompareAndSwap(nil, &difference)
		panic(difference)
	}
}
