package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

func TestAgentFlagErrors(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		errHas string
	}{
		{"no nvidia-smi", []string{}, "pass --fake-gpus N"},
		{"gpu type without fake gpus", []string{"--gpu-type", "h100"}, "--gpu-type applies to fake GPUs only"},
		{"negative fake gpus", []string{"--fake-gpus", "-1"}, "--fake-gpus: expected a count >= 0"},
		{"label without value", []string{"--fake-gpus", "1", "--label", "rack"}, `--label "rack": expected key=value`},
		{"label twice", []string{"--fake-gpus", "1", "--label", "a=1", "--label", "a=2"}, "label a given twice"},
		{"bad log level", []string{"--fake-gpus", "1", "--log-level", "loud"}, "--log-level"},
		{"bad on-exit", []string{"--fake-gpus", "1", "--on-exit", "drain"}, `--on-exit: expected kill or keep, got "drain"`},
		{"bad master", []string{"--fake-gpus", "1", "--master", "ftp://m"}, "expected a URL such as"},
		{"negative grace", []string{"--fake-gpus", "1", "--exit-grace", "-1s"}, "--exit-grace"},
	}
	// An empty PATH: no nvidia-smi.
	t.Setenv("PATH", t.TempDir())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"agent", "--name", "n1", "--work-dir", t.TempDir()}, tc.args...)
			_, _, err := run(t, args...)
			if err == nil || !strings.Contains(err.Error(), tc.errHas) {
				t.Fatalf("allot %s: %v, want an error with %q", strings.Join(args, " "), err, tc.errHas)
			}
		})
	}
}

// TestAgentFlagValuesFirst: a wrong flag value is reported as such,
// naming the flag, with exit 2, before the agent looks for GPUs or a
// credential: even without a join token, which it would otherwise
// report instead.
func TestAgentFlagValuesFirst(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no nvidia-smi
	cases := []struct {
		name   string
		args   []string
		join   bool // with a join token
		stderr string
	}{
		{"on-exit", []string{"--on-exit", "maybe"}, true, `allot: --on-exit: expected kill or keep, got "maybe"`},
		{"on-exit without a join token", []string{"--on-exit", "maybe"}, false, `allot: --on-exit: expected kill or keep, got "maybe"`},
		{"exit-grace without a join token", []string{"--exit-grace", "-5s"}, false, "allot: --exit-grace: expected a duration >= 0, got -5s"},
		{"name", []string{"--name", "bad/name"}, true, `allot: --name "bad/name": character 4 ('/', U+002F) is not allowed`},
		{"name without a join token", []string{"--name", "bad/name"}, false, `allot: --name "bad/name"`},
		{"fake gpus before detection", []string{"--fake-gpus", "-2", "--on-exit", "keep"}, false, "allot: --fake-gpus: expected a count >= 0, got -2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			join := ""
			if tc.join {
				join = "allot_j_test"
			}
			t.Setenv(JoinTokenEnv, join)
			args := append([]string{"agent", "--work-dir", t.TempDir(), "--master", "127.0.0.1:1"}, tc.args...)
			var out, errOut bytes.Buffer
			code := Main(args, &out, &errOut)
			if code != ExitUsage || !strings.Contains(errOut.String(), tc.stderr) {
				t.Errorf("allot %s: exit %d, stderr %q; want exit %d and %q", strings.Join(args, " "), code, errOut.String(), ExitUsage, tc.stderr)
			}
		})
	}
}

func TestAgentRegistersFakeGPUs(t *testing.T) {
	registered := make(chan api.Register, 1)
	synced := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/agents/register":
			var req api.Register
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			select {
			case registered <- req:
			default:
			}
			_ = json.NewEncoder(w).Encode(api.RegisterReply{SyncWaitS: 0})
		case "/api/v1/agents/n1/sync":
			select {
			case synced <- struct{}{}:
			default:
			}
			_ = json.NewEncoder(w).Encode(api.SyncReply{})
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	root := New()
	var errOut bytes.Buffer
	root.SetErr(&errOut)
	root.SetArgs([]string{"agent", "--master", srv.URL, "--name", "n1", "--pool", "p1", "--fake-gpus", "2",
		"--gpu-type", "L40S", "--label", "rack=r7", "--label", "zone=", "--work-dir", t.TempDir(), "--log-format", "json"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()

	// The first sync follows the registration and its log line.
	select {
	case <-synced:
	case err := <-done:
		t.Fatalf("agent ended before syncing: %v\n%s", err, errOut.String())
	case <-time.After(30 * time.Second):
		t.Fatal("no sync within 30s")
	}
	cancel()
	req := <-registered
	if err := <-done; err != nil {
		t.Fatalf("agent: %v", err)
	}
	if req.Name != "n1" || req.Pool != "p1" || !reflect.DeepEqual(req.Labels, map[string]string{"rack": "r7", "zone": ""}) {
		t.Errorf("register = %+v", req)
	}
	if len(req.GPUs) != 2 || req.GPUs[1].Index != 1 || req.GPUs[1].Type != "l40s" || req.GPUs[1].MemoryMiB != 46068 {
		t.Errorf("gpus = %+v, want two fake l40s", req.GPUs)
	}
	if !strings.Contains(errOut.String(), `"msg":"registered with the master"`) {
		t.Errorf("log lacks the registration as JSON:\n%s", errOut.String())
	}
}
