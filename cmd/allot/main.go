// Command allot is the Allot scheduler's single binary.
package main

import (
	"os"

	"github.com/allot-sched/allot/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
