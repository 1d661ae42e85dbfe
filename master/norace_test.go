//go:build !race

package master

// raceEnabled: see race_test.go.
const raceEnabled = false
