package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

func TestJobLogs(t *testing.T) {
	f := newFakeMaster(t)
	f.logs[5] = []api.LogLine{{Task: 0, Attempt: 1, Text: "only task"}}
	f.jobs[1].Tasks = 1
	f.jobs = append(f.jobs, api.Job{ID: 7, Name: "restarted", Kind: "command", State: "running", Tasks: 1, Running: 1})
	f.logs[7] = []api.LogLine{ // attempt 1 printed nothing; attempt 3's first line is on stderr
		{Task: 0, Attempt: 2, Stream: "stdout", Text: "starting"},
		{Task: 0, Attempt: 3, Stream: "stderr", Text: "starting again"},
		{Task: 0, Attempt: 3, Stream: "stdout", Text: "step 1"},
	}
	r0, r1 := 0, 1
	f.jobs = append(f.jobs, api.Job{ID: 8, Name: "gang", Kind: "command", State: "running", Tasks: 1, Running: 1})
	f.logs[8] = []api.LogLine{
		{Task: 0, Attempt: 1, Stream: "stdout", Text: "hello from 0", Rank: &r0, Node: "gpu-a",
			Time: time.Date(2026, 11, 29, 18, 31, 52, 123456789, time.UTC)},
		{Task: 0, Attempt: 1, Stream: "stdout", Text: "hello from 1", Rank: &r1, Node: "gpu-b",
			Time: time.Date(2026, 11, 29, 19, 31, 53, 0, time.FixedZone("CET", 3600))},
	}
	runCLICases(t, f, []cliCase{
		{name: "a task across nodes: each line labelled with its part's rank and node", args: []string{"job", "logs", "8"},
			out: "[rank 0 gpu-a] hello from 0\n[rank 1 gpu-b] hello from 1\n"},
		{name: "every task, prefixed; stderr apart; a restart marked", args: []string{"job", "logs", "3"},
			out: "--- task 0 attempt 1 ---\n[0] epoch 1\n--- task 0 attempt 2 (restart 1) ---\n[0] resumed from checkpoint\n", errOut: "[1] warning: slow disk\n"},
		{name: "one task, a restart marked", args: []string{"job", "logs", "3", "--task", "0"},
			out: "--- task 0 attempt 1 ---\nepoch 1\n--- task 0 attempt 2 (restart 1) ---\nresumed from checkpoint\n"},
		{name: "a first line after a restart is marked too", args: []string{"job", "logs", "7"},
			out: "--- task 0 attempt 2 (restart 1) ---\nstarting\n--- task 0 attempt 3 (restart 2) ---\nstep 1\n", errOut: "starting again\n"},
		{name: "a single-task job is not prefixed", args: []string{"job", "logs", "5"}, out: "only task\n"},
		{name: "timestamps, in UTC, before the labels", args: []string{"job", "logs", "8", "--timestamps"},
			out: "2026-11-29T18:31:52.123456789Z [rank 0 gpu-a] hello from 0\n2026-11-29T18:31:53Z [rank 1 gpu-b] hello from 1\n"},
		{name: "timestamps before the attempt's lines, not its header", args: []string{"job", "logs", "7", "--timestamps"},
			out:    "--- task 0 attempt 2 (restart 1) ---\n0001-01-01T00:00:00Z starting\n--- task 0 attempt 3 (restart 2) ---\n0001-01-01T00:00:00Z step 1\n",
			errOut: "0001-01-01T00:00:00Z starting again\n"},
		{name: "queued, no output yet", args: []string{"job", "logs", "6"},
			errOut: "job 6 (notebook) is queued and has printed nothing yet; allot explain 6 says why it waits\n"},
		{name: "queued, output from an earlier attempt", args: []string{"job", "logs", "5"}, out: "only task\n"},
		{name: "ended, no output", args: []string{"job", "logs", "2"}},
		{name: "task out of range", args: []string{"job", "logs", "3", "--task", "2"}, err: "--task: job 3 has 2 tasks, numbered from 0; got 2"},
		{name: "negative task", args: []string{"job", "logs", "3", "--task", "-1"}, err: "--task: expected a task index >= 0, got -1"},
		{name: "unknown job", args: []string{"job", "logs", "42"}, err: "master: 404 Not Found: job 42 does not exist"},
		{name: "bad id", args: []string{"job", "logs", "x1"}, err: `job ID: expected a positive integer, got "x1"`},
	})
}

// TestJobLogsFollow follows a job whose log grows while it runs: each
// task's follower keeps asking, through answers with nothing new, until the
// master says the job has ended and every line has been sent.
func TestJobLogsFollow(t *testing.T) {
	f := newFakeMaster(t)
	f.ended[3] = 6 // the job ends at the sixth log request
	out, errOut, err := runAt(t, f, "job", "logs", "3", "-f")
	if err != nil {
		t.Fatal(err)
	}
	if out != "--- task 0 attempt 1 ---\n[0] epoch 1\n--- task 0 attempt 2 (restart 1) ---\n[0] resumed from checkpoint\n" || errOut != "[1] warning: slow disk\n" {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
	perTask := map[string]int{}
	for _, r := range f.requests {
		if !strings.Contains(r, "/logs") {
			continue
		}
		if !strings.Contains(r, "wait=30") {
			t.Errorf("follow request without a long poll: %s", r)
		}
		switch {
		case strings.Contains(r, "task=0"):
			perTask["0"]++
		case strings.Contains(r, "task=1"):
			perTask["1"]++
		default:
			t.Errorf("request for no task: %s", r)
		}
	}
	if perTask["0"] == 0 || perTask["1"] == 0 {
		t.Errorf("requests per task %v: every task must be followed", perTask)
	}

	// Without -f each task's log is read once, one task after the other,
	// without waiting.
	f = newFakeMaster(t)
	f.ended[3] = 100
	if _, _, err := runAt(t, f, "job", "logs", "3"); err != nil {
		t.Fatal(err)
	}
	want := []string{"GET /api/v1/jobs/3", "GET /api/v1/jobs/3/logs?task=0", "GET /api/v1/jobs/3/logs?after=L3&task=0",
		"GET /api/v1/jobs/3/logs?task=1", "GET /api/v1/jobs/3/logs?after=L3&task=1"}
	if strings.Join(f.requests, "\n") != strings.Join(want, "\n") {
		t.Errorf("without -f:\n%s\nwant:\n%s", strings.Join(f.requests, "\n"), strings.Join(want, "\n"))
	}
}
