package cli

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

func TestJobLogs(t *testing.T) {
	f := newFakeMaster(t)
	f.logs[5] = []api.LogLine{{Task: 0, Text: "only task"}}
	f.jobs[1].Tasks = 1
	runCLICases(t, f, []cliCase{
		{name: "every task, prefixed; stderr apart", args: []string{"job", "logs", "3"},
			out: "[0] epoch 1\n[0] resumed from checkpoint\n", errOut: "[1] warning: slow disk\n"},
		{name: "one task", args: []string{"job", "logs", "3", "--task", "0"}, out: "epoch 1\nresumed from checkpoint\n"},
		{name: "a single-task job is not prefixed", args: []string{"job", "logs", "5"}, out: "only task\n"},
		{name: "no output yet", args: []string{"job", "logs", "6"}},
		{name: "task out of range", args: []string{"job", "logs", "3", "--task", "2"}, err: "--task: job 3 has 2 task(s), numbered from 0; got 2"},
		{name: "negative task", args: []string{"job", "logs", "3", "--task", "-1"}, err: "--task: expected a task index >= 0, got -1"},
		{name: "unknown job", args: []string{"job", "logs", "42"}, err: "master: 404 Not Found: no job 42"},
		{name: "bad id", args: []string{"job", "logs", "x1"}, err: `job ID: expected a positive integer, got "x1"`},
	})
}

// TestJobLogsFollow follows a job whose log grows while it runs: the
// follower keeps asking, through answers with nothing new, until the
// master says the job has ended and every line has been sent.
func TestJobLogsFollow(t *testing.T) {
	f := newFakeMaster(t)
	f.ended[3] = 6 // the job ends at the sixth log request
	out, errOut, err := runAt(t, f, "job", "logs", "3", "-f")
	if err != nil {
		t.Fatal(err)
	}
	if out != "[0] epoch 1\n[0] resumed from checkpoint\n" || errOut != "[1] warning: slow disk\n" {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
	var polls []string
	for _, r := range f.requests {
		if strings.Contains(r, "/logs") {
			polls = append(polls, r)
		}
	}
	want := []string{
		"GET /api/v1/jobs/3/logs?wait=30",
		"GET /api/v1/jobs/3/logs?after=L2&wait=30",
		"GET /api/v1/jobs/3/logs?after=L3&wait=30",
		"GET /api/v1/jobs/3/logs?after=L3&wait=30",
		"GET /api/v1/jobs/3/logs?after=L3&wait=30",
		"GET /api/v1/jobs/3/logs?after=L3&wait=30",
	}
	if strings.Join(polls, "\n") != strings.Join(want, "\n") {
		t.Errorf("log requests:\n%s\nwant:\n%s", strings.Join(polls, "\n"), strings.Join(want, "\n"))
	}

	// Without -f the same job's log is read once, without waiting.
	f = newFakeMaster(t)
	f.ended[3] = 100
	if _, _, err := runAt(t, f, "job", "logs", "3"); err != nil {
		t.Fatal(err)
	}
	if n := len(f.requests); n != 4 || f.requests[3] != "GET /api/v1/jobs/3/logs?after=L3" {
		t.Errorf("without -f: %q", f.requests)
	}
}
