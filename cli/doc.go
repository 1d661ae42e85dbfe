// Package cli is the allot command line: one cobra command tree whose
// subcommands are the simulator, `config check`, and the client commands
// (submit, jobs, job, nodes, pools, projects, config reload), the node
// agent (`allot agent`, package agentd), with the master as it arrives. Commands write results to their
// configured output stream and errors to the caller; nothing here
// schedules or simulates itself.
//
// The client commands talk to the master named by the persistent
// --master flag, else $ALLOT_MASTER, else DefaultMaster, through package
// client. They check every argument before sending anything, print tables
// by default and the API's objects with -o json or -o yaml (the same
// field names in both), and bound each request with a timeout; following
// a log is bounded per request only, since it lasts as long as the job.
//
// A wrong command line is a usage error (exit.go): an unknown command or
// flag, a flag value the CLI rejects, or wrong positional arguments, which
// every command describes once, in its Use line ("show ID"), so that one
// validator (args.go) can name what is missing or extra. Main exits 2 for
// them, with a pointer to --help; refusals by the master exit 1.
//
// `allot master recover-admin` is the one command besides the master that
// writes to the master's store itself, for when no admin token is left.
// It takes the same locks a master takes (data directory, SQLite file,
// PostgreSQL master lock and its fencing epoch) and so refuses while a
// master runs, rather than write beside it outside the fence.
package cli
