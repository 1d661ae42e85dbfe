// Package cli is the allot command line: one cobra command tree whose
// subcommands are the simulator today and the master, the agent and the
// client commands as they arrive. Commands write results to their
// configured output stream and errors to the caller; nothing here
// schedules or simulates itself.
package cli
