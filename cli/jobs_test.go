package cli

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

// fixClock makes printed times and ages independent of the machine.
func fixClock(t *testing.T) {
	t.Helper()
	oldNow, oldZone := now, displayZone
	now, displayZone = func() time.Time { return t0 }, time.UTC
	t.Cleanup(func() { now, displayZone = oldNow, oldZone })
}

// runAt runs the command line against the fake master.
func runAt(t *testing.T, f *fakeMaster, args ...string) (string, string, error) {
	t.Helper()
	return run(t, append([]string{"--master", f.srv.URL}, args...)...)
}

// cliCase is one command line and what it must print.
type cliCase struct {
	name   string
	args   []string
	out    string // stdout, exactly
	errOut string // stderr, exactly
	err    string // substring of the error; "" for success
}

func runCLICases(t *testing.T, f *fakeMaster, tests []cliCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := runAt(t, f, tt.args...)
			if out != tt.out {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, tt.out)
			}
			if errOut != tt.errOut {
				t.Errorf("stderr:\n%s\nwant:\n%s", errOut, tt.errOut)
			}
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("error: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("error = %v, want one containing %q", err, tt.err)
			}
		})
	}
}

const queueTable = `POS  ID  NAME          STATE    POOL      PROJECT  SLOTS  TASKS  START         REASON
-    3   llm-pretrain  running  research  vision   8      2/2    -             -
1    5   asha          queued   research  nlp      1      4/20   ~in 1h to 2h  needs 1 slot, 0 free
2    6   notebook      queued   batch     vision   1      0/1    -             behind job 5
`

// TestJobsEstimate: --estimate shows one end of the forecast's range.
func TestJobsEstimate(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "limit", args: []string{"jobs", "--pool", "research", "--estimate", "limit"}, out: `POS  ID  NAME          STATE    POOL      PROJECT  SLOTS  TASKS  START   REASON
-    3   llm-pretrain  running  research  vision   8      2/2    -       -
1    5   asha          queued   research  nlp      1      4/20   ~in 2h  needs 1 slot, 0 free
`},
		{name: "typical", args: []string{"jobs", "--pool", "research", "--estimate", "typical"}, out: `POS  ID  NAME          STATE    POOL      PROJECT  SLOTS  TASKS  START   REASON
-    3   llm-pretrain  running  research  vision   8      2/2    -       -
1    5   asha          queued   research  nlp      1      4/20   ~in 1h  needs 1 slot, 0 free
`},
		{name: "bad", args: []string{"jobs", "--estimate", "p99"}, err: `--estimate: expected one of range, limit, typical, got "p99"`},
	})
}

// completedYAML is allot jobs --state completed -o yaml on the fake master.
const completedYAML = `- id: 2
  name: old-eval
  kind: command
  state: completed
  project: nlp
  user: bo
  pool: batch
  slots: 2
  tasks: 1
  running: 0
  priority: 42
  weight: 1
  preemptible: false
  entrypoint: ""
  submitted_at: "2024-05-01T09:00:00Z"
  ended_at: "2024-05-01T10:00:00Z"
`

func TestJobs(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "live jobs by default", args: []string{"jobs"}, out: queueTable},
		{name: "all", args: []string{"jobs", "--all"}, out: `POS  ID  NAME          STATE      POOL      PROJECT  SLOTS  TASKS  START         REASON
-    3   llm-pretrain  running    research  vision   8      2/2    -             -
1    5   asha          queued     research  nlp      1      4/20   ~in 1h to 2h  needs 1 slot, 0 free
2    6   notebook      queued     batch     vision   1      0/1    -             behind job 5
-    2   old-eval      completed  batch     nlp      2      0/1    -             -
`},
		{name: "pool", args: []string{"jobs", "--pool", "batch", "--all"}, out: `POS  ID  NAME      STATE      POOL   PROJECT  SLOTS  TASKS  START  REASON
2    6   notebook  queued     batch  vision   1      0/1    -      behind job 5
-    2   old-eval  completed  batch  nlp      2      0/1    -      -
`},
		{name: "pool by squeue's -p", args: []string{"jobs", "-p", "batch", "--all"}, out: `POS  ID  NAME      STATE      POOL   PROJECT  SLOTS  TASKS  START  REASON
2    6   notebook  queued     batch  vision   1      0/1    -      behind job 5
-    2   old-eval  completed  batch  nlp      2      0/1    -      -
`},
		{name: "project and user", args: []string{"jobs", "--project", "vision", "--user", "ana", "--state", "queued"}, out: `POS  ID  NAME      STATE   POOL   PROJECT  SLOTS  TASKS  START  REASON
2    6   notebook  queued  batch  vision   1      0/1    -      behind job 5
`},
		{name: "a terminal state without --all", args: []string{"jobs", "--state", "completed", "-o", "yaml"}, out: completedYAML},
		{name: "nothing matches", args: []string{"jobs", "--project", "ml", "-o", "json"}, out: "[]\n"},
		{name: "empty table", args: []string{"jobs", "--project", "ml"}, out: "POS  ID  NAME  STATE  POOL  PROJECT  SLOTS  TASKS  START  REASON\n"},
		{name: "sub-projects", args: []string{"jobs", "--project", "ml", "--subprojects"}, out: `POS  ID  NAME          STATE    POOL      PROJECT  SLOTS  TASKS  START         REASON
-    3   llm-pretrain  running  research  vision   8      2/2    -             -
1    5   asha          queued   research  nlp      1      4/20   ~in 1h to 2h  needs 1 slot, 0 free
2    6   notebook      queued   batch     vision   1      0/1    -             behind job 5
`},
		{name: "sub-projects without a project", args: []string{"jobs", "--subprojects"}, err: `--subprojects: needs --project`},
		{name: "unknown pool", args: []string{"jobs", "--pool", "nosuch"},
			err: `master: 400 Bad Request: pool "nosuch": no such pool (pools: research, batch)`},
		{name: "unknown node", args: []string{"jobs", "--node", "nosuch"},
			err: `node "nosuch": no such node (nodes: dgx-1, dgx-2)`},
		{name: "node", args: []string{"jobs", "--node", "dgx-2"}, out: `POS  ID  NAME          STATE    POOL      PROJECT  SLOTS  TASKS  START  REASON
-    3   llm-pretrain  running  research  vision   8      2/2    -      -
`},
		{name: "wide", args: []string{"jobs", "-o", "wide"}, out: `POS  ID  NAME          STATE    POOL      PROJECT  USER  PRIORITY     WEIGHT  AGE  SLOTS  TASKS  START         ELAPSED  LIMIT  ENDS  NODES  REASON
-    3   llm-pretrain  running  research  vision   ana   20 (HIGH)    1       0s   8      2/2    -             -        -      -     -      -
1    5   asha          queued   research  nlp      bo    42 (NORMAL)  2.5     0s   1      4/20   ~in 1h to 2h  -        -      -     -      needs 1 slot, 0 free
2    6   notebook      queued   batch     vision   ana   30 (NORMAL)  1       0s   1      0/1    -             -        -      -     -      behind job 5
`},
		{name: "squeue's pending and -u", args: []string{"jobs", "--project", "vision", "-u", "ana", "--state", "pending"}, out: `POS  ID  NAME      STATE   POOL   PROJECT  SLOTS  TASKS  START  REASON
2    6   notebook  queued  batch  vision   1      0/1    -      behind job 5
`},
		{name: "squeue's PD", args: []string{"jobs", "--pool", "batch", "--state", "PD"}, out: `POS  ID  NAME      STATE   POOL   PROJECT  SLOTS  TASKS  START  REASON
2    6   notebook  queued  batch  vision   1      0/1    -      behind job 5
`},
		{name: "squeue's CD", args: []string{"jobs", "--state", "CD", "-o", "yaml"}, out: completedYAML},
		{name: "Slurm's TIMEOUT, with no counterpart", args: []string{"jobs", "--state", "TO"},
			err: `--state: expected one of queued, held, running, killing, completed, failed, killed (or Slurm's pending, PD, R, CG, CD, F, CA, or all), got "TO"`},
		{name: "bad state", args: []string{"jobs", "--state", "done"}, err: `--state: expected one of queued, held, running, killing, completed, failed, killed (or Slurm's pending, PD, R, CG, CD, F, CA, or all), got "done"`},
		{name: "resizing, a shown state only", args: []string{"jobs", "--state", "resizing"},
			err: `--state: a job shown resizing is stored running, and --state running lists it`},
		{name: "moving, a shown state only", args: []string{"jobs", "--state", "Moving"},
			err: `--state: a job shown moving is stored running, and --state running lists it`},
		{name: "preempting, a shown state only", args: []string{"jobs", "--state", "preempting"},
			err: `--state: a job shown preempting is stored running, and --state running lists it`},
		{name: "bad output", args: []string{"jobs", "-o", "xml"}, err: `--output: expected one of table, wide, json, yaml, got "xml"`},
		{name: "arguments", args: []string{"jobs", "3"}, err: `allot jobs: unexpected argument "3": it takes no arguments (allot jobs)`},
	})
	// The filters went to the master too.
	for _, want := range []string{
		"GET /api/v1/jobs?project=vision&state=queued&user=ana",
		"GET /api/v1/jobs?project=ml&state=queued%2Crunning%2Ckilling&subprojects=true",
		// live jobs in one answer, ended ones a page at a time
		"GET /api/v1/jobs?state=queued%2Crunning%2Ckilling",
		"GET /api/v1/jobs?limit=500&state=completed%2Cfailed%2Ckilled",
		"GET /api/v1/jobs?limit=500&state=completed",
		"GET /api/v1/jobs?pool=batch&state=queued",
	} {
		if !slices.Contains(f.requests, want) {
			t.Errorf("no request %q among %q", want, f.requests)
		}
	}
}

func TestJobsJSON(t *testing.T) {
	f := newFakeMaster(t)
	out, _, err := runAt(t, f, "jobs", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var jobs []api.Job
	if err := json.Unmarshal([]byte(out), &jobs); err != nil {
		t.Fatalf("-o json is not a JSON array of jobs: %v\n%s", err, out)
	}
	if len(jobs) != 3 || jobs[1].ID != 5 || jobs[1].Name != "asha" || jobs[1].State != "queued" ||
		jobs[1].Project != "nlp" || jobs[1].Pool != "research" || jobs[1].Slots != 1 || jobs[1].Pending.BlockedBy != 3 {
		t.Errorf("jobs = %+v", jobs)
	}
	// -o yaml shows the same objects under the same names.
	out, _, err = runAt(t, f, "jobs", "-o", "yaml")
	if err != nil {
		t.Fatal(err)
	}
	var fromYAML []map[string]any
	if err := yaml.Unmarshal([]byte(out), &fromYAML); err != nil {
		t.Fatal(err)
	}
	if len(fromYAML) != 3 || fromYAML[1]["id"] != 5 || fromYAML[1]["pending"].(map[string]any)["reason"] != "no_capacity" {
		t.Errorf("yaml = %v", fromYAML)
	}
}

const showRunning = `ID           3
Name         llm-pretrain
Kind         experiment
State        running
Pool         research
Project      vision
User         ana
Priority     20 (HIGH)
Weight       1
Preemptible  yes
Slots        8 per task
Tasks        2 running of 2
Time limit   none
Submitted    2024-05-01 10:00:00
Ended        -
Entrypoint   python train.py

TASK  STATE    RESTARTS  ATTEMPT  PLACEMENT             STARTED              ENDED                END        EXIT  REASON
0     running  1         1        dgx-1:0-7             2024-05-01 10:00:00  2024-05-01 11:00:00  preempted  143   preempted for job 5
                         2        dgx-2:0-7             2024-05-01 11:01:00  -                    -          -     -
1     running  0         1        dgx-1:0-3 dgx-2:8,10  2024-05-01 10:00:00  -                    -          -     -
`

func TestJobShow(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	f.jobs[1].TimeLimitS = 5400
	f.jobs[1].Environment = map[string]string{"B": "2", "A": "1"}
	f.jobs[1].OnPreempt, f.jobs[1].MaxRetries = "reschedule", new(int)
	*f.jobs[1].MaxRetries = 2
	f.jobs[1].TaskList = []api.Task{{Index: 0, State: "queued", Reason: "waiting"}}
	f.jobs[3].Entrypoint = "set -e\nfor s in 1 2; do\n  python eval.py --split $s\ndone\n"
	// Job 6 reads back its job file's hints; job 3, elastic, runs shrunk.
	f.jobs[2].MaxSlots, f.jobs[2].GPU, f.jobs[2].Topology, f.jobs[2].QOS, f.jobs[2].Nice = 4, "a100", "required", "high", 5
	f.jobs[2].Licenses, f.jobs[2].CheckpointEvery = map[string]int{"matlab": 1, "abaqus": 2}, 1800
	f.jobs[0].MinSlots, f.jobs[0].Holding = 2, 12
	elastic := strings.Replace(showRunning, "Slots        8 per task\nTasks        2 running of 2\n",
		"Slots        8 per task, elastic down to 2\nTasks        2 running of 2\nHolding      12 GPUs now\n", 1)
	runCLICases(t, f, []cliCase{
		{name: "attempts and placement", args: []string{"job", "show", "3"}, out: elastic},
		{name: "hints", args: []string{"job", "show", "6"}, out: `ID           6
Name         notebook
Kind         notebook
State        queued
Pending      behind: behind job 5
Position     2 in pool batch
Pool         batch
Project      vision
User         ana
Priority     30 (NORMAL)
Weight       1
Preemptible  no
Slots        1 per task
Tasks        0 running of 1
Max slots    4
GPU type     a100
Topology     required
Licenses     abaqus=2, matlab=1 per task
QOS          high
Nice         5
Checkpoints  every 30m
Time limit   none
Submitted    2024-05-01 10:02:00
Ended        -
Entrypoint   
`},
		{name: "pending", args: []string{"job", "show", "5"}, out: `ID           5
Name         asha
Kind         experiment
State        queued
Pending      no_capacity: needs 1 slot, 0 free (blocked by job 3; estimated start 2024-05-01 11:00:00 to 2024-05-01 12:00:00, a forecast)
Position     1 in pool research
Pool         research
Project      nlp
User         bo
Priority     42 (NORMAL)
Weight       2.5
Preemptible  yes
On preempt   reschedule, max_retries 2
Slots        1 per task
Tasks        4 running of 20
Time limit   1h30m
Submitted    2024-05-01 10:01:00
Ended        -
Entrypoint   python asha.py
Environment  A=1 B=2

TASK  STATE   RESTARTS  ATTEMPT  PLACEMENT  STARTED  ENDED  END  EXIT  REASON
0     queued  0         -        -          -        -      -    -     waiting
`},
		{name: "ended", args: []string{"job", "show", "2"}, out: `ID           2
Name         old-eval
Kind         command
State        completed
Pool         batch
Project      nlp
User         bo
Priority     42 (NORMAL)
Weight       1
Preemptible  no
Slots        2 per task
Tasks        0 running of 1
Time limit   none
Submitted    2024-05-01 09:00:00
Ended        2024-05-01 10:00:00
Entrypoint   set -e
             for s in 1 2; do
               python eval.py --split $s
             done
`},
		{name: "unknown job", args: []string{"job", "show", "99"}, err: "master: 404 Not Found: job 99 does not exist"},
		{name: "id not a number", args: []string{"job", "show", "abc"}, err: `job ID: expected a positive integer, got "abc"`},
		{name: "id zero", args: []string{"job", "show", "0"}, err: `job ID: expected a positive integer, got "0"`},
		{name: "id negative", args: []string{"job", "show", "--", "-3"}, err: `job ID: expected a positive integer, got "-3"`},
		{name: "no id", args: []string{"job", "show"}, err: "allot job show: expected a job ID (allot job show ID)"},
	})
	out, _, err := runAt(t, f, "job", "show", "3", "-o", "json")
	var j api.Job
	if err != nil || json.Unmarshal([]byte(out), &j) != nil || len(j.TaskList) != 2 || j.TaskList[0].Attempts[0].EndState != "preempted" {
		t.Errorf("job show -o json: %v\n%s", err, out)
	}
}

// TestJobChangesMultifactorNote: set-priority and set-weight of a job in
// a multifactor pool, whose order reads neither, say so on stderr (their
// output reads as if they had moved the job); elsewhere TestJobChanges
// prints nothing there.
func TestJobChangesMultifactorNote(t *testing.T) {
	f := newFakeMaster(t)
	var pool string
	for _, j := range f.jobs {
		if j.ID == 5 {
			pool = j.Pool
		}
	}
	for i := range f.pools {
		if f.pools[i].Name == pool {
			f.pools[i].Policy = "multifactor"
		}
	}
	note := func(what, extra string) string {
		return "note: pool " + pool + " orders its queue by multifactor priority (age, fair share, job size, QOS, pool, less nice), " +
			"which does not read a job's " + what + ": job 5 keeps its place in the queue." + extra +
			" Its qos and nice set that place (allot job update 5 --qos/--nice changes them; allot explain 5 shows its factors).\n"
	}
	runCLICases(t, f, []cliCase{
		{name: "priority", args: []string{"job", "set-priority", "5", "12"}, out: "job 5 (asha): priority 12 (HIGH)\n",
			errOut: note("priority (1-99)", " (A move into or out of LOW still makes it preemptible or not.)")},
		{name: "weight", args: []string{"job", "set-weight", "5", "2"}, out: "job 5 (asha): weight 2\n",
			errOut: note("fair-share weight", "")},
	})
}

func TestJobChanges(t *testing.T) {
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "priority number", args: []string{"job", "set-priority", "5", "12"}, out: "job 5 (asha): priority 12 (HIGH)\n"},
		{name: "priority class", args: []string{"job", "set-priority", "5", "low"}, out: "job 5 (asha): priority 80 (LOW)\n"},
		{name: "priority too high", args: []string{"job", "set-priority", "5", "100"}, err: "priority: expected 1 to 99 (lower is more important), got 100"},
		{name: "priority zero", args: []string{"job", "set-priority", "5", "0"}, err: "priority: expected 1 to 99"},
		{name: "priority word", args: []string{"job", "set-priority", "5", "urgent"}, err: `priority: expected a number from 1 to 99 or one of HIGH, NORMAL, LOW, got "urgent"`},
		{name: "weight", args: []string{"job", "set-weight", "5", "0.5"}, out: "job 5 (asha): weight 0.5\n"},
		{name: "weight negative", args: []string{"job", "set-weight", "5", "--", "-1"}, err: `weight: expected a number > 0, got "-1"`},
		{name: "weight zero", args: []string{"job", "set-weight", "5", "0"}, err: `weight: expected a number > 0, got "0"`},
		{name: "weight NaN", args: []string{"job", "set-weight", "5", "NaN"}, err: `weight: expected a number > 0, got "NaN"`},
		{name: "weight infinite", args: []string{"job", "set-weight", "5", "inf"}, err: `weight: expected a number > 0, got "inf"`},
		{name: "weight word", args: []string{"job", "set-weight", "5", "heavy"}, err: `weight: expected a number > 0, got "heavy"`},
		{name: "weight of an unknown job", args: []string{"job", "set-weight", "77", "2"}, err: "master: 404 Not Found: job 77 does not exist"},
		{name: "kill", args: []string{"job", "kill", "6"}, out: "job 6 (notebook): killed\n"},
		{name: "kill again", args: []string{"job", "kill", "6"}, out: "job 6 (notebook) was already killed\n"},
		{name: "kill of a completed job", args: []string{"job", "kill", "2"}, out: "job 2 (old-eval) had already ended: completed\n"},
	})
	want := []string{`{"priority":12}`, `{"priority_class":"LOW"}`, `{"weight":0.5}`}
	var patches []string
	for i, r := range f.requests {
		if strings.HasPrefix(r, "PATCH /api/v1/jobs/5") {
			patches = append(patches, f.bodies[i])
		}
	}
	if strings.Join(patches, " ") != strings.Join(want, " ") {
		t.Errorf("PATCH bodies = %q, want %q", patches, want)
	}
	// Invalid arguments send nothing. (Each update also reads the pools,
	// for multifactorNote, and a priority change the job first, for
	// preemptibleNote.)
	changes := slices.DeleteFunc(slices.Clone(f.requests), func(r string) bool {
		return r == "GET /api/v1/pools" || strings.HasPrefix(r, "GET /api/v1/jobs/")
	})
	if n := len(changes); n != 7 {
		t.Errorf("%d requests, want 7 (3 updates, 1 refused update, 3 kills): %q", n, f.requests)
	}
	// -o json and yaml print the master's KillReply: the job's fields, and
	// already_ended for a job that had ended, as the text output says.
	for _, c := range []struct {
		name, id, format string
		ended            bool
	}{
		{name: "json of a kill", id: "5", format: "json"},
		{name: "json of a repeated kill", id: "5", format: "json", ended: true},
		{name: "json of a completed job", id: "2", format: "json", ended: true},
		{name: "yaml of a completed job", id: "2", format: "yaml", ended: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := runAt(t, f, "job", "kill", c.id, "-o", c.format)
			if err != nil {
				t.Fatalf("job kill %s -o %s: %v\n%s", c.id, c.format, err, out)
			}
			if c.format == "yaml" {
				if got := strings.Contains(out, "already_ended: true\n"); got != c.ended {
					t.Errorf("already_ended shown %v, want %v:\n%s", got, c.ended, out)
				}
				return
			}
			var r api.KillReply
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("not a KillReply: %v\n%s", err, out)
			}
			if r.AlreadyEnded != c.ended || r.ID == 0 || r.Name == "" {
				t.Errorf("reply = %+v, want already_ended %v and the job's fields:\n%s", r, c.ended, out)
			}
			if c.id == "5" && (r.State != "killed" || r.Weight != 0.5) {
				t.Errorf("job 5: state %q weight %v, want killed 0.5", r.State, r.Weight)
			}
		})
	}
}

// TestJSONKeepsShellText: -o json prints an entrypoint's >, < and & as
// they are, not as \u003e escapes, so it reads as the job file wrote it.
func TestJSONKeepsShellText(t *testing.T) {
	for _, tc := range []struct{ name, entrypoint string }{
		{"redirect", "python train.py > out.log 2>&1"},
		{"background and input", "serve < in.txt & wait"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := writeJSON(&b, api.Job{ID: 1, Entrypoint: tc.entrypoint}); err != nil {
				t.Fatal(err)
			}
			if want := `"entrypoint": "` + tc.entrypoint + `"`; !strings.Contains(b.String(), want) {
				t.Errorf("output lacks %s:\n%s", want, b.String())
			}
		})
	}
}

// TestJobShowTimeLimit: the time limit reads as a job file writes it,
// exactly, without Go's trailing zero units.
func TestJobShowTimeLimit(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    int64
		want string
	}{
		{"none", 0, "none"},
		{"minutes", 600, "10m"},
		{"hours and minutes", 5400, "1h30m"},
		{"to the second", 5405, "1h30m5s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := printJob(&b, api.Job{ID: 1, Name: "a", TimeLimitS: tc.s}); err != nil {
				t.Fatal(err)
			}
			if want := "Time limit   " + tc.want + "\n"; !strings.Contains(b.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, b.String())
			}
		})
	}
}

// TestJobsStartCountsFromAsOf: START counts from the master's as_of, the
// time the reason's message counts from, not from the client's clock read
// a moment later, so that the two columns agree; without as_of (an older
// master), from the client's clock.
func TestJobsStartCountsFromAsOf(t *testing.T) {
	fixClock(t) // the client's clock: t0
	start, early := t0.Add(10*time.Minute), t0.Add(5*time.Minute)
	tests := []struct {
		name     string
		asOf     *time.Time
		forecast bool
		want     string // START
	}{
		{"reservation, as of a second before the client's clock", ptr(t0.Add(-time.Second)), false, "in 10m 1s"},
		{"reservation, as of the client's clock", ptr(t0), false, "in 10m"},
		{"reservation, no as_of", nil, false, "in 10m"},
		{"forecast range, as of a second before", ptr(t0.Add(-time.Second)), true, "~in 5m 1s to 10m 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &api.Pending{Reason: "reserved", Message: "head of the queue, needs 4 slots; reserved to start in 10m 1s",
				EstimatedStart: &start, EstimateBasis: "reservation", AsOf: tt.asOf}
			if tt.forecast {
				p.EstimateBasis, p.EstimatedStartEarliest = "forecast", &early
			}
			j := api.Job{ID: 7, Name: "big", State: "queued", Pool: "research", Project: "ml", Slots: 4, Tasks: 1, Position: 1, Pending: p}
			var b bytes.Buffer
			if err := printJobs(&b, []api.Job{j}, client.JobFilter{}, jobsFlags{estimate: "range"}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "  "+tt.want+"  ") {
				t.Errorf("START is not %q:\n%s", tt.want, b.String())
			}
		})
	}
}

// TestReadNote: a listing by project where the caller has no role says
// on stderr that only the caller's own jobs there are listed, for allot
// jobs (with the projects under it, with --subprojects) and allot
// history; a listing of another user's jobs or usage says where the
// caller reads them; nothing where the caller reads them all.
func TestReadNote(t *testing.T) {
	fixClock(t)
	note := func(projects, first string) string {
		return "note: ana has no role in " + projects + ", so only ana's own jobs there are listed " +
			"(allot whoami shows ana's roles; an admin grants one with: allot user role ana --role " + first + "=viewer)\n"
	}
	member := &api.Whoami{User: "ana", Roles: map[string]string{"vision": "member"}}
	userNote := "note: ana has a role in project vision only, so bo's jobs elsewhere are not listed " +
		"(allot whoami shows ana's roles; an admin grants one with: allot user role ana --role PROJECT=viewer)\n"
	for _, c := range []struct {
		name string
		who  *api.Whoami
		args []string
		want string
	}{
		{"no role in the project", member, []string{"jobs", "--project", "nlp"}, note("project nlp", "nlp")},
		{"json too", member, []string{"jobs", "--project", "nlp", "-o", "json"}, note("project nlp", "nlp")},
		{"a role there", member, []string{"jobs", "--project", "vision"}, ""},
		{"her own jobs asked for", member, []string{"jobs", "--project", "nlp", "--user", "ana"}, ""},
		{"subprojects: those without a role", member, []string{"jobs", "--project", "ml", "--subprojects"}, note("projects ml, nlp", "ml")},
		{"no project", member, []string{"jobs"}, ""},
		{"history", member, []string{"history", "--project", "nlp"}, note("project nlp", "nlp")},
		{"an admin", &api.Whoami{User: "root", Admin: true}, []string{"jobs", "--project", "nlp"}, ""},
		{"a role in every project", &api.Whoami{User: "ana", Roles: map[string]string{"*": "viewer"}}, []string{"history", "--project", "nlp"}, ""},
		{"a master without whoami", nil, []string{"jobs", "--project", "nlp"}, ""},
		{"another user's jobs", member, []string{"jobs", "--user", "bo"}, userNote},
		{"another user's history", member, []string{"history", "-u", "bo"}, userNote},
		{"another user's usage", member, []string{"usage", "-u", "bo"}, userNote},
		{"her own usage", member, []string{"usage", "-u", "ana"}, ""},
		{"another user's, as an admin", &api.Whoami{User: "root", Admin: true}, []string{"usage", "-u", "bo"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeMaster(t)
			f.who = c.who
			_, errOut, err := runAt(t, f, c.args...)
			if err != nil || errOut != c.want {
				t.Errorf("stderr %q (%v), want %q", errOut, err, c.want)
			}
		})
	}
}

// TestStartText: START's forecast range reads "now to ..." once its early
// end is past, not "in 0s-...", which would say the job starts now.
func TestStartText(t *testing.T) {
	ref := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { x := ref.Add(d); return &x }
	for _, c := range []struct {
		name        string
		late, early time.Duration
		kind, basis string
		want        string
	}{
		{"a range ahead", 2 * time.Hour, time.Hour, "range", "forecast", "~in 1h to 2h"},
		{"a range whose early end is past", 5*time.Minute + 45*time.Second, -time.Minute, "range", "forecast", "~now to 5m 45s"},
		{"a range whose early end is now", 5 * time.Minute, 0, "range", "forecast", "~now to 5m"},
		{"typical, past", 5 * time.Minute, -time.Minute, "typical", "forecast", "~now"},
		{"a reservation", 10 * time.Minute, 0, "range", "reservation", "in 10m"},
		{"checkpoints due within their grace", 20 * time.Second, 0, "range", "checkpoint", "in ≤20s"},
		{"checkpoints due now", 0, 0, "range", "checkpoint", "now"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &api.Pending{EstimatedStart: at(c.late), EstimateBasis: c.basis, AsOf: &ref}
			if c.basis == "forecast" {
				p.EstimatedStartEarliest = at(c.early)
			}
			if got := startText(api.Job{Pending: p}, c.kind, ref); got != c.want {
				t.Errorf("START %q, want %q", got, c.want)
			}
		})
	}
}

// TestStartedText: a running job's START is when it started, counted
// back (squeue's START_TIME of a running job), not "-".
func TestStartedText(t *testing.T) {
	ref := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		ago  time.Duration
		want string
	}{
		{"minutes ago", 12*time.Minute + 30*time.Second, "12m 30s ago"},
		{"hours ago", 2*time.Hour + 5*time.Minute, "2h 5m ago"},
		{"this second", 0, "now"},
		{"a master clock ahead", -3 * time.Second, "now"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := startedText(ref.Add(-c.ago), ref); got != c.want {
				t.Errorf("START %q, want %q", got, c.want)
			}
		})
	}
	started, queuedAt := ref.Add(-8*time.Second+300*time.Millisecond), ref.Add(-8*time.Second+700*time.Millisecond)
	waiting := &api.Pending{Reason: "max_concurrent", EstimatedStart: nil, AsOf: &ref}
	soon := ref.Add(time.Minute)
	for _, c := range []struct {
		name string
		job  api.Job
		want string
	}{
		{"running", api.Job{State: "running", StartedAt: &started}, "7s ago"},
		// Trial 29e E3: trials held by max_concurrent_trials wait with
		// no estimate; the experiment runs all the same.
		{"running with trials waiting", api.Job{State: "running", StartedAt: &started, Pending: waiting}, "7s ago"},
		{"running with tasks due to start", api.Job{State: "running", StartedAt: &started,
			Pending: &api.Pending{EstimatedStart: &soon, EstimateBasis: "reservation", AsOf: &ref}}, "7s ago"},
		{"queued again after a start", api.Job{State: "queued", StartedAt: &started,
			Pending: &api.Pending{EstimatedStart: &soon, EstimateBasis: "reservation", AsOf: &ref}}, "in 1m"},
		{"queued, no estimate", api.Job{State: "queued", SubmittedAt: queuedAt, Pending: waiting}, "-"},
		{"completed", api.Job{State: "completed"}, "-"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := startText(c.job, "range", ref); got != c.want {
				t.Errorf("START %q, want %q", got, c.want)
			}
		})
	}
}

// TestJobAgeAndElapsed (trial 29e E3): AGE and ELAPSED count from one
// time down to the whole second alike, so a job started the instant
// after its submission shows no AGE below its ELAPSED (it showed 7s
// beside 8s), and START says the same as ELAPSED.
func TestJobAgeAndElapsed(t *testing.T) {
	ref := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name                   string
		submitted, started     time.Duration // before ref
		age, elapsed, startCol string
	}{
		{"within a second", 7*time.Second + 900*time.Millisecond, 7*time.Second + 600*time.Millisecond, "7s", "7s", "7s ago"},
		{"across a second", 8*time.Second + 100*time.Millisecond, 7*time.Second + 900*time.Millisecond, "8s", "7s", "7s ago"},
		{"hours", 2*time.Hour + 59*time.Minute, 2*time.Hour + 50*time.Minute, "2h 59m", "2h 50m", "2h 50m ago"},
	} {
		t.Run(c.name, func(t *testing.T) {
			started := ref.Add(-c.started)
			j := api.Job{State: "running", SubmittedAt: ref.Add(-c.submitted), StartedAt: &started}
			age, elapsed, start := jobAge(j.SubmittedAt, ref), wideRunCells(j, ref)[0], startText(j, "range", ref)
			if age != c.age || elapsed != c.elapsed || start != c.startCol {
				t.Errorf("AGE %q, ELAPSED %q, START %q; want %q, %q, %q", age, elapsed, start, c.age, c.elapsed, c.startCol)
			}
		})
	}
}

// TestJobsStateAll (trial 2026-11-29b B10): squeue's -t all is --all,
// in any case, alone or with --all.
func TestJobsStateAll(t *testing.T) {
	fixClock(t)
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"-t all", []string{"jobs", "-t", "all"}},
		{"--state ALL", []string{"jobs", "--state", "ALL"}},
		{"-t all --all", []string{"jobs", "-t", "all", "--all"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeMaster(t)
			want, _, err := runAt(t, f, "jobs", "--all")
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := runAt(t, f, tt.args...)
			if err != nil || got != want {
				t.Errorf("allot %s: %v\n%s\nwant allot jobs --all's:\n%s", strings.Join(tt.args, " "), err, got, want)
			}
		})
	}
}
