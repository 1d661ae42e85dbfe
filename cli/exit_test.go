package cli

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sched/allot/version"
)

// TestMainExitCodes: Main exits 0 on success, 2 on a wrong command line
// (with a pointer to --help) and 1 on any other failure.
func TestMainExitCodes(t *testing.T) {
	f := newFakeMaster(t)
	dir := t.TempDir()
	csvs := map[string]string{}
	for name, body := range map[string]string{"jobs.csv": "job_id,user,project,submit,gpus,nodes,duration\n1,u,p,0,8,1,60\n",
		"jobs.txt": "job_id,user,project,submit,gpus,nodes,duration\n1,u,p,0,8,1,60\n", "bad.csv": "job_id,submit_time,gpus,duration\n1,0,2,3600\n"} {
		csvs[name] = filepath.Join(dir, name)
		if err := os.WriteFile(csvs[name], []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring
		stderr string // substring
	}{
		{"success", []string{"pools", "--master", f.srv.URL}, ExitOK, "research", ""},
		{"version flag", []string{"--version"}, ExitOK, "allot " + version.String() + "\n", ""},
		{"no command prints help", []string{}, ExitOK, "Available Commands", ""},
		{"group without subcommand prints help", []string{"job"}, ExitOK, "Available Commands", ""},
		{"unknown command", []string{"nosuch"}, ExitUsage, "", `allot: unknown command "nosuch" for "allot"`},
		{"unknown command with suggestion", []string{"job", "shwo"}, ExitUsage, "", `allot: unknown command "shwo" for "allot job"; did you mean show?`},
		{"unknown word under job", []string{"job", "frobnicate"}, ExitUsage, "", "allot: unknown command \"frobnicate\" for \"allot job\"\nRun 'allot job --help' for usage."},
		{"job ID is job show ID", []string{"job", "3", "--master", f.srv.URL}, ExitOK, "Name         llm-pretrain", ""},
		{"job ID takes show's -o", []string{"job", "3", "-o", "yaml", "--master", f.srv.URL}, ExitOK, "name: llm-pretrain", ""},
		{"job ID of no job", []string{"job", "99", "--master", f.srv.URL}, ExitError, "", "404"},
		{"job with two IDs", []string{"job", "3", "4"}, ExitUsage, "", `allot job: unexpected argument "4": expected at most a job ID (allot job [ID])`},
		{"a mistyped command before an ID", []string{"job", "kil", "15"}, ExitUsage, "", `allot: unknown command "kil" for "allot job"; did you mean kill?`},
		{"Slurm's scancel", []string{"scancel", "15"}, ExitUsage, "", `allot: unknown command "scancel" for "allot"; did you mean allot job kill?`},
		{"cancel under job", []string{"job", "cancel", "15"}, ExitUsage, "", `allot: unknown command "cancel" for "allot job"; did you mean kill?`},
		{"job with a negative ID", []string{"job", "-3"}, ExitUsage, "", `job ID: expected a positive integer, got "-3"`},
		{"a command one level down", []string{"logs", "1"}, ExitUsage, "", `allot: unknown command "logs" for "allot"; did you mean allot job logs?`},
		{"commands one level down", []string{"drain"}, ExitUsage, "", `did you mean allot node drain?`},
		{"another tool's name wins over a spelling guess", []string{"node", "undrain", "n1"}, ExitUsage, "", `allot: unknown command "undrain" for "allot node"; did you mean resume?`},
		{"help of an unknown command", []string{"kill", "--help"}, ExitUsage, "", `allot: unknown command "kill" for "allot"; did you mean allot job kill?`},
		{"help of an unknown subcommand, flags before", []string{"--master", "x", "node", "drian", "-h"}, ExitUsage, "",
			`allot: unknown command "drian" for "allot node"; did you mean drain?`},
		{"help of a command with partial arguments", []string{"job", "set-priority", "3", "--help"}, ExitOK, "Change a job's priority", ""},
		{"help of a group", []string{"node", "--help"}, ExitOK, "Available Commands", ""},
		{"unknown flag", []string{"jobs", "--bogus"}, ExitUsage, "", "allot jobs: unknown flag: --bogus\nRun 'allot jobs --help' for usage."},
		{"bad flag value", []string{"jobs", "--interval", "soon"}, ExitUsage, "", `allot: --interval: expected a duration such as 90s, 15m or 2h, got "soon"`},
		{"negative weight", []string{"job", "set-weight", "19", "-1"}, ExitUsage, "",
			"allot: weight: expected a number > 0, got \"-1\"\nRun 'allot job set-weight --help' for usage.\n"},
		{"negative id", []string{"job", "show", "-3"}, ExitUsage, "", `job ID: expected a positive integer, got "-3"`},
		{"wrong argument count", []string{"job", "show"}, ExitUsage, "", "allot job show: expected a job ID (allot job show ID)"},
		{"bad job id", []string{"job", "show", "x"}, ExitUsage, "", `job ID: expected a positive integer, got "x"`},
		{"bad output format", []string{"pools", "-o", "xml"}, ExitUsage, "", `--output: expected one of table, wide, json, yaml`},
		{"bad state", []string{"jobs", "--state", "done"}, ExitUsage, "", `--state: expected one of`},
		{"trace flag on a scenario", []string{"sim", filepath.Join("..", "examples", "quickstart.yaml"), "--nodes", "4"}, ExitUsage, "",
			"quickstart.yaml: a scenario file gives its own pools and nodes; --nodes and --slots are for bare traces\nRun 'allot sim --help' for usage."},
		{"trace flag on a scenario to compare", []string{"sim", "compare", filepath.Join("..", "examples", "quickstart.yaml"), "--slots", "2"}, ExitUsage, "",
			"--nodes and --slots are for bare traces\nRun 'allot sim compare --help' for usage."},
		{"GPU job CSV without --nodes", []string{"sim", csvs["jobs.csv"]}, ExitUsage, "",
			"jobs.csv: a GPU job CSV does not say how big its cluster was; give --nodes (and --slots, default 8)\nRun 'allot sim --help' for usage."},
		{"CSV by --format without --nodes", []string{"sim", "compare", csvs["jobs.txt"], "--format", "csv"}, ExitUsage, "",
			"give --nodes (and --slots, default 8)\nRun 'allot sim compare --help' for usage."},
		// The file's errors first, with the flag it needs: one run tells
		// both (trial 2026-11-29g G9).
		{"GPU job CSV with a bad header, without --nodes", []string{"sim", csvs["bad.csv"]}, ExitError, "",
			"bad.csv:1: column 2: unknown column \"submit_time\"; the columns are job_id,user,project,submit,gpus,nodes,duration,time_limit\n" +
				csvs["bad.csv"] + ": a GPU job CSV does not say how big its cluster was; give --nodes"},
		{"missing GPU job CSV, without --nodes", []string{"sim", filepath.Join("..", "examples", "no-such-jobs.csv")}, ExitError, "",
			"no such file or directory\n" + filepath.Join("..", "examples", "no-such-jobs.csv") + ": a GPU job CSV does not say how big its cluster was; give --nodes"},
		{"master refuses", []string{"jobs", "--pool", "nosuch", "--master", f.srv.URL}, ExitError, "", `no such pool (pools: research, batch)`},
		{"missing job", []string{"job", "show", "99", "--master", f.srv.URL}, ExitError, "", "404"},
		{"no master", []string{"jobs", "--master", "127.0.0.1:1"}, ExitError, "", "cannot reach the master"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Main(tt.args, &out, &errOut)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out.String(), errOut.String())
			}
			if !strings.Contains(out.String(), tt.stdout) {
				t.Errorf("stdout %q lacks %q", out.String(), tt.stdout)
			}
			if !strings.Contains(errOut.String(), tt.stderr) {
				t.Errorf("stderr %q lacks %q", errOut.String(), tt.stderr)
			}
		})
	}
}

func TestVersionCommand(t *testing.T) {
	out := mustRun(t, "version")
	if !strings.HasPrefix(out, "allot "+version.String()+"\n") || !strings.Contains(out, "go: go") {
		t.Errorf("allot version printed:\n%s", out)
	}
	var info version.Info
	if err := json.Unmarshal([]byte(mustRun(t, "version", "-o", "json")), &info); err != nil || info.Version != version.String() {
		t.Errorf("allot version -o json: %+v, %v", info, err)
	}
}

// TestListenExitCodes: a --listen that cannot be an address is a usage
// error (exit 2), while an address in use is the environment's (exit 1);
// neither leaves a data directory behind.
func TestListenExitCodes(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	tests := []struct {
		name   string
		cmd    string
		listen string
		code   int
		stderr string // substring
	}{
		{"dev port out of range", "dev", "127.0.0.1:99999", ExitUsage, "--listen 127.0.0.1:99999: expected a port from 0 to 65535"},
		{"dev no port", "dev", "nonsense", ExitUsage, "--listen nonsense: expected HOST:PORT"},
		{"dev in use", "dev", taken.Addr().String(), ExitError, "the address is in use"},
		{"master port out of range", "master", "127.0.0.1:99999", ExitUsage, "expected a port from 0 to 65535"},
		{"master no port", "master", "nonsense", ExitUsage, "--listen nonsense: expected HOST:PORT"},
		{"master in use", "master", taken.Addr().String(), ExitError, "the address is in use"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			var out, errOut bytes.Buffer
			code := Main([]string{tt.cmd, "--listen", tt.listen, "--data", data}, &out, &errOut)
			if code != tt.code || !strings.Contains(errOut.String(), tt.stderr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut.String(), tt.code, tt.stderr)
			}
			if _, err := os.Stat(data); err == nil {
				t.Errorf("the refused start made its data directory")
			}
		})
	}
}
