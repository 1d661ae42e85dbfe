package cli

import (
	"strings"
	"testing"
)

// TestDynamicCompletion: job IDs, pools, projects, nodes and users are
// completed from the master; an unreachable master completes nothing,
// quietly.
func TestDynamicCompletion(t *testing.T) {
	f := newFakeMaster(t)
	tests := []struct {
		name   string
		master string
		args   []string
		want   []string // the candidate lines, in order
	}{
		{"job IDs", f.srv.URL, []string{"job", "show", ""},
			[]string{"6\tnotebook (queued)", "5\tasha (queued)", "3\tllm-pretrain (running)", "2\told-eval (completed)"}},
		{"job IDs for logs", f.srv.URL, []string{"job", "logs", ""},
			[]string{"6\tnotebook (queued)", "5\tasha (queued)", "3\tllm-pretrain (running)", "2\told-eval (completed)"}},
		{"only the first argument", f.srv.URL, []string{"job", "set-priority", "3", ""}, nil},
		{"pools", f.srv.URL, []string{"jobs", "--pool", ""}, []string{"research", "batch"}},
		{"projects", f.srv.URL, []string{"jobs", "--project", ""}, []string{"ml", "vision", "nlp"}},
		{"nodes", f.srv.URL, []string{"jobs", "--node", ""}, []string{"dgx-1", "dgx-2"}},
		{"users", f.srv.URL, []string{"jobs", "--user", ""}, []string{"ana", "bo"}},
		{"states", f.srv.URL, []string{"jobs", "--state", ""}, []string{"queued", "held", "running", "killing", "completed", "failed", "killed"}},
		{"output formats", f.srv.URL, []string{"nodes", "-o", ""}, []string{"table", "wide", "json", "yaml"}},
		{"unreachable master", "127.0.0.1:1", []string{"job", "show", ""}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := run(t, append([]string{"__complete", "--master", tt.master}, tt.args...)...)
			if err != nil {
				t.Fatalf("error %v; stderr %s", err, errOut)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			directive := lines[len(lines)-1]
			got := lines[:len(lines)-1]
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("candidates %q, want %q", got, tt.want)
			}
			if directive != ":4" {
				t.Errorf("directive %s, want :4 (no file names)", directive)
			}
		})
	}
}

// TestJobGroupCompletion: allot job's first argument is a subcommand or
// a job ID (allot job ID shows the job), and completion offers both;
// a word that cannot begin an ID gets the subcommands alone, with no
// request to the master.
func TestJobGroupCompletion(t *testing.T) {
	ids := []string{"6\tnotebook (queued)", "5\tasha (queued)", "3\tllm-pretrain (running)", "2\told-eval (completed)"}
	tests := []struct {
		name, word string
		subs       []string // the subcommands offered, by name
		ids        []string
	}{
		{"nothing typed", "", []string{"events", "explain", "hold", "kill", "list", "logs", "release", "requeue", "set-priority", "set-weight", "show", "update"}, ids},
		{"a digit", "5", nil, ids},
		{"a letter", "s", []string{"set-priority", "set-weight", "show"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeMaster(t)
			out, errOut, err := run(t, "__complete", "--master", f.srv.URL, "job", tt.word)
			if err != nil {
				t.Fatalf("error %v; stderr %s", err, errOut)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			var subs, got []string
			for _, l := range lines[:len(lines)-1] {
				name, _, _ := strings.Cut(l, "\t")
				if strings.TrimLeft(name, "0123456789") == "" {
					got = append(got, l)
				} else {
					subs = append(subs, name)
				}
			}
			if strings.Join(subs, "|") != strings.Join(tt.subs, "|") || strings.Join(got, "|") != strings.Join(tt.ids, "|") {
				t.Errorf("subcommands %q and IDs %q, want %q and %q", subs, got, tt.subs, tt.ids)
			}
			if d := lines[len(lines)-1]; d != ":4" {
				t.Errorf("directive %s, want :4 (no file names)", d)
			}
			f.mu.Lock()
			asked := len(f.requests) > 0
			f.mu.Unlock()
			if asked != (tt.ids != nil) {
				t.Errorf("asked the master: %v, want %v", asked, tt.ids != nil)
			}
		})
	}
}

// TestCompletionScripts: the completion scripts of bash, zsh and fish are
// generated, and call back into allot for dynamic candidates.
func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			out := mustRun(t, "completion", shell)
			if !strings.Contains(out, "__complete") {
				t.Errorf("the %s script does not ask allot __complete for candidates", shell)
			}
		})
	}
}
