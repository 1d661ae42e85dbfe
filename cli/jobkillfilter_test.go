package cli

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestKillFilters: allot job kill takes scancel's filters (-u, -t, -n,
// -A, -p): it lists the live jobs they match, kills them in one POST
// /jobs/kill and prints each; it refuses to run with neither IDs nor a
// filter, and with IDs kills only those that match (trial r R11), saying
// why each other was not killed, exit 1 for one it could not kill for
// another reason than the filter (trial 2026-11-29b B4).
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
		{cliCase: cliCase{name: "by project and pool", args: []string{"job", "kill", "-A", "vision", "-p", "batch"},
			out: "job 6 (notebook): killed\n1 job killed (-A vision -p batch)\n"}, kill: `{"ids":[6]}`},
		{cliCase: cliCase{name: "IDs and a filter: the IDs that match", args: []string{"job", "kill", "3", "6", "-t", "R"},
			out: "job 3 (llm-pretrain): killed\n1 job killed (-t running)\n", errOut: "allot: job 6 not killed: not a live job that -t running matches (it is queued)\n"},
			kill: `{"ids":[3]}`},
		// B4: an ID the filter did not list for another reason says
		// that reason, and the command exits 1 for one it could not kill.
		{cliCase: cliCase{name: "an ID the caller may not see", args: []string{"job", "kill", "3", "1", "-t", "R"},
			out:    "job 3 (llm-pretrain): killed\n1 job killed (-t running)\n",
			errOut: "allot: job 1 not killed: master: 403 Forbidden: the job belongs to alice; killing it needs the lead role in vision\n",
			err:    "1 job of 2 not killed"}, kill: `{"ids":[3]}`},
		{cliCase: cliCase{name: "only an ID the caller may not see", args: []string{"job", "kill", "1", "-t", "R"},
			errOut: "allot: job 1 not killed: master: 403 Forbidden: the job belongs to alice; killing it needs the lead role in vision\n",
			err:    "1 job of 1 not killed"}},
		{cliCase: cliCase{name: "no such ID", args: []string{"job", "kill", "99", "-u", "ana"},
			errOut: "allot: job 99 not killed: master: 404 Not Found: job 99 does not exist\n", err: "1 job of 1 not killed"}},
		{cliCase: cliCase{name: "an ended ID", args: []string{"job", "kill", "2", "-t", "R"},
			errOut: "allot: job 2 not killed: it has ended (completed)\nallot: no live job you may see matches -t running: nothing killed\n"}},
		{cliCase: cliCase{name: "nothing matches", args: []string{"job", "kill", "-n", "nosuch"},
			errOut: "allot: no live job you may see matches -n nosuch: nothing killed\n"}},
		{cliCase: cliCase{name: "nothing matches, json", args: []string{"job", "kill", "-n", "nosuch", "-o", "json"},
			out: "[]\n", errOut: "allot: no live job you may see matches -n nosuch: nothing killed\n"}},
		{cliCase: cliCase{name: "neither IDs nor a filter", args: []string{"job", "kill"},
			err: "allot job kill: expected a job ID or a filter (allot job kill ID [ID...], or -u USER, -t STATE, -n NAME, -A PROJECT, -p POOL): without either it kills nothing"}},
		{cliCase: cliCase{name: "an empty filter is none", args: []string{"job", "kill", "-u", ""},
			err: "without either it kills nothing"}},
		{cliCase: cliCase{name: "an ended state", args: []string{"job", "kill", "-u", "bo", "-t", "CD"},
			err: "--state: a completed job has ended and has nothing to kill; expected queued (pending, PD), held or running (R)"}},
		{cliCase: cliCase{name: "killing", args: []string{"job", "kill", "-t", "CG"},
			err: `--state: expected queued (pending, PD), held or running (R), got "CG"`}},
		{cliCase: cliCase{name: "a bad state", args: []string{"job", "kill", "-t", "TO"},
			err: `--state: expected queued (pending, PD), held or running (R), got "TO"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeMaster(t)
			f.forbidden = map[int64]string{1: "the job belongs to alice; killing it needs the lead role in vision"}
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
