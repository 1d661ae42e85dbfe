package cli

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The positional arguments of every command are described once, by its
// Use line ("show ID", "set-weight ID WEIGHT", "sim [FILE | --from-history]"):
// when a command gets too few or too many, argsError names what is missing
// or extra from it, rather than cobra's "accepts 1 arg(s), received 0".
// The command's Args validator still decides the count; a test keeps the
// two in step for every command.

// argSpec is what a Use line says of the positional arguments: the
// required ones in order, then the optional ones (in [brackets]; flags
// among a bracket's alternatives are not arguments). variadic says the
// last may repeat ("kill ID [ID...]").
type argSpec struct {
	required, optional []string
	variadic           bool
}

// parseUse reads the arguments of a Use line.
func parseUse(use string) argSpec {
	var s argSpec
	_, rest, _ := strings.Cut(use, " ")
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		if strings.HasPrefix(rest, "[") {
			group, after, _ := strings.Cut(rest[1:], "]")
			for _, alt := range strings.Split(group, "|") {
				if alt = strings.TrimSpace(alt); alt != "" && !strings.HasPrefix(alt, "-") {
					alt, s.variadic = strings.CutSuffix(alt, "...")
					s.optional = append(s.optional, alt)
					break
				}
			}
			rest = after
			continue
		}
		word, after, _ := strings.Cut(rest, " ")
		if !strings.HasPrefix(word, "-") {
			s.required = append(s.required, word)
		}
		rest = after
	}
	return s
}

// usageLine is how a command is called: its path and its Use line's
// arguments ("allot job show ID").
func usageLine(c *cobra.Command) string {
	_, args, _ := strings.Cut(c.Use, " ")
	return strings.TrimSpace(c.CommandPath() + " " + args)
}

// argName names an argument placeholder in words. An ID or NAME is one of
// the objects of the command's group ("allot token revoke ID": a token
// ID), and of a job for the top-level commands (allot explain ID).
func argName(c *cobra.Command, placeholder string) string {
	group := "job"
	if p := c.Parent(); p != nil && p.HasParent() {
		group = p.Name()
	}
	switch placeholder {
	case "ID":
		return group + " ID"
	case "NAME":
		return group + " name"
	}
	return strings.ToLower(placeholder)
}

// argNoun is argName with its article ("a job ID").
func argNoun(c *cobra.Command, placeholder string) string {
	noun := argName(c, placeholder)
	if strings.ContainsRune("aeio", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// argChecks check the numeric placeholders of Use lines by the parsers
// the commands read them with; negativeArg runs one on a negative number,
// which pflag stops before the command sees it, so that it is refused in
// the same words as any other wrong value ("priority: expected 1 to 99
// ..., got -5"). A command with a new numeric placeholder adds it here.
var argChecks = map[string]func(c *cobra.Command, s string) error{
	"ID": func(c *cobra.Command, s string) error {
		_, err := parseID(argName(c, "ID"), s)
		return err
	},
	"PRIORITY": func(_ *cobra.Command, s string) error {
		_, _, err := parsePriority(s)
		return err
	},
	"WEIGHT": func(_ *cobra.Command, s string) error {
		_, err := parseWeight(s)
		return err
	},
}

// argsError says what is wrong with the count of args, which c's Args
// validator refused.
func argsError(c *cobra.Command, args []string) error {
	// A command with commands of its own whose first word is no valid
	// argument but close to one of its commands ("allot job kil 15"):
	// the command was meant.
	if len(args) > 0 && c.HasAvailableSubCommands() {
		if _, err := strconv.ParseInt(args[0], 10, 64); err != nil {
			if len(namedFor(c, args[0])) > 0 || len(c.SuggestionsFor(args[0])) > 0 {
				return unknownCommand(c, args[0])
			}
		}
	}
	spec := parseUse(c.Use)
	nouns := func(placeholders []string) string {
		words := make([]string, len(placeholders))
		for i, p := range placeholders {
			words[i] = argNoun(c, p)
		}
		return strings.Join(words, " and ")
	}
	usage := usageLine(c)
	if n := len(spec.required); len(args) < n {
		return &usageError{cmd: c.CommandPath(), err: fmt.Errorf("expected %s (%s)", nouns(spec.required[len(args):]), usage)}
	}
	most := len(spec.required) + len(spec.optional)
	if len(args) <= most {
		// The validator and the Use line disagree (the test of argSpec
		// catches that); say what cobra would.
		return &usageError{cmd: c.CommandPath(), err: fmt.Errorf("unexpected arguments (%s)", usage)}
	}
	extra := make([]string, len(args)-most)
	for i, a := range args[most:] {
		extra[i] = strconv.Quote(a)
	}
	what := "unexpected argument " + extra[0]
	if len(extra) > 1 {
		what = "unexpected arguments " + strings.Join(extra, ", ")
	}
	var want string
	switch {
	case most == 0:
		want = "it takes no arguments"
	case len(spec.optional) == 0:
		want = "expected only " + nouns(spec.required)
	case len(spec.required) == 0:
		want = "expected at most " + nouns(spec.optional)
	default:
		want = "expected " + nouns(spec.required) + " and at most " + nouns(spec.optional)
	}
	return &usageError{cmd: c.CommandPath(), err: fmt.Errorf("%s: %s (%s)%s", what, want, usage, assignHint(c, args[most:]))}
}

// assignHint is, for an unexpected argument KEY=VALUE given to a command
// with one flag that takes KEY=VALUE values (allot user create alice
// vision=member, for --role PROJECT=ROLE), the command line meant:
// "; did you mean --role vision=member?".
func assignHint(c *cobra.Command, extra []string) string {
	var flag string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Value.Type() == "bool" {
			return
		}
		if word, _, _ := strings.Cut(f.Usage, " "); assignPlaceholder.MatchString(word) {
			if flag != "" {
				flag = "-" // more than one: no guess
				return
			}
			flag = f.Name
		}
	})
	if flag == "" || flag == "-" {
		return ""
	}
	var meant []string
	for _, a := range extra {
		if k, _, ok := strings.Cut(a, "="); !ok || k == "" || strings.HasPrefix(a, "-") {
			return ""
		}
		meant = append(meant, "--"+flag+" "+a)
	}
	return "; did you mean " + strings.Join(meant, " ") + "?"
}

// assignPlaceholder is a flag usage's leading KEY=VALUE placeholder.
var assignPlaceholder = regexp.MustCompile(`^[A-Z][A-Z_]*=[A-Z][A-Z_]*,?$`)
