package cli

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

func TestHiddenNote(t *testing.T) {
	full := api.Pool{Name: "train", Slots: 8, Used: 8, QueuedJobs: 1, RunningTasks: 2}
	free := api.Pool{Name: "campus", Slots: 4, Used: 0, QueuedJobs: 1}
	mine := api.Job{ID: 3, Pool: "train", State: "queued"}
	for _, tc := range []struct {
		name  string
		pools []api.Pool
		shown []api.Job
		only  string
		want  string
	}{
		{"a full pool of others' work", []api.Pool{full}, nil, "",
			"note: 1 queued job and 2 running tasks of other projects are not shown (you have no role there); pool train is full: see allot pools"},
		{"one's own queued job is shown", []api.Pool{full}, []api.Job{mine}, "",
			"note: 2 running tasks of other projects are not shown (you have no role there); pool train is full: see allot pools"},
		{"a pool not full", []api.Pool{free}, nil, "",
			"note: 1 queued job of other projects is not shown (you have no role there); allot pools shows each pool's load"},
		{"two full pools", []api.Pool{full, {Name: "b", Slots: 2, Used: 2, RunningTasks: 1}}, nil, "",
			"note: 1 queued job and 3 running tasks of other projects are not shown (you have no role there); pools train, b are full: see allot pools"},
		{"--pool keeps to its pool", []api.Pool{full, free}, nil, "campus",
			"note: 1 queued job of other projects is not shown (you have no role there); allot pools shows each pool's load"},
		{"nothing hidden", []api.Pool{{Name: "train", Slots: 8, Used: 4, RunningTasks: 1}},
			[]api.Job{{ID: 1, Pool: "train", State: "running", Running: 1}}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := hiddenNote(tc.pools, tc.shown, tc.only); got != tc.want {
				t.Errorf("note\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestJobsHiddenNote: a member's allot jobs says on stderr what the pools
// hold that the list leaves out; stdout is the table alone, and -o json,
// an admin's list and a filtered list print no note.
func TestJobsHiddenNote(t *testing.T) {
	const want = "of other projects are not shown (you have no role there)"
	for _, tc := range []struct {
		name string
		who  *api.Whoami
		args []string
		note bool
	}{
		{"member", &api.Whoami{User: "bo", Roles: map[string]string{"nlp": "member"}}, []string{"jobs"}, true},
		{"member wide", &api.Whoami{User: "bo", Roles: map[string]string{"nlp": "member"}}, []string{"jobs", "-o", "wide"}, true},
		{"member json", &api.Whoami{User: "bo", Roles: map[string]string{"nlp": "member"}}, []string{"jobs", "-o", "json"}, false},
		{"member filtered", &api.Whoami{User: "bo", Roles: map[string]string{"nlp": "member"}}, []string{"jobs", "-u", "bo"}, false},
		{"admin", &api.Whoami{User: "root", Admin: true}, []string{"jobs"}, false},
		{"viewer of all", &api.Whoami{User: "op", Roles: map[string]string{"*": "viewer"}}, []string{"jobs"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeMaster(t)
			f.who = tc.who
			f.jobs = nil
			out, errOut, err := runAt(t, f, tc.args...)
			if err != nil {
				t.Fatalf("%v: %v", tc.args, err)
			}
			if strings.Contains(out, "note:") {
				t.Errorf("stdout has the note:\n%s", out)
			}
			if got := strings.Contains(errOut, want); got != tc.note {
				t.Errorf("stderr %q: note %v, want %v", errOut, got, tc.note)
			}
		})
	}
}
