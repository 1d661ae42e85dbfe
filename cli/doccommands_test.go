package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// docCommand is one `allot ...` command line found in the documentation.
type docCommand struct {
	where  string // file:line
	line   string
	inline bool // from a code span in prose, which may name a command without its arguments
}

// allotAt finds an allot command in a shell line: at its start (after a
// "$ " prompt), or after $(, a pipe or a list operator; as allot,
// ./allot or go run ./cmd/allot. A diagram's indented "allot master" is
// not a command.
var allotAt = regexp.MustCompile(`(?:^(?:\$ )?|\$\(|[;|&]\s*)((?:go run \./cmd/|\./)?allot\s)`)

// inlineCode finds `code spans` in prose.
var inlineCode = regexp.MustCompile("`([^`]+)`")

// shellFences are the fenced blocks that hold command lines; a console
// block's commands are its "$ " lines, the rest is output.
var shellFences = map[string]bool{"": true, "sh": true, "shell": true, "bash": true, "console": true}

// docCommands lists the allot command lines of a Markdown file: in shell
// code blocks (continued lines joined) and in inline code spans.
func docCommands(path string) ([]docCommand, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []docCommand
	fence, lang := false, ""
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		line, where := lines[i], fmt.Sprintf("%s:%d", filepath.Base(path), i+1)
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") {
			fence, lang = !fence, strings.TrimPrefix(t, "```")
			continue
		}
		if !fence {
			for _, m := range inlineCode.FindAllStringSubmatch(line, -1) {
				if strings.HasPrefix(m[1], "allot ") {
					for _, c := range commandsIn(m[1]) {
						out = append(out, docCommand{where, c, true})
					}
				}
			}
			continue
		}
		if !shellFences[lang] || (lang == "console" && !strings.HasPrefix(line, "$ ")) {
			continue
		}
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + strings.TrimSpace(lines[i])
		}
		for _, c := range commandsIn(line) {
			out = append(out, docCommand{where, c, false})
		}
	}
	return out, nil
}

// commandsIn cuts the allot commands out of a shell line: each runs to a
// pipe, a list operator, a closing parenthesis, a redirection or a
// comment.
func commandsIn(s string) []string {
	s = strings.ReplaceAll(s, `\|`, "\x00") // an alternative in a synopsis, a|b
	var out []string
	for _, loc := range allotAt.FindAllStringSubmatchIndex(s, -1) {
		rest := strings.TrimPrefix(s[loc[2]:], "go run ./cmd/")
		if end := strings.IndexAny(rest, "|;)>#&"); end >= 0 {
			rest = rest[:end]
		}
		out = append(out, strings.ReplaceAll(strings.TrimSpace(rest), "\x00", `\|`))
	}
	return out
}

// synopsisArgs splits a command line as a shell would (quotes, no
// expansion) and drops a synopsis's notation: [optional] groups, "..."
// and all but the first of a|b alternatives.
func synopsisArgs(line string) []string {
	var args []string
	var cur strings.Builder
	quote, in := rune(0), false
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				args = append(args, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		args = append(args, cur.String())
	}
	var out []string
	depth := 0
	for _, a := range args {
		opens, closes := strings.Count(a, "["), strings.Count(a, "]")
		if depth > 0 || strings.HasPrefix(a, "[") {
			depth += opens - closes
			continue
		}
		a = strings.TrimSuffix(a, "...")
		if alt, _, ok := strings.Cut(a, `\|`); ok {
			a = alt
		}
		if a != "" {
			out = append(out, a)
		}
	}
	return out
}

// checkCommandLine parses args with the real command tree, as Execute
// would before running anything; withArgs also checks the number of
// arguments.
func checkCommandLine(args []string, withArgs bool) error {
	root := New()
	root.InitDefaultCompletionCmd()
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	cmd.InitDefaultHelpFlag()
	cmd.InitDefaultVersionFlag()
	if err := cmd.ParseFlags(rest); err != nil {
		return err
	}
	if help, _ := cmd.Flags().GetBool("help"); help || !withArgs {
		return nil
	}
	return cmd.ValidateArgs(cmd.Flags().Args())
}

// TestDocCommands parses every allot command line of README.md and
// docs/*.md with the real command tree: a command, flag or argument count
// that the code no longer has fails the test, so the docs cannot drift.
func TestDocCommands(t *testing.T) {
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"../README.md"}, files...)
	total := 0
	for _, f := range files {
		cmds, err := docCommands(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cmds {
			total++
			args := synopsisArgs(c.line)
			if len(args) == 0 {
				continue
			}
			if err := checkCommandLine(args[1:], !c.inline); err != nil {
				t.Errorf("%s: %s: %v", c.where, c.line, err)
			}
		}
	}
	if total < 100 {
		t.Errorf("found only %d allot command lines in the docs; the extraction is broken", total)
	}
}

func TestSynopsisArgs(t *testing.T) {
	tests := []struct {
		name, line string
		want       []string
	}{
		{"plain", "allot jobs --pool research", []string{"allot", "jobs", "--pool", "research"}},
		{"optional groups", "allot user create NAME [--admin] [--role PROJECT=ROLE]...", []string{"allot", "user", "create", "NAME"}},
		{"multi-word group", "allot token create --user NAME [--note N] [--ttl D]", []string{"allot", "token", "create", "--user", "NAME"}},
		{"alternatives", `allot user disable\|enable NAME`, []string{"allot", "user", "disable", "NAME"}},
		{"quotes", `allot job logs "$id" -f`, []string{"allot", "job", "logs", "$id", "-f"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := synopsisArgs(tt.line); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("synopsisArgs(%q) = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

func TestCommandsIn(t *testing.T) {
	tests := []struct {
		name, line string
		want       []string
	}{
		{"prompt and pipe", "$ allot jobs -o json | jq .", []string{"allot jobs -o json"}},
		{"substitution and list", `id=$(allot submit sweep.yaml) && allot job logs "$id" -f`, []string{"allot submit sweep.yaml", `allot job logs "$id" -f`}},
		{"comment", "./allot job logs 1                        # hi", []string{"./allot job logs 1"}},
		{"go run", "go run ./cmd/allot dev --data /tmp/d", []string{"allot dev --data /tmp/d"}},
		{"not a command", "install -m 0755 allot /usr/local/bin/allot", nil},
		{"diagram", "                      allot master :8080 ── PostgreSQL", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := commandsIn(tt.line); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("commandsIn(%q) = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

func TestCheckCommandLine(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		withArgs bool
		ok       bool
	}{
		{"good", "allot jobs --pool research -o wide", true, true},
		{"completion", "allot completion zsh", true, true},
		{"help", "allot sim --help", true, true},
		{"unknown flag", "allot jobs --bogus", true, false},
		{"unknown command", "allot nosuch", true, false},
		{"unknown subcommand", "allot job shwo 1", true, false},
		{"missing argument", "allot job show", true, false},
		{"missing argument in prose", "allot job show", false, true},
		{"unknown flag in prose", "allot sim --bogus", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkCommandLine(synopsisArgs(tt.line)[1:], tt.withArgs)
			if (err == nil) != tt.ok {
				t.Errorf("checkCommandLine(%q) = %v, want ok %v", tt.line, err, tt.ok)
			}
		})
	}
}

// TestHelpExamples parses every allot command line of every command's
// Example text with the real command tree, as TestDocCommands does for the
// docs: an example that names a command, flag or argument count the code
// does not have fails.
func TestHelpExamples(t *testing.T) {
	var walk func(c *cobra.Command)
	total := 0
	walk = func(c *cobra.Command) {
		for _, line := range strings.Split(c.Example, "\n") {
			for _, cmdLine := range commandsIn(strings.TrimSpace(line)) {
				total++
				args := synopsisArgs(cmdLine)
				t.Run(c.CommandPath()+": "+cmdLine, func(t *testing.T) {
					if err := checkCommandLine(args[1:], true); err != nil {
						t.Errorf("the example %q of %q: %v", cmdLine, c.CommandPath(), err)
					}
				})
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(New())
	if total < 50 {
		t.Errorf("found only %d allot command lines in the help examples; the extraction is broken", total)
	}
}
