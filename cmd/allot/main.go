// Command allot is the Allot scheduler's single binary.
package main

import (
	"fmt"
	"os"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/cli"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == agent.ShimArg {
		// A task's leader: see agent/shim.go.
		os.Exit(agent.RunShim(os.Args[2:]))
	}
	if err := cli.New().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "allot:", err)
		os.Exit(1)
	}
}
