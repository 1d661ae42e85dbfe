package cli

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes of allot (docs/cli.md).
const (
	ExitOK    = 0 // the command did what it was asked
	ExitError = 1 // it failed: the master refused, a file is wrong, ...
	ExitUsage = 2 // the command line is wrong: unknown command or flag, bad argument
)

// usageError is a wrong command line: Main exits with ExitUsage for it.
// cmd, when set, is the command whose arguments are wrong: the message
// starts with it ("allot job show: expected a job ID ...") instead of
// "allot:".
type usageError struct {
	cmd string
	err error
}

func (e *usageError) Error() string {
	if e.cmd != "" {
		return e.cmd + ": " + e.err.Error()
	}
	return e.err.Error()
}

func (e *usageError) Unwrap() error { return e.err }

// usageErrorf makes a usage error.
func usageErrorf(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// asUsage marks err, when not nil, as a usage error.
func asUsage(err error) error {
	var ue *usageError
	if err == nil || errors.As(err, &ue) {
		return err
	}
	return &usageError{err: err}
}

// Main runs allot with args (without the program name) and returns the
// process's exit code; errors go to stderr as "allot: ...". It is the one
// entry point of cmd/allot, so that every command exits the same way.
func Main(args []string, stdout, stderr io.Writer) int {
	root := New()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := helpForUnknown(root, args)
	if err == nil {
		cmd, err = root.ExecuteC()
	}
	if err == nil {
		return ExitOK
	}
	err = notLoggedIn(cmd, err)
	var ue *usageError
	if errors.As(err, &ue) && ue.cmd != "" && ue.Error() == err.Error() {
		fmt.Fprintln(stderr, err) // it starts with the command: "allot job show: ..."
	} else {
		fmt.Fprintln(stderr, "allot:", err)
	}
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return ExitUsage
	}
	if hint := tokenHint(cmd, err); hint != "" {
		fmt.Fprintln(stderr, hint)
	}
	return ExitError
}

// helpForUnknown refuses --help asked of words that are not a command
// (allot kill --help): cobra would print the help of the command above
// them and exit 0, though the same words without --help are a usage
// error with suggestions (allot kill 3: did you mean allot job kill?).
// It returns the command found and the error its argument check gives
// the words, nil when help was not asked or the words are fine.
func helpForUnknown(root *cobra.Command, args []string) (*cobra.Command, error) {
	if !slices.Contains(args, "--help") && !slices.Contains(args, "-h") {
		return root, nil
	}
	// Find's own error for unknown words under the root is cobra's
	// bare one; the command's argument check below says it with the
	// suggestions.
	c, rest, _ := root.Find(args)
	if c == nil || c.Args == nil || !c.HasSubCommands() {
		// A command's own arguments, even wrong or partial ones (allot
		// job set-priority 3 --help), still get its help.
		return root, nil
	}
	// Parsing only to tell the positional words from the flags' values:
	// help, which runs next, reads no flag.
	c.InitDefaultHelpFlag() // cobra adds --help only as it executes
	if c.ParseFlags(rest) != nil {
		return root, nil
	}
	if words := c.Flags().Args(); len(words) > 0 {
		if err := c.Args(c, words); err != nil {
			return c, err
		}
	}
	return root, nil
}

// negativeFlag is pflag's error for a negative number in the arguments,
// which it reads as a cluster of one-letter flags.
var negativeFlag = regexp.MustCompile(`^unknown shorthand flag: '[0-9]' in (-[0-9][0-9.eE+-]*)$`)

// negativeArg says what is wrong with a negative number on the command
// line, which pflag takes for a cluster of one-letter flags ("unknown
// shorthand flag: '1' in -1"): the placeholder of its position in the
// Use line says what the argument is, and its check (argChecks) says
// what it expects, in the words the command itself would use for any
// other wrong value of it.
func negativeArg(c *cobra.Command, err error) error {
	m := negativeFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	args := c.Flags().Args() // the positional arguments before it
	spec := parseUse(c.Use)
	names := append(spec.required, spec.optional...)
	if len(args) >= len(names) {
		return argsError(c, append(args, m[1]))
	}
	if check := argChecks[names[len(args)]]; check != nil {
		if cerr := check(c, m[1]); cerr != nil {
			return asUsage(cerr)
		}
	}
	return &usageError{cmd: c.CommandPath(), err: fmt.Errorf("%s is not a valid argument: expected %s (%s)", m[1], argNoun(c, names[len(args)]), usageLine(c))}
}

// nestedCommands names the commands one level further down that are
// called name, or name it in their SuggestFor (another tool's name for
// them): "allot logs" is "allot job logs", "allot scancel" is "allot job
// kill", as kubectl and Slurm users may look for them at the top.
func nestedCommands(c *cobra.Command, name string) []string {
	var found []string
	for _, group := range c.Commands() {
		for _, sub := range group.Commands() {
			if sub.IsAvailableCommand() && (sub.Name() == name || sub.HasAlias(name) ||
				slices.ContainsFunc(sub.SuggestFor, func(w string) bool { return strings.EqualFold(w, name) })) {
				found = append(found, sub.CommandPath())
			}
		}
	}
	return found
}

// namedFor lists c's commands that name word in their SuggestFor: such a
// word is another tool's name for the command (Slurm's and kubectl's
// undrain, uncordon), which the spelling guess would get wrong ("undrain"
// is two edits from "drain", its opposite).
func namedFor(c *cobra.Command, word string) []string {
	var found []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && slices.ContainsFunc(sub.SuggestFor, func(w string) bool { return strings.EqualFold(w, word) }) {
			found = append(found, sub.Name())
		}
	}
	return found
}

// unknownCommand is the usage error for word given to c where one of c's
// commands was expected, with the commands it may have meant.
func unknownCommand(c *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q for %q", word, c.CommandPath())
	s := nestedCommands(c, word)
	if len(s) == 0 {
		s = namedFor(c, word)
	}
	if len(s) == 0 {
		s = c.SuggestionsFor(word)
	}
	if len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usageErrorf("%s", msg)
}

// flagError is the usage error for pflag's err on c's command line, with
// a guess at the flag meant, and named after c, as its argument errors
// are ("allot token create: unknown shorthand flag: 'o' in -o"): "allot:"
// alone does not say which command has no such flag.
func flagError(c *cobra.Command, err error) error {
	if arg := negativeArg(c, err); arg != err {
		return asUsage(arg) // an argument's error, which says its own words
	}
	if v := flagValueError(err); v != err {
		return v // "--gpus: expected ..., got ...", as the CLI's own checks say it
	}
	err = asUsage(flagTypo(c, err))
	if ue, ok := err.(*usageError); ok && ue.cmd == "" && c.HasParent() {
		ue.cmd = c.CommandPath()
	}
	return err
}

// markUsageErrors makes cobra's own command-line errors usage errors, in
// cmd and every command under it: wrong flags, wrong argument counts (said
// in words by argsError), and unknown subcommands of a command that only
// groups others (which cobra would answer with its help and exit 0).
func markUsageErrors(cmd *cobra.Command) {
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return flagError(c, err) })
	switch {
	case cmd.HasSubCommands() && !cmd.Runnable():
		cmd.SuggestionsMinimumDistance = 2
		cmd.Args = func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			return unknownCommand(c, args[0])
		}
		cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	case cmd.Args != nil:
		check := cmd.Args
		cmd.Args = func(c *cobra.Command, args []string) error {
			if check(c, args) != nil {
				return argsError(c, args)
			}
			return nil
		}
	}
	for _, c := range cmd.Commands() {
		markUsageErrors(c)
	}
}
