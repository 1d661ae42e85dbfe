//go:build race

package master

// raceEnabled: the race detector slows the replay proof's live runs
// some tenfold, so under it (go test -race, the first half of
// scripts/test) TestReplayDecisions and TestReplayRestart run their named
// cases only; scripts/test runs both whole without the race detector
// right after.
const raceEnabled = true
