// Package version names the build of allot that runs, so that a bug
// report, the master's /healthz, its X-Allot-Version response header,
// the dashboard's footer and an agent's registration can say what ran.
//
// A release sets the version at link time:
//
//	go build -ldflags "-X github.com/allot-sched/allot/version.Version=v1.2.0" ./cmd/allot
//
// Without it, the version is read from the build information that the Go
// toolchain embeds: the module version of a `go install` of a tagged
// release, else "devel" with the VCS revision (and "-dirty" when the work
// tree had changes), else plain "devel" (go run, tests).
package version
