package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestJobsColumns: --columns prints only the columns it names, in its
// order, in any case, with -o table or wide alike; an unknown or empty
// column and a structured -o are usage errors naming the valid columns.
func TestJobsColumns(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	valid := "POS, ID, NAME, STATE, POOL, PROJECT, USER, PRIORITY, WEIGHT, AGE, SLOTS, TASKS, START, ELAPSED, LIMIT, ENDS, NODES, REASON"
	runCLICases(t, f, []cliCase{
		{name: "three", args: []string{"jobs", "--columns", "ID,NAME,STATE"}, out: `ID  NAME          STATE
3   llm-pretrain  running
5   asha          queued
6   notebook      queued
`},
		{name: "order and case kept as asked", args: []string{"jobs", "--columns", "state,id,user"}, out: `STATE    ID  USER
running  3   ana
queued   5   bo
queued   6   ana
`},
		{name: "wide alike", args: []string{"jobs", "--columns", "id, priority", "-o", "wide"}, out: `ID  PRIORITY
3   20 (HIGH)
5   42 (NORMAL)
6   30 (NORMAL)
`},
		{name: "with -t", args: []string{"jobs", "--columns", "ID,STATE", "-t", "R"}, out: "ID  STATE\n3   running\n"},
		{name: "unknown", args: []string{"jobs", "--columns", "ID,PARTITION"},
			err: `--columns: unknown column "PARTITION"; expected a comma-separated list of ` + valid},
		{name: "empty", args: []string{"jobs", "--columns", "ID,,NAME"}, err: `--columns: an empty column; expected`},
		{name: "json", args: []string{"jobs", "--columns", "ID", "-o", "json"}, err: `--columns: applies to the table (-o table or wide), not -o json`},
	})
}

// TestNodesColumns: allot nodes takes --columns too, LAST_SEEN naming
// LAST SEEN and the -o wide columns available without -o wide.
func TestNodesColumns(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "wide column", args: []string{"nodes", "--columns", "NAME,LAST_SEEN,VERSION"}, out: `NAME   LAST SEEN  VERSION
dgx-1  5s         v1.2.0
dgx-2  3h         -
`},
		{name: "hyphen and case", args: []string{"node", "list", "--columns", "name,node-rule"}, out: `NAME   NODE RULE
dgx-1  pool (agent's: batch), switch=s1
dgx-2  -
`},
		{name: "unknown", args: []string{"nodes", "--columns", "NAME,CPUS"},
			err: `--columns: unknown column "CPUS"; expected a comma-separated list of NAME, POOL, STATE, GPU, SLOTS, LABELS, LAST_SEEN, REASON, VERSION, REGISTERED, DRAINED, NODE_RULE`},
	})
}

// TestPoolsProjectsColumns: allot pools and allot projects take
// --columns as allot nodes does: a wide column without -o wide, _ for a
// header's space, an unknown column listing the valid ones, and no
// --columns with -o json (trial leftover).
func TestPoolsProjectsColumns(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "pools", args: []string{"pools", "--columns", "name,slots,backfill_window"}, out: `NAME      SLOTS  BACKFILL WINDOW
research  8/16   2 slots for 40m
batch     0/0    0 slots

batch: no node is up in the pool; its 1 queued job waits until one is
`},
		{name: "pools unknown", args: []string{"pools", "--columns", "NAME,GPUS"},
			err: `--columns: unknown column "GPUS"; expected a comma-separated list of NAME, POLICY, OPTIONS, GRACE, NODES, SLOTS, QUEUED, RUNNING, RESERVATIONS, BACKFILL_WINDOW`},
		{name: "pools json", args: []string{"pools", "--columns", "NAME", "-o", "json"}, err: `--columns: applies to the table (-o table or wide), not -o json`},
		{name: "projects", args: []string{"projects", "--columns", "NAME,used,Quota,in-quota-pools"}, out: `NAME    USED  QUOTA  IN QUOTA POOLS
ml      8     24     -
vision  8     16     -
nlp     0     8      -
`},
		{name: "projects wide column", args: []string{"projects", "--columns", "name,max_priority,qos", "-o", "wide"}, out: `NAME    MAX PRIORITY  QOS
ml      -             any
vision  -             any
nlp     -             any
`},
		{name: "projects unknown", args: []string{"projects", "--columns", "NAME,OWNER"},
			err: `--columns: unknown column "OWNER"; expected a comma-separated list of NAME, PARENT, QUOTA, USED, IN_QUOTA_POOLS, OVER, LIMIT, WEIGHT, QUEUED, RUNNING, MAX_PRIORITY, QOS`},
		{name: "projects yaml", args: []string{"projects", "--columns", "NAME", "-o", "yaml"}, err: `--columns: applies to the table (-o table or wide), not -o yaml`},
	})
}

// TestColumnsExitCode: a wrong --columns is a usage error (exit 2), sent
// to no master.
func TestColumnsExitCode(t *testing.T) {
	for _, args := range [][]string{
		{"jobs", "--columns", "bogus", "--master", "127.0.0.1:1"},
		{"nodes", "--columns", "", "--columns", ",", "--master", "127.0.0.1:1"},
		{"pools", "--columns", "NAME,GPUS", "--master", "127.0.0.1:1"},
		{"projects", "--columns", "name", "-o", "json", "--master", "127.0.0.1:1"},
	} {
		t.Run(strings.Join(args[:3], " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := Main(args, &out, &errOut); code != ExitUsage || !strings.Contains(errOut.String(), "--columns: ") {
				t.Errorf("exit %d, stderr %q; want %d and the --columns error", code, errOut.String(), ExitUsage)
			}
		})
	}
}

// TestColumnsCompletion: --columns completes the column names after the
// last comma, leaving out those named already, with no space after.
func TestColumnsCompletion(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"first", []string{"jobs", "--columns", "NA"}, []string{"NAME"}},
		{"after a comma", []string{"jobs", "--columns", "ID,S"}, []string{"ID,STATE", "ID,SLOTS", "ID,START"}},
		{"named ones left out", []string{"nodes", "--columns", "name,LAST_SEEN,"}, []string{"name,LAST_SEEN,POOL", "name,LAST_SEEN,STATE",
			"name,LAST_SEEN,GPU", "name,LAST_SEEN,SLOTS", "name,LAST_SEEN,LABELS", "name,LAST_SEEN,REASON", "name,LAST_SEEN,VERSION",
			"name,LAST_SEEN,REGISTERED", "name,LAST_SEEN,DRAINED", "name,LAST_SEEN,NODE_RULE"}},
		{"lower case", []string{"jobs", "--columns", "id,ela"}, []string{"id,ELAPSED"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := run(t, append([]string{"__complete"}, tt.args...)...)
			if err != nil {
				t.Fatalf("error %v; stderr %s", err, errOut)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if got := lines[:len(lines)-1]; strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("candidates %q, want %q", got, tt.want)
			}
			if d := lines[len(lines)-1]; d != ":6" {
				t.Errorf("directive %s, want :6 (no space, no file names)", d)
			}
		})
	}
}
