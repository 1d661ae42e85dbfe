package main

import (
	"os"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/cli"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == agent.ShimArg {
		// A task's leader: see agent/shim.go.
		os.Exit(agent.RunShim(os.Args[2:]))
	}
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
