// Command allot is the Allot scheduler's single binary.
package main

import (
	"fmt"
	"os"

	"github.com/allot-sched/allot/cli"
)

func main() {
	if err := cli.New().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "allot:", err)
		os.Exit(1)
	}
}
