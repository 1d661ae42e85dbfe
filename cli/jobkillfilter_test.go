package cli

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestKillFilters: allot job kill takes scancel's filters (-u, -t, -n,
// -A, --pool): it lists the live jobs they match, kills them in one POST
// /jobs/kill and prints each; it refuses to run with neither IDs nor a
// filter, and with IDs kills only those that match (trial r R11).
func TestKillFilters(t *testing.T) {
	tests := []struct {
		cliCase
		kill string // the body of the one POST /jobs/kill; "" for none
	}{
		{cliCase: cliCase{name: "squeue's PD of a user", args: []string{"job", "kill", "-u", "ana", "-t", "PD"},
			out: "job 6 (notebook): killed\n1 job killed (-u ana -t queued)\n"}, kill: `{"ids":[6]}`},
		{cliCase: cliCase{name: "a user's live jobs, running ones too", args: []string{"job", "kill", "-u", "ana"},
			out: "job 3 (llm-pretrain): killed\njob 6 (notebook): killed\n2 jobs killed (-u ana)\n"}, kill: `{"ids":[3,6]}`},
		{cliCase: cliCase{name: "by name", args: []string{"job", "kill", "--name", "asha"},
			out: "job 5 (asha): killed\n1 job killed (-n asha)\n"}, kill: `{"ids":[5]}`},
		{cliCase: cliCase{name: "by project and pool", args: []string{"job", "kill", "-A", "vision", "--pool", "batch"},
			out: "job 6 (notebook): killed\n1 job killed (-A vision --pool batch)\n"}, kill: `{"ids":[6]}`},
		{cliCase: cliCase{name: "IDs and a filter: the IDs that match", args: []string{"job", "kill", "3", "6", "-t", "R"},
			out: "job 3 (llm-pretrain): killed\n1 job killed (-t running)\n", errOut: "allot: job 6 not killed: not a live job that -t running matches\n"},
			kill: `{"ids":[3]}`},
		{cliCase: cliCase{name: "nothing matches", args: []string{"job", "kill", "-n", "nosuch"},
			errOut: "allot: no live job you may see matches -n nosuch: nothing killed\n"}},
		{cliCase: cliCase{name: "nothing matches, json", args: []string{"job", "kill", "-n", "nosuch", "-o", "json"},
			out: "[]\n", errOut: "allot: no live job you may see matches -n nosuch: nothing killed\n"}},
		{cliCase: cliCase{name: "neither IDs nor a filter", args: []string{"job", "kill"},
			err: "allot job kill: expected a job ID or a filter (allot job kill ID [ID...], or -u USER, -t STATE, -n NAME, -A PROJECT, --pool POOL): without either it kills nothing"}},
		{cliCase: cliCase{name: "an empty filter is none", args: []string{"job", "kill", "-u", ""},
			err: "without either it kills nothing"}},
		{cliCase: cliCase{name: "an ended state", args: []string{"job", "kill", "-u", "bo", "-t", "CD"},
			err: "--state: a completed job has ended and has nothing to kill; expected queued (pending, PD) or running (R)"}},
		{cliCase: cliCase{name: "killing", args: []string{"job", "kill", "-t", "CG"},
			err: `--state: expected queued (pending, PD) or running (R), got "CG"`}},
		{cliCase: cliCase{name: "a bad state", args: []string{"job", "kill", "-t", "TO"},
			err: `--state: expected queued (pending, PD) or running (R), got "TO"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeMaster(t)
			runCLICases(t, f, []cliCase{tt.cliCase})
			var kills []string
			for i, r := range f.requests {
				if r == "POST /api/v1/jobs/kill" {
					kills = append(kills, f.bodies[i])
				}
				if r != "POST /api/v1/jobs/kill" && len(r) > 5 && r[:5] == "POST " {
					t.Errorf("request %q: want only POST /jobs/kill", r)
				}
			}
			want := []string{}
			if tt.kill != "" {
				want = []string{tt.kill}
			}
			if !slices.Equal(kills, want) && !(len(kills) == 0 && len(want) == 0) {
				t.Errorf("kill requests %q, want %q", kills, want)
			}
		})
	}
}

// TestKillFilterJSON: a filtered kill prints a list of replies with -o
// json, even of one job.
func TestKillFilterJSON(t *testing.T) {
	f := newFakeMaster(t)
	out, _, err := runAt(t, f, "job", "kill", "-n", "asha", "-o", "json")
	var rs []api.KillReply
	if err != nil || json.Unmarshal([]byte(out), &rs) != nil || len(rs) != 1 || rs[0].ID != 5 || rs[0].State != "killed" {
		t.Errorf("job kill -n asha -o json: %v; want a list of job 5's reply:\n%s", err, out)
	}
}
