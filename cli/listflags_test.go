package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/allot-sched/allot/api"
)

// TestListShortFlags: the commands that share a long filter flag take
// one shorthand for it, Slurm's (trial 2026-11-29i I6: history refused
// -p, priorities -u and -A, usage -S, job kill -p, which its help cited).
func TestListShortFlags(t *testing.T) {
	shorts := map[string]string{"pool": "p", "project": "A", "user": "u", "state": "t", "since": "S", "until": "E"}
	for _, path := range [][]string{
		{"jobs"}, {"job", "list"}, {"history"}, {"history", "check"}, {"usage"}, {"fairness"},
		{"priorities"}, {"job", "kill"}, {"audit"},
	} {
		cmd, _, err := New().Find(path)
		if err != nil {
			t.Fatal(err)
		}
		for long, short := range shorts {
			f := cmd.Flags().Lookup(long)
			if f == nil {
				continue
			}
			t.Run(strings.Join(path, " ")+" --"+long, func(t *testing.T) {
				if err := cmd.ParseFlags([]string{"-" + short, "x"}); err != nil {
					t.Fatalf("-%s: %v", short, err)
				}
				if f.Shorthand != short || f.Value.String() != "x" {
					t.Errorf("-%s set --%s to %q (shorthand %q), want x", short, long, f.Value.String(), f.Shorthand)
				}
			})
		}
	}
	// Each listing has the filters the trial named.
	for path, want := range map[string][]string{
		"history": {"pool", "project", "user", "state", "since", "until"}, "usage": {"project", "user", "since", "until"},
		"fairness": {"since", "until"}, "priorities": {"pool", "project", "user"}, "job kill": {"pool", "project", "user", "state"},
		"jobs": {"pool", "project", "user", "state", "since"},
	} {
		cmd, _, _ := New().Find(strings.Fields(path))
		for _, long := range want {
			if cmd.Flags().Lookup(long) == nil {
				t.Errorf("allot %s has no --%s", path, long)
			}
		}
	}
}

// slurmShort is a Slurm command's short flag cited in a help text:
// "(scancel -p)", "sacct -S".
var slurmShort = regexp.MustCompile(`\b(squeue|sacct|scancel|sprio|sreport|sshare|sbatch|sinfo|scontrol) (-[A-Za-z])\b`)

// TestHelpCitesAcceptedShorts: a flag's help that cites a Slurm short
// flag (the habit it serves) is on a command that takes that short flag
// (trial 2026-11-29i I6: job kill's --pool cited scancel -p, and refused
// it).
func TestHelpCitesAcceptedShorts(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			for _, m := range slurmShort.FindAllStringSubmatch(f.Usage, -1) {
				if c.Flags().ShorthandLookup(m[2][1:]) == nil {
					t.Errorf("%s --%s: help cites %q, but %s has no %s", c.CommandPath(), f.Name, m[0], c.CommandPath(), m[2])
				}
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(New())
}

// TestNoHeaders: every listing prints its table, and -o csv, without the
// header line under --no-headers (kubectl) or --noheader (squeue), for
// scripts; --columns still applies (trial 2026-11-29i I23).
func TestNoHeaders(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	tests := []struct {
		name  string
		args  []string
		first string // the first line
		lines int    // how many lines
	}{
		{"jobs", []string{"jobs", "--no-headers"}, "-  3  llm-pretrain  running  research  vision  8  2/2   -             -", 3},
		{"jobs columns", []string{"jobs", "--noheader", "-u", "ana", "-t", "PD", "--columns", "id"}, "6", 1},
		{"job list", []string{"job", "list", "--no-headers", "--columns", "id,state"}, "3  running", 3},
		{"nodes", []string{"nodes", "--no-headers", "--columns", "name"}, "dgx-1", 2},
		{"pools", []string{"pools", "--no-headers", "--columns", "name"}, "research", 4},
		{"projects", []string{"projects", "--no-headers", "--columns", "name"}, "ml", 3},
		{"history", []string{"history", "--no-headers"}, "4  done  ann  vision  research  completed  2024-05-01 08:00:00  30m  1h  2.00  0", 2},
		{"history csv", []string{"history", "-o", "csv", "--no-headers"}, "4,done,ann,vision,research,completed,2024-05-01T08:00:00Z,1800,3600,2,0,1,2,1,2024-05-01T09:30:00Z,completed", 2},
		// The second table, sshare's, loses its header too.
		{"usage", []string{"usage", "--no-headers"}, "-      vision  -  10.00  3  4", 6},
		{"usage csv", []string{"usage", "-o", "csv", "--noheader"}, ",vision,,10,3,4,0.8,2024-04-24T10:00:00Z,2024-05-01T10:00:00Z", 2},
		{"fairness", []string{"fairness", "--no-headers"}, "ml      -   100.0%  50.0%  1344.00  10  4  1.5h  2.2h  -", 2},
		{"priorities", []string{"priorities", "--no-headers"}, "5  bo   nlp     research  83.33  5     78.33  0  5  0  0", 2},
		{"audit", []string{"audit", "--no-headers"}, "7", 1},
		{"json is left as it is", []string{"jobs", "--no-headers", "-o", "json", "-u", "nobody"}, "[]", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := runAt(t, f, tt.args...)
			if err != nil {
				t.Fatalf("error %v; stderr %s", err, errOut)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			first := lines[0]
			if tt.name == "audit" {
				first, _, _ = strings.Cut(first, " ")
			}
			if first != tt.first || len(lines) != tt.lines {
				t.Errorf("first line %q of %d, want %q of %d; stdout:\n%s", first, len(lines), tt.first, tt.lines, out)
			}
		})
	}
}

// TestJobIDCompletionFits: a command's job IDs are completed from the
// jobs it may act on (trial 2026-11-29i I21: kill, release and experiment
// show were offered ended jobs and command jobs first): kill the live
// ones, hold the queued ones not held, release the held, requeue the
// running, experiment show the experiments; job show any.
func TestJobIDCompletionFits(t *testing.T) {
	f := newFakeMaster(t)
	f.jobs = append(f.jobs, api.Job{ID: 8, Name: "parked", Kind: "command", State: "queued", Project: "nlp", Pool: "batch",
		Slots: 1, Tasks: 1, Held: &api.Held{By: "bo"}})
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"kill: live jobs", []string{"job", "kill", ""}, []string{"3\tllm-pretrain (running)", "5\tasha (queued)", "6\tnotebook (queued)", "8\tparked (held)"}},
		{"kill: another ID", []string{"job", "kill", "5", ""}, []string{"3\tllm-pretrain (running)", "6\tnotebook (queued)", "8\tparked (held)"}},
		{"hold: queued, not held", []string{"job", "hold", ""}, []string{"5\tasha (queued)", "6\tnotebook (queued)"}},
		{"release: held", []string{"job", "release", ""}, []string{"8\tparked (held)"}},
		{"requeue: running", []string{"job", "requeue", ""}, []string{"3\tllm-pretrain (running)"}},
		{"update: live jobs", []string{"job", "update", ""}, []string{"3\tllm-pretrain (running)", "5\tasha (queued)", "6\tnotebook (queued)", "8\tparked (held)"}},
		{"update: one ID", []string{"job", "update", "3", ""}, nil},
		{"experiment show: experiments", []string{"experiment", "show", ""}, []string{"5\tasha (queued)", "3\tllm-pretrain (running)"}},
		{"experiment: experiments", []string{"experiment", ""}, []string{"5\tasha (queued)", "3\tllm-pretrain (running)"}},
		{"show: any job", []string{"job", "show", ""}, []string{"8\tparked (held)", "6\tnotebook (queued)", "5\tasha (queued)", "3\tllm-pretrain (running)", "2\told-eval (completed)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := run(t, append([]string{"__complete", "--master", f.srv.URL}, tt.args...)...)
			if err != nil {
				t.Fatalf("error %v; stderr %s", err, errOut)
			}
			var got []string // the IDs: allot experiment offers show too
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if id, _, _ := strings.Cut(l, "\t"); id != "" && strings.Trim(id, "0123456789") == "" {
					got = append(got, l)
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("candidates %q, want %q", got, tt.want)
			}
		})
	}
}
