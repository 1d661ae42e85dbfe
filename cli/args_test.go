package cli

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spf13/cobra"
)

// TestArgsMatchUse: every command's Use line says the argument counts its
// Args validator takes, since argsError names the missing and extra ones
// from it.
func TestArgsMatchUse(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.Args == nil || (c.HasSubCommands() && !c.Runnable()) {
			return
		}
		t.Run(c.CommandPath(), func(t *testing.T) {
			spec := parseUse(c.Use)
			req, most := len(spec.required), len(spec.required)+len(spec.optional)
			n := func(k int) []string { return make([]string, k) }
			if err := c.Args(c, n(req)); err != nil {
				t.Errorf("%d arguments (%s): %v", req, c.Use, err)
			}
			if err := c.Args(c, n(most)); err != nil {
				t.Errorf("%d arguments (%s): %v", most, c.Use, err)
			}
			if !spec.variadic && c.Args(c, n(most+1)) == nil {
				t.Errorf("%d arguments accepted; Use %q says at most %d", most+1, c.Use, most)
			}
			if req > 0 && c.Args(c, n(req-1)) == nil {
				t.Errorf("%d arguments accepted; Use %q says at least %d", req-1, c.Use, req)
			}
		})
	}
	walk(New())
}

// TestNumericArgsChecked: every placeholder of a Use line that is not a
// name or a file has a check in argChecks, so that a negative number given
// for it is refused by what it expects (negativeArg), for every command.
func TestNumericArgsChecked(t *testing.T) {
	words := map[string]bool{"NAME": true, "FILE": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		spec := parseUse(c.Use)
		for _, p := range append(spec.required, spec.optional...) {
			t.Run(c.CommandPath()+" "+p, func(t *testing.T) {
				if argChecks[p] == nil && !words[p] {
					t.Errorf("placeholder %s of %q has no check in argChecks", p, c.Use)
				}
			})
		}
	}
	walk(New())
}

func TestParseUse(t *testing.T) {
	tests := []struct {
		use                string
		required, optional []string
		variadic           bool
	}{
		{"jobs", nil, nil, false},
		{"show ID", []string{"ID"}, nil, false},
		{"set-weight ID WEIGHT", []string{"ID", "WEIGHT"}, nil, false},
		{"sim [FILE | --from-history]", nil, []string{"FILE"}, false},
		{"x [--flag]", nil, nil, false},
		{"kill ID [ID...]", []string{"ID"}, []string{"ID"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.use, func(t *testing.T) {
			s := parseUse(tt.use)
			if !slices.Equal(s.required, tt.required) || !slices.Equal(s.optional, tt.optional) || s.variadic != tt.variadic {
				t.Errorf("parseUse(%q) = %+v, want required %q, optional %q", tt.use, s, tt.required, tt.optional)
			}
		})
	}
}

// TestUsageErrors: a wrong command line gets one error naming what is
// wrong, and one pointer to --help, and exits 2: wrong argument counts
// say what is missing or extra by name, a negative number is not printed
// with the command twice, and the values the CLI rejects in flags are
// usage errors like unknown flags.
func TestUsageErrors(t *testing.T) {
	scenario := filepath.Join("..", "examples", "quickstart.yaml")
	tests := []struct {
		name   string
		args   []string
		stderr string // exactly
	}{
		{"missing id", []string{"job", "show"},
			"allot job show: expected a job ID (allot job show ID)\nRun 'allot job show --help' for usage.\n"},
		{"extra id", []string{"job", "show", "1", "2"},
			"allot job show: unexpected argument \"2\": expected only a job ID (allot job show ID)\nRun 'allot job show --help' for usage.\n"},
		{"extra ids", []string{"job", "logs", "1", "2", "3"},
			"allot job logs: unexpected arguments \"2\", \"3\": expected only a job ID (allot job logs ID)\nRun 'allot job logs --help' for usage.\n"},
		{"kill with no id", []string{"job", "kill"},
			"allot job kill: expected a job ID or a filter (allot job kill ID [ID...], or -u USER, -t STATE, -n NAME, -A PROJECT, -p POOL): without either it kills nothing\nRun 'allot job kill --help' for usage.\n"},
		{"missing weight", []string{"job", "set-weight", "1"},
			"allot job set-weight: expected a weight (allot job set-weight ID WEIGHT)\nRun 'allot job set-weight --help' for usage.\n"},
		{"missing both", []string{"job", "set-priority"},
			"allot job set-priority: expected a job ID and a priority (allot job set-priority ID PRIORITY)\nRun 'allot job set-priority --help' for usage.\n"},
		{"missing node name", []string{"node", "drain", "--reason", "x"},
			"allot node drain: expected a node name (allot node drain NAME)\nRun 'allot node drain --help' for usage.\n"},
		{"missing experiment id", []string{"experiment", "show"},
			"allot experiment show: expected an experiment ID (allot experiment show ID)\nRun 'allot experiment show --help' for usage.\n"},
		{"missing token id", []string{"token", "revoke"},
			"allot token revoke: expected a token ID (allot token revoke ID)\nRun 'allot token revoke --help' for usage.\n"},
		{"top-level job id", []string{"explain"},
			"allot explain: expected a job ID (allot explain ID)\nRun 'allot explain --help' for usage.\n"},
		{"none taken", []string{"pools", "x"},
			"allot pools: unexpected argument \"x\": it takes no arguments (allot pools)\nRun 'allot pools --help' for usage.\n"},
		{"optional file", []string{"sim", "a.yaml", "b.yaml"},
			"allot sim: unexpected argument \"b.yaml\": expected at most a file (allot sim [FILE | --from-history])\nRun 'allot sim --help' for usage.\n"},
		{"negative id", []string{"job", "kill", "-3"},
			"allot: job ID: expected a positive integer, got \"-3\"\nRun 'allot job kill --help' for usage.\n"},
		{"negative id as after --", []string{"job", "logs", "-3"},
			"allot: job ID: expected a positive integer, got \"-3\"\nRun 'allot job logs --help' for usage.\n"},
		{"id after --", []string{"job", "logs", "--", "-3"},
			"allot: job ID: expected a positive integer, got \"-3\"\nRun 'allot job logs --help' for usage.\n"},
		{"negative priority as out of range", []string{"job", "set-priority", "2", "-5"},
			"allot: priority: expected 1 to 99 (lower is more important), got -5\nRun 'allot job set-priority --help' for usage.\n"},
		{"priority out of range", []string{"job", "set-priority", "2", "99999"},
			"allot: priority: expected 1 to 99 (lower is more important), got 99999\nRun 'allot job set-priority --help' for usage.\n"},
		{"negative weight", []string{"job", "set-weight", "2", "-1.5"},
			"allot: weight: expected a number > 0, got \"-1.5\"\nRun 'allot job set-weight --help' for usage.\n"},
		{"negative token id", []string{"token", "revoke", "-2"},
			"allot: token ID: expected a positive integer, got \"-2\"\nRun 'allot token revoke --help' for usage.\n"},
		{"token id not a number", []string{"token", "revoke", "x"},
			"allot: token ID: expected a positive integer, got \"x\"\nRun 'allot token revoke --help' for usage.\n"},
		{"negative experiment id", []string{"experiment", "show", "-4"},
			"allot: experiment ID: expected a positive integer, got \"-4\"\nRun 'allot experiment show --help' for usage.\n"},
		{"negative top-level job id", []string{"explain", "-4"},
			"allot: job ID: expected a positive integer, got \"-4\"\nRun 'allot explain --help' for usage.\n"},
		{"negative node name", []string{"node", "drain", "-3", "--reason", "x"},
			"allot node drain: -3 is not a valid argument: expected a node name (allot node drain NAME)\nRun 'allot node drain --help' for usage.\n"},
		{"negative extra argument", []string{"job", "show", "1", "-2"},
			"allot job show: unexpected argument \"-2\": expected only a job ID (allot job show ID)\nRun 'allot job show --help' for usage.\n"},
		{"negative where none is taken", []string{"pools", "-1"},
			"allot pools: unexpected argument \"-1\": it takes no arguments (allot pools)\nRun 'allot pools --help' for usage.\n"},
		{"sim policy", []string{"sim", scenario, "--policy", "fastest"},
			"allot: --policy: expected current (the workload's own policies) or one of fcfs, fifo, easy, conservative, backfill, fair_share, priority, got \"fastest\"\nRun 'allot sim --help' for usage.\n"},
		{"sim set", []string{"sim", scenario, "--set", "policy=backfill,reservations=easyy"},
			"allot: --set: option set \"policy=backfill,reservations=easyy\": reservations: want easy or conservative, got \"easyy\"\nRun 'allot sim --help' for usage.\n"},
		{"sim format", []string{"sim", scenario, "--format", "xml"},
			"allot: --format: expected scenario, swf or csv, got \"xml\"\nRun 'allot sim --help' for usage.\n"},
		{"sim policy and set", []string{"sim", scenario, "--policy", "easy", "--set", "policy=fifo"},
			"allot: give --policy or --set, not both\nRun 'allot sim --help' for usage.\n"},
		{"compare set", []string{"sim", "compare", scenario, "--set", "bogus"},
			"allot: --set: option set \"bogus\": \"bogus\" is not key=value\nRun 'allot sim compare --help' for usage.\n"},
		{"compare policy", []string{"sim", "compare", scenario, "--policy", "fastest"},
			"allot: --policy: expected current (the workload's own policies) or one of fcfs, fifo, easy, conservative, backfill, fair_share, priority, got \"fastest\"\nRun 'allot sim compare --help' for usage.\n"},
		{"login without token", []string{"login"},
			"allot: give the token with exactly one of --token and --token-file\nRun 'allot login --help' for usage.\n"},
		{"token create for a user and join", []string{"token", "create", "--join", "--user", "ann"},
			"allot: --join and --user: a join token belongs to no user; give one\nRun 'allot token create --help' for usage.\n"},
		{"bad role", []string{"user", "create", "ann", "--role", "vision"},
			"allot: --role \"vision\": expected PROJECT=ROLE with ROLE viewer, member or lead (PROJECT * for all)\nRun 'allot user create --help' for usage.\n"},
		{"negative task", []string{"job", "logs", "1", "--task", "-2"},
			"allot: --task: expected a task index >= 0, got -2\nRun 'allot job logs --help' for usage.\n"},
		{"role as an argument", []string{"user", "create", "alice", "vision=member"},
			"allot user create: unexpected argument \"vision=member\": expected only a user name (allot user create NAME); did you mean --role vision=member?\nRun 'allot user create --help' for usage.\n"},
		{"roles as arguments", []string{"user", "role", "alice", "vision=lead", "nlp="},
			"allot user role: unexpected arguments \"vision=lead\", \"nlp=\": expected only a user name (allot user role NAME); did you mean --role vision=lead --role nlp=?\nRun 'allot user role --help' for usage.\n"},
		{"no guess for a word", []string{"user", "create", "alice", "vision"},
			"allot user create: unexpected argument \"vision\": expected only a user name (allot user create NAME)\nRun 'allot user create --help' for usage.\n"},
		{"no roles", []string{"user", "role", "ann"},
			"allot: --role: give at least one PROJECT=ROLE\nRun 'allot user role --help' for usage.\n"},
		{"master without data", []string{"master"},
			"allot: --data: a data directory is required\nRun 'allot master --help' for usage.\n"},
		{"agent label", []string{"agent", "--label", "x", "--fake-gpus", "1"},
			"allot: --label \"x\": expected key=value\nRun 'allot agent --help' for usage.\n"},
		{"agent fake gpus", []string{"agent", "--fake-gpus", "-1"},
			"allot: --fake-gpus: expected a count >= 0, got -1\nRun 'allot agent --help' for usage.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Main(tt.args, &out, &errOut)
			if code != ExitUsage || errOut.String() != tt.stderr {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", code, errOut.String(), ExitUsage, tt.stderr)
			}
		})
	}
}
