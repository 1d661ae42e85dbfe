package trace

import (
	"strings"
	"testing"
	"time"
)

const csvHead = "job_id,user,project,submit,gpus,nodes,duration,time_limit\n"

// csvStart is the first submit time of the timestamp cases.
var csvStart = time.Date(2020, 4, 1, 0, 0, 7, 0, time.UTC).Unix()

// csvCases are read both plain and gzipped.
var csvCases = []readCase{
	{
		name: "seconds",
		in: csvHead +
			"a1,alice,vc1,1000,8,1,3600,7200\n" +
			"a2,bob,vc2,1000,1,,60,\n" +
			"a3,alice,,1500,4,2,30,0\n",
		header: Header{SubmitOrigin: 1000},
		jobs: []Job{
			{ID: "a1", Submit: 0, Run: 3600, Slots: 8, Nodes: 1, TimeLimit: 7200, User: "alice", Project: "vc1", Line: 2},
			{ID: "a2", Submit: 0, Run: 60, Slots: 1, User: "bob", Project: "vc2", Line: 3},
			{ID: "a3", Submit: 500, Run: 30, Slots: 4, Nodes: 2, User: "alice", Line: 4},
		},
	},
	{
		name: "timestamps",
		in: csvHead +
			"6346,u1,vc7Bz,2020-04-01 00:00:07,8,1,3600,\n" +
			"6347,u2,vcEwI,2020-04-01 00:02:11,16,2,86,7200\n" +
			"6348,u2,vcEwI,2020-04-02 00:00:07,2,,10,\n",
		header: Header{UnixStartTime: csvStart, SubmitOrigin: csvStart},
		jobs: []Job{
			{ID: "6346", Submit: 0, Run: 3600, Slots: 8, Nodes: 1, User: "u1", Project: "vc7Bz", Line: 2},
			{ID: "6347", Submit: 124, Run: 86, Slots: 16, Nodes: 2, TimeLimit: 7200, User: "u2", Project: "vcEwI", Line: 3},
			{ID: "6348", Submit: 86400, Run: 10, Slots: 2, User: "u2", Project: "vcEwI", Line: 4},
		},
	},
	{
		name: "RFC 3339 with offsets",
		in: csvHead +
			"j1,u,p,2020-04-01T08:00:07+08:00,1,1,5,\n" +
			"j2,u,p,2020-04-01T00:01:07Z,1,1,5,\n",
		header: Header{UnixStartTime: csvStart, SubmitOrigin: csvStart},
		jobs: []Job{
			{ID: "j1", Submit: 0, Run: 5, Slots: 1, Nodes: 1, User: "u", Project: "p", Line: 2},
			{ID: "j2", Submit: 60, Run: 5, Slots: 1, Nodes: 1, User: "u", Project: "p", Line: 3},
		},
	},
	{
		name: "columns in another order, no time_limit, quoting, blanks",
		in: "\ufeffsubmit, gpus ,duration,job_id,user,project,nodes\r\n" +
			"10,2,100,\"x,1\",\"Ann \"\"A\"\"\",p, 1 \r\n",
		header: Header{SubmitOrigin: 10},
		jobs:   []Job{{ID: "x,1", Run: 100, Slots: 2, Nodes: 1, User: `Ann "A"`, Project: "p", Line: 2}},
	},
	{
		name: "skipped summary",
		in: csvHead +
			"c1,u,p,5,0,1,100,\n" + // the first row sets the origin though skipped
			"c2,u,p,6,1,1,0,\n" +
			"c3,u,p,7,0,1,0,\n" +
			"c4,u,p,8,2,1,-1,\n" +
			"c5,u,p,9,2,1,10,\n",
		header:  Header{SubmitOrigin: 5},
		jobs:    []Job{{ID: "c5", Submit: 4, Run: 10, Slots: 2, Nodes: 1, User: "u", Project: "p", Line: 6}},
		skipped: []Skipped{{SkipNoGPUs, 2, 2}, {SkipZeroRun, 1, 3}, {SkipNoRun, 1, 5}},
	},
	{name: "header only", in: csvHead},
}

func TestCSV(t *testing.T) { runReadCases(t, csvCases, NewCSV, "t.csv") }

func TestCSVErrors(t *testing.T) {
	ok := "j1,u,p,100,1,1,10,\n"
	runErrorCases(t, []errorCase{
		{"empty file", "", []string{"t.csv:", "header row"}},
		{"unknown column", "job_id,user,project,submit,gpus,nodes,duration,gpu_type\n" + ok,
			[]string{"t.csv:1:", "column 8", `unknown column "gpu_type"`}},
		{"misspelt optional column", "job_id,user,project,submit,gpus,nodes,duration,time_limt\n" + ok,
			[]string{"t.csv:1:", `"time_limt"`}},
		{"repeated column", "job_id,user,project,submit,gpus,nodes,duration,gpus\n" + ok,
			[]string{"t.csv:1:", "column 8", `"gpus" appears twice`}},
		{"missing columns", "job_id,user,submit,gpus,duration\n", []string{"t.csv:1:", "missing columns project, nodes"}},
		{"missing column", "job_id,user,submit,gpus,duration,project\n", []string{"t.csv:1:", "missing column nodes"}},
		{"bad gpus cell", csvHead + ok + "j2,u,p,100,two,1,10,\n",
			[]string{"t.csv:3:", "column gpus", `expected an integer, got "two"`}},
		{"negative gpus", csvHead + "j2,u,p,100,-1,1,10,\n", []string{"t.csv:2:", "column gpus", "negative"}},
		{"bad nodes cell", csvHead + "j2,u,p,100,1,1.5,10,\n", []string{"t.csv:2:", "column nodes", `"1.5"`}},
		{"empty duration", csvHead + "j2,u,p,100,1,1,,\n", []string{"t.csv:2:", "column duration", `got ""`}},
		{"bad time_limit", csvHead + "j2,u,p,100,1,1,10,1h\n", []string{"t.csv:2:", "column time_limit", `"1h"`}},
		{"empty job_id", csvHead + ",u,p,100,1,1,10,\n", []string{"t.csv:2:", "column job_id", "empty"}},
		{"bad submit", csvHead + "j2,u,p,yesterday,1,1,10,\n", []string{"t.csv:2:", "column submit", `"yesterday"`}},
		{"submit going backwards", csvHead + ok + ok + "j3,u,p,99,1,1,10,\n",
			[]string{"t.csv:4:", "column submit", "before the submit time on line 3", "sorted"}},
		{"mixed styles", csvHead + ok + "j2,u,p,2020-04-01 00:00:07,1,1,10,\n",
			[]string{"t.csv:3:", "column submit", "earlier rows use integer seconds"}},
		{"mixed styles the other way", csvHead + "j1,u,p,2020-04-01 00:00:07,1,1,10,\n" + ok,
			[]string{"t.csv:3:", "column submit", "earlier rows use timestamps"}},
		{"short row", csvHead + ok + "j2,u,p,100,1\n",
			[]string{"t.csv:3: the row has 5 cells, the header has 8 (missing: nodes, duration, time_limit)"}},
		{"short row of the trial", "job_id,user,project,submit,gpus,nodes,duration\n1,u1,p1,0,8,1,3600\n2,u2,p1,60,4,1\n",
			[]string{"t.csv:3: the row has 6 cells, the header has 7 (missing: duration)"}},
		{"short row, columns reordered", "duration,job_id,user,project,submit,gpus,nodes\n10,j1,u,p,100,1,1\n10,j2,u,p,100\n",
			[]string{"t.csv:3: the row has 5 cells, the header has 7 (missing: gpus, nodes)"}},
		{"long row", csvHead + ok + "j2,u,p,100,1,1,10,,x,y\n",
			[]string{"t.csv:3: the row has 10 cells, the header has 8 (2 more than its columns, after time_limit)"}},
		{"bad quoting", csvHead + ok + "j2,\"u,p,100,1,1,10,\n", []string{"t.csv:3:", "quote"}},
		{"submit overflow", csvHead + "j1,u,p,-9223372036854775808,1,1,10,\nj2,u,p,9223372036854775807,1,1,10,\n",
			[]string{"t.csv:3:", "column submit", "too far"}},
	}, NewCSV, "t.csv")
}

// TestCSVErrorInFirstRow checks that NewCSV's read-ahead leaves a bad
// first row for Next to report, as for any other row.
func TestCSVErrorInFirstRow(t *testing.T) {
	r, err := NewCSV(strings.NewReader(csvHead+"j1,u,p,100,x,1,10,\n"), "t.csv")
	if err != nil {
		t.Fatalf("NewCSV: %v", err)
	}
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "t.csv:2: column gpus") {
		t.Errorf("Next error = %v", err)
	}
}
