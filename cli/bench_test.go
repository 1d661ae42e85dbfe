package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestBenchLiveReport runs a short load on a master that the command
// starts (this test binary, as TestMain has it run `allot master`) and
// checks the report's invariants, not its timings.
func TestBenchLiveReport(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a master and loads it for a few seconds")
	}
	var out, errOut bytes.Buffer
	args := []string{"bench", "live", "--agents", "4", "--gpus", "2", "--jobs", "40", "--task-time", "50ms",
		"--sync-wait", "1", "--submitters", "4", "--rate", "200", "--timeout", "60s", "--data", t.TempDir(), "--json"}
	if code := Main(args, &out, &errOut); code != ExitOK {
		t.Fatalf("exit %d: %s\n%s", code, errOut.String(), out.String())
	}
	var rep benchReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out.String())
	}
	if err := rep.check(); err != nil {
		t.Error(err)
	}
	if rep.Accepted != 40 || rep.Started != 40 || rep.Exited != 40 || rep.CompletedAtMaster != 40 {
		t.Errorf("accepted %d, started %d, exited %d, completed %d: want 40 each",
			rep.Accepted, rep.Started, rep.Exited, rep.CompletedAtMaster)
	}
	// 8 GPUs hold at most 8 one-GPU tasks at once.
	if rep.PeakRunning < 1 || rep.PeakRunning > 8 {
		t.Errorf("peak running %d: want 1..8", rep.PeakRunning)
	}
	for name, l := range map[string]latency{"submit": rep.SubmitLatency, "start": rep.StartLatency} {
		if l.N != 40 || l.P50 <= 0 || l.P50 > l.P90 || l.P90 > l.P99 || l.P99 > l.Max {
			t.Errorf("%s latency %+v: want 40 samples, 0 < p50 <= p90 <= p99 <= max", name, l)
		}
	}
	if rep.DrainPerS <= 0 || rep.SubmitPerS <= 0 {
		t.Errorf("drain %g/s, submit %g/s: want both > 0", rep.DrainPerS, rep.SubmitPerS)
	}
	if rep.MasterCPUS == nil || *rep.MasterCPUS <= 0 || rep.MasterPeakRSSMiB == nil || *rep.MasterPeakRSSMiB <= 0 {
		t.Errorf("master CPU %v s, peak RSS %v MiB: want both measured", rep.MasterCPUS, rep.MasterPeakRSSMiB)
	}
	if rep.StoreBytes <= 0 {
		t.Errorf("store size %d: want > 0", rep.StoreBytes)
	}
}

func TestBenchLiveFlagsRejected(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no agents", []string{"--agents", "0"}, "--agents"},
		{"job wider than a node", []string{"--gpus", "4", "--slots", "8"}, "--slots 8"},
		{"negative rate", []string{"--rate", "-1"}, "--rate"},
		{"store with --master", []string{"--master", "http://127.0.0.1:1", "--db", "sqlite://x"}, "--db and --data"},
		{"pid without --master", []string{"--master-pid", "1"}, "--master-pid"},
		{"--master without a token", []string{"--master", "http://127.0.0.1:1"}, "--token"},
		{"--master not a URL", []string{"--master", "ftp://x", "--token", "t"}, `--master: master address "ftp://x"`},
	}
	t.Setenv(TokenEnv, "")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := Main(append([]string{"bench", "live"}, tt.args...), &out, &errOut); code != ExitUsage {
				t.Fatalf("exit %d (%s), want %d: a flag value the CLI rejects", code, errOut.String(), ExitUsage)
			}
			if !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("stderr %q: want it to name %q", errOut.String(), tt.want)
			}
		})
	}
}

func TestPercentiles(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var d []time.Duration
		for _, x := range v {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // unsorted on purpose
	}
	tests := []struct {
		name string
		in   []time.Duration
		want latency
	}{
		{"empty", nil, latency{}},
		{"one", ms(7), latency{N: 1, P50: 7, P90: 7, P99: 7, Max: 7}},
		{"hundred", ms(hundred...), latency{N: 100, P50: 50, P90: 90, P99: 99, Max: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentiles(tt.in); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestBenchReportCheck(t *testing.T) {
	ok := benchReport{Jobs: 3, Accepted: 3, Started: 3, Exited: 3, CompletedAtMaster: 3}
	tests := []struct {
		name   string
		change func(*benchReport)
		bad    bool
	}{
		{"complete", func(*benchReport) {}, false},
		{"a job never started", func(r *benchReport) { r.Started = 2 }, true},
		{"a job never ended", func(r *benchReport) { r.Exited = 2 }, true},
		{"the master lost one", func(r *benchReport) { r.CompletedAtMaster = 2 }, true},
		{"counts do not add up", func(r *benchReport) { r.Accepted, r.Started, r.Exited, r.CompletedAtMaster = 2, 2, 2, 2 }, true},
		{"started twice", func(r *benchReport) { r.DupStarts = 1 }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ok
			tt.change(&r)
			if err := r.check(); (err != nil) != tt.bad || (err != nil && !errors.Is(err, errIncomplete)) {
				t.Errorf("check() = %v, want failure %v", err, tt.bad)
			}
		})
	}
}
