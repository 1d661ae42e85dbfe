// Command allot is the Allot scheduler's single binary.
//
// It runs the command line (package cli) on its arguments, except when
// the first is agent.ShimArg: then it is a task's shim (agent.RunShim),
// which the agent starts as the leader of a task's process group, and it
// does nothing else.
package main
