//go:build race

package sim_test

// raceEnabled: the race detector slows replays some fiftyfold, so under
// it (go test -race, as CI runs) real traces replay only their first
// raceJobs jobs. Without -race they replay in full.
const raceEnabled = true

const raceJobs = 2000
