package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const traceDir = "../testdata/traces"

var sharedTraces = filepath.Join("..", "..", "shared", "traces")

// run executes the allot command line and returns stdout and stderr.
func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	root := New()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errOut.String(), err
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, _, err := run(t, args...)
	if err != nil {
		t.Fatalf("allot %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// TestSimSeed003: seed 003's job mix as SWF gives the seed's numbers,
// straight from the trace or through a scenario that names it.
func TestSimSeed003(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"sim", filepath.Join(traceDir, "seed003.swf"), "--policy", "fcfs"},
			[]string{"makespan     7h\n", "utilisation  89.3%\n", "note: cluster: 4 single-slot nodes"}},
		{[]string{"sim", filepath.Join(traceDir, "seed003-serial.yaml")},
			[]string{"makespan     9h\n", "utilisation  69.4%\n", "126  completed"}},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.args[1]), func(t *testing.T) {
			out := mustRun(t, c.args...)
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestSimTraceJSON: a trace's JSON result leaves per-job output out
// unless asked, keeps the contract's fields, and adds the series on
// request.
func TestSimTraceJSON(t *testing.T) {
	path := filepath.Join(traceDir, "backfill.swf")
	cases := []struct {
		name     string
		args     []string
		jobs     int
		timeline bool
		series   bool
	}{
		{"summary", []string{"--json"}, 0, false, false},
		{"jobs", []string{"--json", "--jobs"}, 5, true, false},
		{"jobs without timeline", []string{"--json", "--jobs", "--no-timeline"}, 5, false, false},
		{"series", []string{"--json", "--series"}, 0, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := mustRun(t, append([]string{"sim", path, "--policy", "easy"}, c.args...)...)
			var res map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			var jobs []any
			if err := json.Unmarshal(res["jobs"], &jobs); err != nil || len(jobs) != c.jobs {
				t.Errorf("jobs %s, want %d entries", res["jobs"], c.jobs)
			}
			_, tl := res["timeline"]
			_, sr := res["series"]
			if tl != c.timeline || sr != c.series {
				t.Errorf("timeline %v, series %v; want %v, %v", tl, sr, c.timeline, c.series)
			}
			var m struct {
				Makespan int64 `json:"makespan"`
			}
			if err := json.Unmarshal(res["metrics"], &m); err != nil || m.Makespan != 33 {
				t.Errorf("metrics %s: want makespan 33 (EASY)", res["metrics"])
			}
		})
	}
}

// TestSimErrors: bad input is reported with the file and line, and bad
// flags with what was expected.
func TestSimErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := "1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"non-numeric field", []string{"sim", write("bad.swf", "; MaxProcs: 4\n"+good+"2 5 -1 abc 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n")},
			"bad.swf:3: field 4 (run time): expected an integer, got \"abc\""},
		{"truncated line", []string{"sim", write("short.swf", "; MaxProcs: 4\n"+good+"2 5 -1 10 2\n")},
			"short.swf:3: field 6 (average CPU time): missing"},
		{"unsorted", []string{"sim", write("order.swf", "; MaxProcs: 4\n2 5 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n"+good)},
			"order.swf:3: field 2 (submit time)"},
		{"no cluster size", []string{"sim", write("bare.swf", good)}, "gives neither MaxProcs nor MaxNodes; give --nodes"},
		{"csv needs nodes", []string{"sim", write("jobs.csv", "job_id,user,project,submit,gpus,nodes,duration\n1,u,p,0,8,1,60\n")},
			"does not say how big its cluster was; give --nodes"},
		{"unknown extension", []string{"sim", write("jobs.txt", good)}, "cannot tell the format"},
		// The reader names the file at its line; the command does not
		// name it again in front.
		{"bad csv value, the file named once", []string{"sim", write("bad.csv",
			"job_id,user,project,submit,nodes,gpus,duration\n1,a,p,0,1,8,10\n2,a,p,5,1,abc,10\n"), "--nodes", "2"},
			"reading jobs: " + filepath.Join(dir, "bad.csv") + ":3: column gpus: expected an integer"},
		{"missing trace of a scenario", []string{"sim", write("traced.yaml",
			"pools:\n  - {name: gpu, policy: backfill, nodes: [{name: n, slots: 8}]}\njobs: {trace: gone.csv}\n")},
			"traced.yaml:3: jobs: trace: stat " + filepath.Join(dir, "gone.csv") + ": no such file"},
		{"unknown policy", []string{"sim", filepath.Join(traceDir, "backfill.swf"), "--policy", "sjf"},
			`--policy: expected current (the workload's own policies) or one of fcfs, fifo, easy, conservative, backfill, fair_share, priority, got "sjf"`},
		{"quota policy", []string{"sim", filepath.Join(traceDir, "backfill.swf"), "--policy", "quota"},
			`got "quota": a quota pool needs settings of its own that a policy name cannot give (the projects' quotas); a scenario's quota pools, and those --from-history exports, replay as they are with --policy current`},
		{"quota policy in a set", []string{"sim", "compare", filepath.Join(traceDir, "backfill.swf"), "--set", "name=q,policy=quota"},
			`--set: option set "name=q,policy=quota": policy: unknown policy "quota" (want one of fcfs, fifo, easy, conservative, backfill, fair_share, priority): a quota pool needs settings of its own that a policy name cannot give`},
		{"multifactor policy", []string{"sim", "compare", filepath.Join(traceDir, "backfill.swf"), "--policy", "easy", "--policy", "multifactor"},
			`got "multifactor": a multifactor pool needs settings of its own that a policy name cannot give (the factors' weights and the accounts' shares)`},
		{"both policy and set", []string{"sim", filepath.Join(traceDir, "backfill.swf"), "--policy", "easy", "--set", "policy=fcfs"}, "not both"},
		{"nodes on a scenario", []string{"sim", filepath.Join(traceDir, "seed003.yaml"), "--nodes", "3"}, "--nodes and --slots are for bare traces"},
		{"bad projects", []string{"sim", filepath.Join(traceDir, "backfill.swf"), "--projects", "queue"}, "--projects: want group or user"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := run(t, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if n := strings.Count(err.Error(), filepath.Base(c.args[1])+":"); n > 1 {
				t.Errorf("error %v names the file %d times", err, n)
			}
		})
	}
}

// TestSimCSV replays a GPU job CSV on nodes given by flags.
func TestSimCSV(t *testing.T) {
	p := filepath.Join(t.TempDir(), "jobs.csv")
	body := "job_id,user,project,submit,gpus,nodes,duration,time_limit\n" +
		"a,u1,vc1,0,16,2,3600,7200\nb,u2,vc2,60,8,1,600,\nc,u2,vc2,120,32,4,60,60\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "sim", p, "--nodes", "3", "--policy", "fcfs", "--jobs")
	// a takes two of the three 8-GPU nodes at 0 for an hour, b the third at
	// 60 s for 10 minutes; c needs 32 GPUs, more than the 24 there are, and
	// is skipped. Utilisation: (16 × 3600 + 8 × 600) / (24 × 3600) = 72.2%.
	rows := map[string]string{}
	for line := range strings.Lines(out) {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = strings.Join(f, " ")
		}
	}
	for _, w := range []string{"a completed 0s 0s 1h 0s 0", "b completed 1m 1m 11m 0s 0", "utilisation 72.2%"} {
		if f := strings.Fields(w); rows[f[0]] != w {
			t.Errorf("row %q, want %q:\n%s", rows[f[0]], w, out)
		}
	}
	if _, ok := rows["c"]; ok {
		t.Errorf("job c needs 32 GPUs of 24 and should be skipped:\n%s", out)
	}
	for _, w := range []string{"skipped 1 record: wider than the cluster (24 slots) (first at line 4)",
		"cluster: 3 nodes of 8 slots, as asked", "Jain 1 over 2 projects"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

// TestSimJobsFlagHelp: --jobs's default depends on the input, so its help
// says so and no "(default true)" contradicts it.
func TestSimJobsFlagHelp(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"says the default", "report every job (default: for scenarios, not for traces)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := run(t, "sim", "--help")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("sim --help does not say %q:\n%s", tt.want, out)
			}
		})
	}
}

// TestZeroFlagValues: a flag given explicitly is never silently replaced
// by its default: a 0 where the default would be taken instead is
// refused, naming the flag and the value, as a usage error.
func TestZeroFlagValues(t *testing.T) {
	swf := filepath.Join(traceDir, "backfill.swf")
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"zero slots", []string{"sim", swf, "--slots", "0"}, `allot: --slots: expected a count >= 1 (leave the flag out for the default), got "0"`},
		{"zero nodes", []string{"sim", swf, "--nodes", "0"}, `allot: --nodes: expected a count >= 1`},
		{"negative nodes", []string{"sim", swf, "--nodes", "-3"}, `allot: --nodes: expected a count >= 1`},
		{"compare zero slots", []string{"sim", "compare", swf, "--slots", "0"}, `allot: --slots: expected a count >= 1`},
		{"zero join ttl", []string{"token", "create", "--join", "--ttl", "0", "--master", "127.0.0.1:1"},
			`--ttl: expected a lifetime > 0, got "0" (leave --ttl out for the default: no expiry for API tokens, 24h for join tokens)`},
		{"zero user ttl", []string{"token", "create", "--user", "ann", "--ttl", "0s", "--master", "127.0.0.1:1"}, `--ttl: expected a lifetime > 0, got "0s"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Main(tt.args, &out, &errOut)
			if code != ExitUsage || !strings.Contains(errOut.String(), tt.stderr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut.String(), ExitUsage, tt.stderr)
			}
		})
	}
}

// TestSimWarnsEarlyEvent: an event before its job's submission is told
// on stderr, with both times, and the run goes on; stdout has the
// results only (trial 2026-11-29g G4). sim compare tells it too.
func TestSimWarnsEarlyEvent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "early.yaml")
	src := "pools:\n  - {name: p, policy: fifo, nodes: [{name: n, slots: 4}]}\n" +
		"jobs:\n  - {name: a, submit: 2h, slots: 1, duration: 1h}\n  - {name: b, submit: 0s, slots: 1, duration: 1h}\n" +
		"events:\n  - {at: 1h, kill: a}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want := path + `:7: events[0]: kill at 1h comes before job "a" is submitted (at 2h); the simulator applies it at the submission`
	for _, args := range [][]string{{"sim", path}, {"sim", "compare", path, "--policy", "current", "--policy", "fcfs", "-q"}} {
		t.Run(args[1], func(t *testing.T) {
			out, errOut, err := run(t, args...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(errOut, "warning: "+want) || strings.Contains(out, "comes before") {
				t.Errorf("stderr %q lacks the warning %q, or stdout has it:\n%s", errOut, want, out)
			}
		})
	}
}

// TestSimSetDoesNotFit: an option set that does not fit a pool of the
// workload names the flag, not the file, which is not at fault (trial
// 2026-11-29h H3), in allot sim and allot sim compare alike.
func TestSimSetDoesNotFit(t *testing.T) {
	quota := filepath.Join("..", "examples", "quota.yaml")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"preemption off", []string{"sim", quota, "--set", "preemption=false"},
			`--set preemption=false: pool "gpu" (quota) always reclaims quota by preemption; drop preemption from --set, which applies to every pool`},
		{"preemption on", []string{"sim", quota, "--set", "placement=spread,preemption=true"},
			`--set preemption=true: pool "gpu" (quota) always reclaims quota by preemption`},
		{"compare", []string{"sim", "compare", quota, "--set", "name=np,preemption=false"},
			`run "np": --set preemption=false: pool "gpu" (quota) always reclaims quota by preemption; drop preemption from --set`},
		{"a setting of another policy", []string{"sim", quota, "--set", "serial=true"},
			`--set: pool "gpu": serial applies only to policy fifo, not quota`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := run(t, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "quota.yaml") {
				t.Fatalf("error %v, want one containing %q and not naming the file", err, c.want)
			}
		})
	}
}
