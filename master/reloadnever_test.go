package master

import (
	"fmt"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestReloadWarnsOfJobsThatNeverStart: a reload that lowers a project's
// limit (or its quota, for work that runs only within it) below a
// waiting job's task, borrowing work's included, is taken, and its reply names the job and why it
// can never start now, by the rule that refuses such a submission; a
// reload that leaves it startable warns of nothing.
func TestReloadWarnsOfJobsThatNeverStart(t *testing.T) {
	file := func(quota, limit int) string {
		return fmt.Sprintf("pools: [{name: teams, policy: quota}]\ndefault_pool: teams\ndefault_project: vision\n"+
			"projects:\n  - {name: vision, quota: %d, limit: %d}\n", quota, limit)
	}
	withFile, path := withConfigFile(t, file(4, 8))
	h := newHarness(t, withFile)
	h.agent("n1", 8)
	gang := h.submit(`{"name": "gang", "project": "vision", "entrypoint": "x", "resources": {"slots": 6, "preemptible": true}}`)
	solid := h.submit(`{"name": "solid", "project": "vision", "entrypoint": "x", "resources": {"slots": 3, "preemptible": false}}`)
	// The limit caps borrowing (LOW) work too (trial 2026-11-29e E6).
	low := h.submit(`{"name": "low", "project": "vision", "entrypoint": "x", "resources": {"slots": 4, "priority_class": "LOW"}}`)
	cases := []struct {
		name, file string
		want       []string // prefixes of the warnings, in order
	}{
		{"the same limits", file(4, 8), nil},
		{"the limit below the gang", file(2, 2), []string{
			fmt.Sprintf("job %d (gang, queued) can never start now: a task of 6 slots can never run under project vision's limit of 2 in quota pool teams; it waits", gang),
			fmt.Sprintf("job %d (solid, queued) can never start now: a task of 3 slots can never run under project vision's limit of 2", solid),
			fmt.Sprintf("job %d (low, queued) can never start now: a task of 4 slots can never run under project vision's limit of 2", low)}},
		{"the quota below the job that runs only within it", file(2, 8), []string{
			fmt.Sprintf("job %d (solid, queued) can never start now: a task of 3 slots can never run within project vision's quota of 2", solid)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			writeConfig(t, path, tc.file)
			var reply api.Reload
			if code := h.do("POST", "/api/v1/config/reload", nil, &reply); code != 200 {
				t.Fatalf("reload: %d", code)
			}
			if len(reply.Warnings) != len(tc.want) {
				t.Fatalf("warnings %q, want %d", reply.Warnings, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(reply.Warnings[i], w) {
					t.Errorf("warning %d %q, want it to begin %q", i, reply.Warnings[i], w)
				}
			}
		})
	}
}
