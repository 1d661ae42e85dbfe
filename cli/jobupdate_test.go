package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/jobfile"
)

// TestJobUpdate: allot job update sends one PATCH of what its flags name,
// the time limit as typed (the master reads the job file's forms), and
// says what the job has now; bad flags send nothing.
func TestJobUpdate(t *testing.T) {
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "time limit", args: []string{"job", "update", "5", "--time-limit", "2h"}, out: "job 5 (asha): time limit 2h\n"},
		{name: "slurm's form", args: []string{"job", "update", "5", "--time-limit", "1-00:00:00"}, out: "job 5 (asha): time limit 24h\n"},
		{name: "no time limit", args: []string{"job", "update", "5", "--time-limit", "0"}, out: "job 5 (asha): time limit none\n"},
		{name: "qos and nice", args: []string{"job", "update", "5", "--qos", "normal", "--nice", "10"}, out: "job 5 (asha): qos normal, nice 10\n"},
		{name: "priority and weight", args: []string{"job", "update", "5", "--priority", "low", "--weight", "2"},
			out: "job 5 (asha): priority 80 (LOW), weight 2\n"},
		{name: "nothing to change", args: []string{"job", "update", "5"},
			err: "allot job update: expected a change: --priority, --weight, --time-limit, --qos or --nice"},
		{name: "not a duration", args: []string{"job", "update", "5", "--time-limit", "2x"},
			err: `--time-limit: expected a duration (whole seconds like 90, or a string like 90s, 1h30m, 2d or 1:30:00), got "2x"`},
		{name: "a bare number", args: []string{"job", "update", "5", "--time-limit", "90"},
			err: "--time-limit 90: a bare number is ambiguous (Slurm reads minutes, job files seconds); give its unit: 90m, 90s, or Slurm's form such as 1:30:00"},
		{name: "past the new limit", args: []string{"job", "update", "5", "--time-limit", "30s"},
			out: "job 5 (asha): time limit 30s\njob 5 has run past its new time limit: its tasks are stopped now, as at their limit\n"},
		{name: "negative nice", args: []string{"job", "update", "5", "--nice", "-5"}, err: `--nice: expected a whole number from 0 to 1000000000, got "-5"`},
		{name: "bad priority", args: []string{"job", "update", "5", "--priority", "100"}, err: "priority: expected 1 to 99"},
		{name: "unknown job", args: []string{"job", "update", "77", "--qos", "high"}, err: "master: 404 Not Found: job 77 does not exist"},
	})
	want := []string{`{"time_limit":"2h"}`, `{"time_limit":"1-00:00:00"}`, `{"time_limit":"0"}`, `{"qos":"normal","nice":10}`,
		`{"priority_class":"LOW","weight":2}`, `{"time_limit":"30s"}`}
	var patches []string
	for i, r := range f.requests {
		if strings.HasPrefix(r, "PATCH /api/v1/jobs/5") {
			patches = append(patches, f.bodies[i])
		}
	}
	if strings.Join(patches, " ") != strings.Join(want, " ") {
		t.Errorf("PATCH bodies = %q, want %q", patches, want)
	}
}

// TestPreemptibleNote (trial 2026-11-29b B12): a priority change that
// makes a job non-preemptible (out of LOW, its file not saying
// preemptible: true) or preemptible (into LOW) says so on stderr, with
// how to keep it preemptible; one that changes neither says nothing.
func TestPreemptibleNote(t *testing.T) {
	const noLonger = "note: job 6 is no longer preemptible: a job out of LOW (priority 60-99) is preemptible only where its job file " +
		"says preemptible: true; to keep it preemptible, give it a priority in 60-99 (allot job set-priority 6 LOW), or submit it again with preemptible: true\n"
	tests := []struct {
		name     string
		class    string // job 6's class before
		args     []string
		out, err string
	}{
		{"LOW raised to HIGH", "LOW", []string{"job", "set-priority", "6", "HIGH"}, "job 6 (notebook): priority 10 (HIGH)\n", noLonger},
		{"LOW raised to a number", "LOW", []string{"job", "set-priority", "6", "42"}, "job 6 (notebook): priority 42 (NORMAL)\n", noLonger},
		{"LOW kept LOW", "LOW", []string{"job", "set-priority", "6", "70"}, "job 6 (notebook): priority 70 (LOW)\n", ""},
		{"NORMAL raised to HIGH", "NORMAL", []string{"job", "set-priority", "6", "HIGH"}, "job 6 (notebook): priority 10 (HIGH)\n", ""},
		{"NORMAL lowered to LOW", "NORMAL", []string{"job", "set-priority", "6", "LOW"}, "job 6 (notebook): priority 80 (LOW)\n",
			"note: job 6 is now preemptible: a LOW job (priority 60-99) always is\n"},
		{"update --priority", "LOW", []string{"job", "update", "6", "--priority", "HIGH"}, "", noLonger},
		{"update of another field", "LOW", []string{"job", "update", "6", "--weight", "2"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeMaster(t)
			j := &f.jobs[slices.IndexFunc(f.jobs, func(j api.Job) bool { return j.ID == 6 })]
			j.PriorityClass, j.Priority = tt.class, jobfile.PriorityClass(tt.class).Priority()
			j.Preemptible = tt.class == "LOW"
			out, errOut, err := runAt(t, f, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if tt.out != "" && out != tt.out {
				t.Errorf("stdout %q, want %q", out, tt.out)
			}
			if errOut != tt.err {
				t.Errorf("stderr %q\nwant %q", errOut, tt.err)
			}
		})
	}
}
