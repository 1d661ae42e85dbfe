package cli

import (
	"errors"
	"slices"

	"github.com/spf13/pflag"
)

// jsonStdout is the value of a bare --json: the comparison goes to stdout.
const jsonStdout = "-"

// jsonOutput is allot sim compare's --json. Bare (or --json=-) it prints
// the comparison as JSON on stdout instead of the table, as allot sim
// --json prints its result; --json=FILE writes FILE beside the table.
// --json once always took a file, so a bare --json followed by an
// argument that is not the workload still takes that argument as its
// file (legacyFile): `sim compare trace.swf --json out.json` and
// `sim compare --from-history --json out.json` write out.json as before.
type jsonOutput struct {
	path  string         // "", jsonStdout or a file
	at    int            // the positional arguments before a bare --json
	flags *pflag.FlagSet // to count them as --json is parsed
}

func (o *jsonOutput) String() string { return o.path }

// Type names the value in --help: --json FILE[=-].
func (o *jsonOutput) Type() string { return "FILE" }

func (o *jsonOutput) Set(s string) error {
	if s == "" {
		return errors.New("expected a file name (--json=FILE), or no value for JSON on stdout")
	}
	o.path, o.at = s, -1
	if s == jsonStdout {
		o.at = len(o.flags.Args())
	}
	return nil
}

// register adds --json to fs.
func (o *jsonOutput) register(fs *pflag.FlagSet) {
	o.flags = fs
	fs.Var(o, "json", "print the comparison as JSON on stdout instead of the table; --json=FILE writes it to FILE")
	fs.Lookup("json").NoOptDefVal = jsonStdout
}

// legacyFile is the file a bare --json takes in the old spelling, --json
// FILE, and args without it: a bare --json followed by one argument more
// than the command takes (its workload, none with --from-history). That
// surplus was an error before --json could be bare, so nothing that ran
// changes meaning.
func (o *jsonOutput) legacyFile(args []string, fromHistory bool) (string, []string) {
	takes := 1
	if fromHistory {
		takes = 0
	}
	if o.path != jsonStdout || o.at < 0 || o.at >= len(args) || len(args) != takes+1 {
		return "", args
	}
	return args[o.at], slices.Delete(slices.Clone(args), o.at, o.at+1)
}
