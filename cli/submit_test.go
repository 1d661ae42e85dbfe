package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/jobfile"
)

const sweepFile = `name: sweep
entrypoint: python train.py
resources: {slots: 2, priority_class: LOW}
hyperparameters:
  lr: [0.1, 0.01, 0.001]
`

func writeTestFile(t *testing.T, name, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSubmit(t *testing.T) {
	f := newFakeMaster(t)
	good := writeTestFile(t, "sweep.yaml", sweepFile)
	bad := writeTestFile(t, "bad.yaml", "name: x\nentrypoint: y\nresources:\n  slots: -1\n")
	tpu := writeTestFile(t, "tpu.yaml", "name: x\nentrypoint: y\npool: tpu\n")
	v100 := writeTestFile(t, "v100.yaml", "name: x\nentrypoint: y\nresources:\n  slots: 2\n  gpu: v100\n")
	wide := writeTestFile(t, "wide.yaml", "name: x\nresources: {slots: 32}\nentrypoint: y\n")
	runCLICases(t, f, []cliCase{
		{name: "prints the id alone", args: []string{"submit", good}, out: "104\n"},
		{name: "checked locally", args: []string{"submit", bad}, err: bad + ":4: resources.slots: expected an integer >= 0, got -1"},
		{name: "refused by the master, at the field's line", args: []string{"submit", tpu},
			err: tpu + `:3: pool: unknown pool "tpu" (pools: research, batch) (master: 400 Bad Request)`},
		{name: "a GPU type no node has, at its line", args: []string{"submit", v100},
			err: v100 + `:5: resources.gpu: job "x" can never run: no node of pool research has GPU type "v100". ` +
				"Submit it with allow_infeasible=true (allot submit --allow-infeasible) to queue it anyway. (master: 422 Unprocessable Entity)"},
		{name: "too many slots, in a flow mapping", args: []string{"submit", wide}, err: wide + `:2: resources.slots: job "x" can never run: a task needs 32 slots`},
		{name: "missing file", args: []string{"submit", filepath.Join(t.TempDir(), "nope.yaml")}, err: "load job file: open "},
		{name: "no file", args: []string{"submit"}, err: "allot submit: expected a file (allot submit FILE)"},
	})
	// Only the files that parse were sent; the spec is the parsed
	// job as JSON, which the master parses back to the same job.
	var posts []string
	for i, r := range f.requests {
		if r == "POST /api/v1/jobs" {
			posts = append(posts, f.bodies[i])
		}
	}
	if len(posts) != 4 {
		t.Fatalf("%d submissions sent, want 4: %q", len(posts), f.requests)
	}
	sent, err := jobfile.ParseJSON("sent", []byte(posts[0]))
	if err != nil {
		t.Fatal(err)
	}
	local, _ := jobfile.Parse("local", []byte(sweepFile))
	a, _ := json.Marshal(sent)
	b, _ := json.Marshal(local)
	if !bytes.Equal(a, b) || sent.Resources.Priority != 80 || !sent.Resources.Preemptible {
		t.Errorf("sent spec %s\nwant %s", a, b)
	}
}

func TestSubmitStdin(t *testing.T) {
	f := newFakeMaster(t)
	root := New()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetIn(strings.NewReader(sweepFile))
	root.SetArgs([]string{"--master", f.srv.URL, "submit", "-"})
	if err := root.Execute(); err != nil || out.String() != "104\n" {
		t.Errorf("submit - = %q, %v", out.String(), err)
	}
	root = New()
	root.SetOut(&out)
	root.SetIn(strings.NewReader("name: x\n"))
	root.SetArgs([]string{"--master", f.srv.URL, "submit", "-"})
	if err := root.Execute(); err == nil || !strings.HasPrefix(err.Error(), `stdin:1: missing required field "entrypoint"`) {
		t.Errorf("submit - of a bad file: %v", err)
	}
	// What the master refuses is at its line of stdin too.
	root = New()
	root.SetOut(&out)
	root.SetIn(strings.NewReader("name: x\nentrypoint: y\npool: tpu\n"))
	root.SetArgs([]string{"--master", f.srv.URL, "submit", "-"})
	if err := root.Execute(); err == nil || !strings.HasPrefix(err.Error(), `stdin:3: pool: unknown pool "tpu"`) {
		t.Errorf("submit - refused by the master: %v", err)
	}
}

func TestMasterAddress(t *testing.T) {
	f := newFakeMaster(t)
	// A closed listener's address: nobody serves it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()

	t.Setenv(MasterEnv, f.srv.URL)
	if out, _, err := run(t, "pools", "-o", "json"); err != nil || !strings.Contains(out, `"research"`) {
		t.Errorf("with %s: %q, %v", MasterEnv, out, err)
	}
	// --master wins over the environment.
	_, _, err = run(t, "--master", dead, "pools")
	want := "cannot reach the master at http://" + dead + " (set --master or ALLOT_MASTER to another address)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("unreachable master: %v\nwant it to contain %q", err, want)
	}
	var ce *client.Error
	if errors.As(err, &ce) {
		t.Error("an unreachable master gave a response error")
	}
	t.Setenv(MasterEnv, dead)
	if _, _, err := run(t, "jobs"); err == nil || !strings.Contains(err.Error(), "http://"+dead) {
		t.Errorf("the environment's address is not used: %v", err)
	}
	if _, _, err := run(t, "--master", "ftp://x", "jobs"); err == nil ||
		!strings.Contains(err.Error(), `--master: master address "ftp://x": expected a URL such as http://127.0.0.1:8080 or host:port`) {
		t.Errorf("bad address: %v", err)
	}
	t.Setenv(MasterEnv, "")
	t.Setenv(ConfigEnv, filepath.Join(t.TempDir(), "credentials.json"))
	if got := masterAddr(New()); got != DefaultMaster {
		t.Errorf("default master = %q", got)
	}
	// After allot login, its master is the default, with its token.
	if _, err := saveLogin("10.0.0.9:8080", "allot_u_x", ""); err != nil {
		t.Fatal(err)
	}
	if got := masterAddr(New()); got != "http://10.0.0.9:8080" {
		t.Errorf("master after login = %q", got)
	}
	t.Setenv(MasterEnv, dead)
	if got := masterAddr(New()); got != dead {
		t.Errorf("ALLOT_MASTER does not win over the login's master: %q", got)
	}
}

// TestConfigReload: allot config reload says the configuration was
// reloaded, and prints the master's warnings (a pool left with live jobs
// but no node) on stderr; a master that answers 204 with no body (before
// its reply had warnings) reads as a reload without any.
func TestConfigReload(t *testing.T) {
	warning := "pool batch has no node now; jobs 2 (running on gpu-b, now in train) and 3 (queued) are in it"
	changes := []string{"pool hpc: reservations easy → conservative", "qos high removed", "license x added (total 2)"}
	for _, tc := range []struct {
		name     string
		warnings []string
		changes  []string
		stdout   string
		stderr   string
	}{
		{"an older master", nil, nil, "", ""},
		{"no warning", []string{}, nil, "", ""},
		{"a pool left without nodes", []string{warning}, nil, "", "warning: " + warning + "\n"},
		// Each change is said as what the reload did (trial 29h: "changed:
		// qos high removed" read wrong).
		{"changes", []string{}, changes,
			"  changed pool hpc: reservations easy → conservative\n  removed qos high\n  added license x (total 2)\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeMaster(t)
			f.reloadWarnings, f.reloadChanges = tc.warnings, tc.changes
			out, errOut, err := runAt(t, f, "config", "reload")
			if want := "configuration reloaded\n" + tc.stdout; err != nil || out != want || errOut != tc.stderr || f.reloads != 1 {
				t.Errorf("config reload = %q, stderr %q, %v, %d reloads; want %q, stderr %q", out, errOut, err, f.reloads, want, tc.stderr)
			}
		})
	}
}

// TestSubmitDryRun: --dry-run (and --test-only) prints what a submission
// would get and submits nothing; a refusal is the submission's error.
func TestSubmitDryRun(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	small := writeTestFile(t, "small.yaml", "name: small\nentrypoint: e\nresources: {slots: 2}\n")
	big := writeTestFile(t, "big.yaml", "name: big\nentrypoint: e\nresources: {slots: 8, time_limit: 3600}\n")
	tpu := writeTestFile(t, "tpu.yaml", "name: x\nentrypoint: y\npool: tpu\n")
	urgent := writeTestFile(t, "urgent.yaml", "name: urgent\nentrypoint: e\nresources: {slots: 8}\n")
	huge := writeTestFile(t, "huge.yaml", "name: huge\nentrypoint: e\nresources: {slots: 16}\n")
	before := len(f.jobs)
	runCLICases(t, f, []cliCase{
		{name: "would start now", args: []string{"submit", "--dry-run", small}, out: `Dry run: job small would be accepted (pool research, project vision, 1 task of 2 slots)

It would be accepted in pool research as the 1st of 2 waiting. It would
start now.

Time limit: none
Queue:      1 of 2
Start:      now
Nothing was submitted.
`},
		{name: "would wait, with --test-only", args: []string{"submit", "--test-only", big}, out: `Dry run: job big would be accepted (pool research, project vision, 1 task of 8 slots)

It would be accepted in pool research as the 2nd of 2 waiting. It would
wait: needs 8 slots per task, 2 are free in the pool. It could start on
gpu-1 once job 7 ends.

Time limit: 1h
Queue:      2 of 2
Reason:     no_capacity: needs 8 slots per task, 2 are free in the pool
Start:      2024-05-01 11:00 (in 1h), a forecast

What would let it start now:
  on gpu-1, once these end:
  JOB  NAME   USER  PROJECT  SLOTS  LIMIT ENDS
  7    sweep  bo    vision   6      2024-05-01 11:00 (in 1h)
Nothing was submitted.
`},
		{name: "would never start on today's nodes", args: []string{"submit", "--dry-run", "--allow-infeasible", huge}, out: `Dry run: job huge would be accepted (pool research, project vision, 1 task of 16 slots)

It would be accepted in pool research as the 2nd of 2 waiting. It would
wait: no node in the pool can hold a task of 16 slots. It cannot start on
the nodes up now: job huge can never run: needs 16 slots per task; the
pool's nodes hold 8 together.

Time limit: none
Queue:      2 of 2
Reason:     no_nodes: no node in the pool can hold a task of 16 slots
Start:      never on today's nodes

What would let it start now:
  nothing on today's nodes, as said above
Nothing was submitted.
`},
		{name: "would preempt", args: []string{"submit", "--dry-run", urgent}, out: `Dry run: job urgent would be accepted (pool research, project vision, 1 task of 8 slots)

It would be accepted in pool research as the 1st of 2 waiting. It would
preempt 4 tasks of 1 running job and start once their checkpoints have
landed.

Time limit: none
Queue:      1 of 2
Reason:     checkpointing: slots were freed by preemption; waiting for the preempted tasks to checkpoint (needs 8 slots)
Start:      2024-05-01 10:00 (now), a forecast

Would preempt:
  JOB  NAME   USER  TASKS  SLOTS  WHY
  7    sweep  bo    4      8      priority 10 runs before the preempted job's 80
Nothing was submitted.
`},
		{name: "refused like a submission", args: []string{"submit", "--dry-run", tpu},
			err: tpu + `:3: pool: unknown pool "tpu" (pools: research, batch) (master: 400 Bad Request)`},
		{name: "bad output format", args: []string{"submit", "--dry-run", small, "-o", "xml"}, err: "--output: expected one of"},
	})
	t.Run("json", func(t *testing.T) {
		out, _, err := runAt(t, f, "submit", "--dry-run", big, "-o", "json")
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Accepted  bool `json:"accepted"`
			StartsNow bool `json:"starts_now"`
			Position  int  `json:"position"`
			Pending   *struct {
				Reason string `json:"reason"`
			} `json:"pending"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil || !d.Accepted || d.StartsNow || d.Position != 2 ||
			d.Pending == nil || d.Pending.Reason != "no_capacity" {
			t.Fatalf("json %s (%v)", out, err)
		}
	})
	t.Run("exit codes", func(t *testing.T) {
		for _, c := range []struct {
			name string
			args []string
			want int
		}{
			{"accepted", []string{"submit", "--dry-run", small}, ExitOK},
			{"refused", []string{"submit", "--dry-run", tpu}, ExitError},
		} {
			t.Run(c.name, func(t *testing.T) {
				var out, errOut bytes.Buffer
				if code := Main(append([]string{"--master", f.srv.URL}, c.args...), &out, &errOut); code != c.want {
					t.Fatalf("exit %d (%s), want %d", code, errOut.String(), c.want)
				}
			})
		}
	})
	if len(f.jobs) != before {
		t.Fatalf("%d jobs submitted by dry runs", len(f.jobs)-before)
	}
}

// TestSubmitOverrides: --pool (-p), --project (-A), --name (-J) and --qos
// (-q) replace the job file's, as sbatch's do; a refusal of a field a flag set names
// the flag, not the file's line.
func TestSubmitOverrides(t *testing.T) {
	f := newFakeMaster(t)
	good := writeTestFile(t, "sweep.yaml", sweepFile)
	runCLICases(t, f, []cliCase{
		{name: "long flags", args: []string{"submit", "--pool", "batch", "--project", "nlp", "--name", "sweep-2", good}, out: "104\n"},
		{name: "sbatch's letters", args: []string{"submit", "-p", "batch", "-A", "nlp", "-J", "sweep-3", good}, out: "105\n"},
		{name: "a pool the master refuses, named by its flag", args: []string{"submit", "-p", "tpu", good},
			err: `--pool: unknown pool "tpu" (pools: research, batch) (master: 400 Bad Request)`},
		{name: "an empty name", args: []string{"submit", "-J", " ", good}, err: `--name: expected a name, got " "`},
		{name: "a project the user has no role in, named by its flag", args: []string{"submit", "-A", "audio", good},
			err: `--project: submitting to project "audio" needs the member or lead role there; user:ana has no role (master: 403 Forbidden)`},
		{name: "sbatch's -q", args: []string{"submit", "-q", "high", good}, out: "106\n"},
		{name: "a QOS the project may not use, named by its flag", args: []string{"submit", "--qos", "emergency", good},
			err: `--qos: project vision may not use QOS "emergency" (its qos: normal, high) (master: 400 Bad Request)`},
		{name: "the same in a dry run", args: []string{"submit", "--dry-run", "-q", "emergency", good},
			err: `--qos: project vision may not use QOS "emergency" (its qos: normal, high) (master: 400 Bad Request)`},
		{name: "an empty QOS", args: []string{"submit", "-q", "", good},
			err: `--qos: expected a QOS name, got "" (leave the flag out for the job file's or the default QOS)`},
	})
	var sent []*jobfile.Job
	for i, r := range f.requests {
		if r == "POST /api/v1/jobs" {
			j, err := jobfile.ParseJSON("sent", []byte(f.bodies[i]))
			if err != nil {
				t.Fatal(err)
			}
			sent = append(sent, j)
		}
	}
	if len(sent) != 6 {
		t.Fatalf("%d submissions sent, want 6", len(sent))
	}
	for i, want := range [][4]string{{"batch", "nlp", "sweep-2", ""}, {"batch", "nlp", "sweep-3", ""}, {"tpu", "", "sweep", ""}, {"", "audio", "sweep", ""},
		{"", "", "sweep", "high"}, {"", "", "sweep", "emergency"}} {
		if got := [4]string{sent[i].Pool, sent[i].Project, sent[i].Name, sent[i].Resources.QOS}; got != want {
			t.Errorf("submission %d: pool, project, name, qos %q, want %q", i, got, want)
		}
	}
}

// TestSubmitTimeOverride: --time (-t) replaces the job file's
// resources.time_limit, as sbatch -t does, in the forms job update
// --time-limit takes; a bare number is refused (sbatch reads minutes, a
// job file seconds) before anything is sent.
func TestSubmitTimeOverride(t *testing.T) {
	good := writeTestFile(t, "sweep.yaml", sweepFile)
	cases := []struct {
		name, time string
		want       int64 // the time limit sent, in seconds
		err        string
	}{
		{name: "a unit", time: "2h", want: 7200},
		{name: "Slurm's form", time: "1-00:00:00", want: 86400},
		{name: "none", time: "0", want: 0},
		{name: "a bare number", time: "90", err: "--time 90: a bare number is ambiguous"},
		{name: "not a time", time: "soon", err: "--time:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeMaster(t)
			_, _, err := runAt(t, f, "submit", "-t", c.time, good)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("submit -t %s: %v, want an error with %q", c.time, err, c.err)
				}
				if slices.Contains(f.requests, "POST /api/v1/jobs") {
					t.Fatal("a refused --time still submitted the job")
				}
				return
			}
			if err != nil {
				t.Fatalf("submit -t %s: %v", c.time, err)
			}
			i := slices.Index(f.requests, "POST /api/v1/jobs")
			if i < 0 {
				t.Fatal("nothing submitted")
			}
			j, err := jobfile.ParseJSON("sent", []byte(f.bodies[i]))
			if err != nil {
				t.Fatal(err)
			}
			if j.Resources.TimeLimit != c.want {
				t.Fatalf("time limit sent %d s, want %d", j.Resources.TimeLimit, c.want)
			}
		})
	}
}

// TestSubmitErrorPriorityCap (trial 2026-11-29b B21): the master's
// max_priority_class refusal names the field the file gave, and the CLI
// points at its line, printing the path once.
func TestSubmitErrorPriorityCap(t *testing.T) {
	const file = "name: hi8b\nproject: nlp\nresources:\n  slots: 8\n  priority_class: HIGH\nentrypoint: x\n"
	const why = "project nlp caps its members' jobs at priority class NORMAL (max_priority_class), so HIGH work needs its lead or an admin"
	for _, tt := range []struct {
		name, field, msg, want string
	}{
		{"priority_class", "resources.priority_class", "resources.priority_class: HIGH: " + why,
			"hi8b.yaml:5: resources.priority_class: HIGH: " + why + " (master: 403 Forbidden)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := submitError("submit", "hi8b.yaml", "hi8b.yaml", []byte(file), nil,
				&client.Error{Status: 403, Field: tt.field, Message: tt.msg})
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestSubmitWrap (trial 2026-11-29b B10): allot submit --wrap COMMAND is
// sbatch's one-line job: a command job named wrap of that entrypoint, on
// the file's defaults, which -G, -t, -J, -p and -A set; with a file too,
// or an empty command, it is a usage error, and nothing is sent.
func TestSubmitWrap(t *testing.T) {
	tests := []struct {
		name string
		args []string
		// the job sent; nil: none
		want func(j *jobfile.Job) bool
		err  string
	}{
		{"the defaults", []string{"submit", "--wrap", "python x.py && echo done"}, func(j *jobfile.Job) bool {
			return j.Name == "wrap" && j.Entrypoint == "python x.py && echo done" && j.Resources.Slots == 1 && j.Resources.TimeLimit == 0
		}, ""},
		{"with sbatch's flags", []string{"submit", "-G", "2", "-t", "2h", "-J", "quick", "-p", "batch", "-A", "nlp", "--wrap", "python x.py"},
			func(j *jobfile.Job) bool {
				return j.Name == "quick" && j.Entrypoint == "python x.py" && j.Resources.Slots == 2 && j.Resources.TimeLimit == 7200 &&
					j.Pool == "batch" && j.Project == "nlp"
			}, ""},
		{"and a file", []string{"submit", "job.yaml", "--wrap", "x"}, nil, `--wrap: give a job file or --wrap COMMAND, not both (got "job.yaml" too)`},
		{"an empty command", []string{"submit", "--wrap", " "}, nil, `--wrap: expected a command, got " "`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeMaster(t)
			out, _, err := runAt(t, f, tt.args...)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
			} else if err != nil || out != "104\n" {
				t.Fatalf("%v, stdout %q: want the new job's ID", err, out)
			}
			var sent []*jobfile.Job
			for i, r := range f.requests {
				if r == "POST /api/v1/jobs" {
					j, err := jobfile.ParseJSON("sent", []byte(f.bodies[i]))
					if err != nil {
						t.Fatal(err)
					}
					sent = append(sent, j)
				}
			}
			if (tt.want == nil) != (len(sent) == 0) || (tt.want != nil && (len(sent) != 1 || !tt.want(sent[0]))) {
				t.Errorf("sent %+v", sent)
			}
		})
	}
}

// TestSubmitErrorsTogether (trial 29e E9): a refusal that lists several
// errors is said one a line, each at its field's line of the file (or
// naming the flag that set it), in line order as the local checks list
// theirs, and the master's status once after them (trial 29f F9); one
// error reads as before.
func TestSubmitErrorsTogether(t *testing.T) {
	const file = "name: bad\nproject: teamz\npool: qq\nresources:\n  slots: 1\n  qos: urgent\nentrypoint: x\n"
	pool := api.FieldError{Field: "pool", Error: `unknown pool "qq" (pools: q, bf, mf)`}
	project := api.FieldError{Field: "project", Error: `unknown project "teamz"; did you mean "teama"? (projects: teama, teamb)`}
	qos := api.FieldError{Field: "resources.qos", Error: `resources.qos: unknown QOS "urgent" (qos: normal, high, emergency)`}
	for _, tt := range []struct {
		name  string
		errs  []api.FieldError
		flags map[string]string
		want  string
	}{
		{"in line order", []api.FieldError{pool, qos, project}, nil,
			"bad.yaml:2: project: " + project.Error + "\n" +
				"bad.yaml:3: pool: " + pool.Error + "\n" +
				"bad.yaml:6: " + qos.Error + "\n(master: 400 Bad Request, all 3 errors)"},
		{"a flag's first", []api.FieldError{project, pool}, map[string]string{"pool": "--pool"},
			"--pool: " + pool.Error + "\n" +
				"bad.yaml:2: project: " + project.Error + "\n(master: 400 Bad Request, all 2 errors)"},
		// An error without a field, said once, as the master said it.
		{"one without a field", []api.FieldError{pool, {Error: "too many licenses"}}, nil,
			"too many licenses\nbad.yaml:3: pool: " + pool.Error + "\n(master: 400 Bad Request, all 2 errors)"},
		{"one", []api.FieldError{pool}, nil, "bad.yaml:3: pool: " + pool.Error + " (master: 400 Bad Request)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ce := &client.Error{Status: 400, Field: tt.errs[0].Field, Message: tt.errs[0].Error}
			if len(tt.errs) > 1 {
				ce.Errors = tt.errs
			}
			err := submitError("submit", "bad.yaml", "bad.yaml", []byte(file), tt.flags, ce)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error:\n%v\nwant:\n%s", err, tt.want)
			}
			if ce2 := (*client.Error)(nil); !errors.As(err, &ce2) || ce2.Status != 400 {
				t.Errorf("error %v: the master's answer is not found in it", err)
			}
		})
	}
}
