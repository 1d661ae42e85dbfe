//go:build race

package e2e

// raceBuild says the tests run with -race, so the binaries are built
// with it too.
const raceBuild = true
