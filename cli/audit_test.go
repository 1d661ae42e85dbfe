package cli

import (
	"slices"
	"testing"
	"time"
)

// TestAuditLast: --last N asks the master for the newest N entries
// (last=N), which it lists oldest first; it is checked here first, and
// refused with --limit, which asks for the oldest. --since and --until
// are checked as history's are and sent as since and until; the table
// has the entry's TARGET.
func TestAuditLast(t *testing.T) {
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "last", args: []string{"audit", "--last", "20", "--actor", "user:root", "-o", "json"},
			out: "[\n  {\n    \"seq\": 7,\n    \"at\": \"0001-01-01T00:00:00Z\",\n    \"actor\": \"user:root\",\n    \"action\": \"POST /api/v1/jobs\",\n    \"target\": \"job 12\",\n    \"status\": 201,\n    \"request_id\": \"\"\n  }\n]\n"},
		{name: "oldest by default", args: []string{"audit", "-o", "json"},
			out: "[\n  {\n    \"seq\": 7,\n    \"at\": \"0001-01-01T00:00:00Z\",\n    \"actor\": \"user:root\",\n    \"action\": \"POST /api/v1/jobs\",\n    \"target\": \"job 12\",\n    \"status\": 201,\n    \"request_id\": \"\"\n  }\n]\n"},
		{name: "last with limit", args: []string{"audit", "--last", "5", "--limit", "5"}, err: "--last and --limit: give one"},
		{name: "last zero", args: []string{"audit", "--last", "0"}, err: "--last: expected 1..10000, got 0"},
		{name: "a table names the target", args: []string{"audit", "--since", "2026-11-28T00:00:00Z", "--until", "2026-11-29T00:00:00Z"},
			out: "SEQ  TIME                 ACTOR      ACTION             TARGET  STATUS  DETAIL\n" +
				"7    " + time.Time{}.Local().Format(time.DateTime) + "  user:root  POST /api/v1/jobs  job 12  201     -\n"},
		{name: "since after until", args: []string{"audit", "--since", "1h", "--until", "2h"}, err: "--since 1h"},
		{name: "a bad since", args: []string{"audit", "--since", "soon"}, err: "--since: "},
	})
	for _, want := range []string{
		"GET /api/v1/audit?limit=1000&since=2026-11-28T00%3A00%3A00Z&until=2026-11-29T00%3A00%3A00Z",
		"GET /api/v1/audit?actor=user%3Aroot&last=20",
		"GET /api/v1/audit?limit=1000",
	} {
		if !slices.Contains(f.requests, want) {
			t.Errorf("no request %q among %q", want, f.requests)
		}
	}
}
