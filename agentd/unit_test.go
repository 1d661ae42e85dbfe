package agentd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

func validConfig() Config {
	return Config{Master: "http://127.0.0.1:8080", Name: "node-1", Pool: "default", WorkDir: "/tmp/w"}
}

func TestConfigValidation(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(c *Config)
		errHas string // "" means valid
	}{
		{"valid", func(c *Config) {}, ""},
		{"https with a path", func(c *Config) { c.Master = "https://master.example/allot/" }, ""},
		{"master without scheme", func(c *Config) { c.Master = "127.0.0.1:8080" }, "master: expected an http"},
		{"master with a query", func(c *Config) { c.Master = "http://m:8080/?x=1" }, "without query"},
		{"empty name", func(c *Config) { c.Name = "" }, "name: expected"},
		{"name with a slash", func(c *Config) { c.Name = "a/b" }, "name: expected"},
		{"pool with spaces inside", func(c *Config) { c.Pool = "big gpus" }, ""},
		{"empty pool: the master's default", func(c *Config) { c.Pool = "" }, ""},
		{"pool with a leading space", func(c *Config) { c.Pool = " gpu" }, "pool: expected"},
		{"pool with a newline", func(c *Config) { c.Pool = "a\nb" }, "pool: expected"},
		{"no work dir", func(c *Config) { c.WorkDir = "" }, "work dir: empty"},
		{"bad on-exit", func(c *Config) { c.OnExit = "drain" }, `on exit: expected "kill" or "keep"`},
		{"negative grace", func(c *Config) { c.ExitGrace = -time.Second }, "exit grace"},
		{"bad label", func(c *Config) { c.Labels = map[string]string{"a=b": "c"} }, "labels"},
		{"repeated gpu", func(c *Config) { c.GPUs = append(agent.Fake(2, "h100"), agent.Fake(1, "h100")...) }, "gpus: index 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := validConfig()
			tc.mutate(&c)
			_, err := New(c)
			switch {
			case tc.errHas == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tc.errHas != "" && (err == nil || !strings.Contains(err.Error(), tc.errHas)):
				t.Fatalf("New: %v, want an error with %q", err, tc.errHas)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	b := newBackoff(10*time.Millisecond, 80*time.Millisecond, 7)
	same := newBackoff(10*time.Millisecond, 80*time.Millisecond, 7)
	caps := []time.Duration{10, 20, 40, 80, 80, 80}
	for i, c := range caps {
		c *= time.Millisecond
		d := b.next()
		if d < c/2 || d > c {
			t.Errorf("delay %d = %v, want within [%v, %v]", i, d, c/2, c)
		}
		if d2 := same.next(); d2 != d {
			t.Errorf("delay %d = %v with the same seed, want %v", i, d2, d)
		}
	}
	b.reset()
	if d := b.next(); d < 5*time.Millisecond || d > 10*time.Millisecond {
		t.Errorf("delay after reset = %v, want within [5ms, 10ms]", d)
	}
}

func TestExitReport(t *testing.T) {
	id := agent.TaskID{JobID: "j", TaskIndex: 1, Attempt: 2}
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name    string
		res     agent.Result
		dropped uint64
		code    int // -1: none
		err     string
	}{
		{"exited", agent.Result{Outcome: agent.OutcomeFailed, ExitCode: 2}, 0, 2, ""},
		{"signalled", agent.Result{Outcome: agent.OutcomeKilled, ExitCode: -1, Signal: "SIGKILL"}, 0, -1, "ended by SIGKILL"},
		{"killed at the deadline", agent.Result{Outcome: agent.OutcomePreempted, ExitCode: -1, Signal: "SIGKILL", KilledAtDeadline: true}, 0,
			-1, "ended by SIGKILL; killed at the checkpoint deadline"},
		{"killed at the end of the kill grace", agent.Result{Outcome: agent.OutcomeKilled, ExitCode: -1, Signal: "SIGKILL", KilledAtDeadline: true}, 0,
			-1, "ended by SIGKILL; SIGKILLed at the end of the kill grace (it was still running after SIGTERM)"},
		{"killed, its trap exited 0", agent.Result{Outcome: agent.OutcomeKilled, ExitCode: 0}, 0, 0, ""},
		{"dropped lines add up", agent.Result{Outcome: agent.OutcomeCompleted, DroppedLines: 3, Error: "output still open"}, 4,
			0, "output still open; 7 output lines were dropped (the log buffer was full)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.res.ID, tc.res.ExitedAt = id, at
			r := exitReport(tc.res, tc.dropped)
			if r.Task != id || r.Event != api.EventExited || r.Outcome != string(tc.res.Outcome) || !r.At.Equal(at) {
				t.Errorf("report = %+v", r)
			}
			if (tc.code < 0) != (r.ExitCode == nil) || (r.ExitCode != nil && *r.ExitCode != tc.code) {
				t.Errorf("exit code = %v, want %d", r.ExitCode, tc.code)
			}
			if r.Error != tc.err {
				t.Errorf("error = %q, want %q", r.Error, tc.err)
			}
		})
	}
}

func TestShipperDropsOldestAndCounts(t *testing.T) {
	id := agent.TaskID{JobID: "j"}
	var sent [][]int64
	s := newShipper(3, newBackoff(time.Millisecond, time.Millisecond, 1), testLogger(t), func(_ context.Context, b api.LogBatch) error {
		var seqs []int64
		for _, l := range b.Lines {
			seqs = append(seqs, l.Seq)
		}
		sent = append(sent, seqs)
		return nil
	})
	for i := 1; i <= 5; i++ {
		s.push(id, agent.LogLine{Seq: uint64(i), Text: "x"})
	}
	s.push(id, agent.LogLine{Seq: 9, Text: "y", Dropped: 3}) // the Runner dropped 6, 7, 8
	mark := s.mark()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.run(ctx); close(done) }()
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if !s.waitHandled(wctx, mark) {
		t.Fatal("lines not handled")
	}
	cancel()
	<-done
	if len(sent) != 1 || len(sent[0]) != 3 || sent[0][0] != 4 || sent[0][2] != 9 {
		t.Errorf("sent %v, want one batch [4 5 9]", sent)
	}
	if n := s.takeDropped(id); n != 6 {
		t.Errorf("dropped %d, want 3 by the agent and 3 by the Runner", n)
	}
	if n := s.takeDropped(id); n != 0 {
		t.Errorf("dropped %d after taking the count, want 0", n)
	}
}

func TestStateFileErrors(t *testing.T) {
	cases := []struct {
		name, content, errHas string
	}{
		{"not JSON", "{", "expected the JSON the agent writes"},
		{"other version", `{"version": 9, "attempts": []}`, "version 9, expected 1"},
		{"bad pgid", `{"version": 1, "attempts": [{"task": {"job_id": "j"}, "pgid": 0}]}`, "attempts[0].pgid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), StateFileName)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := readState(path)
			if err == nil || !strings.Contains(err.Error(), tc.errHas) || !strings.Contains(err.Error(), path) {
				t.Fatalf("readState: %v, want an error naming %s with %q", err, path, tc.errHas)
			}
		})
	}
	t.Run("a bad file stops the agent", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, StateFileName), []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
		c := validConfig()
		c.WorkDir = dir
		a, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Run(context.Background()); err == nil || !strings.Contains(err.Error(), StateFileName) {
			t.Fatalf("Run: %v, want the state file's error", err)
		}
	})
}

// TestShipperPushWait: an adopted attempt's lines, which can wait in the
// shim's output file, wait for room in the buffer rather than push older
// lines out, until the agent stops, when they are pushed as any line.
func TestShipperPushWait(t *testing.T) {
	tests := []struct {
		name     string
		stopping bool // dropWhenFull before the pushes, and run after them
		sent     []int64
		dropped  uint64
	}{
		{"waits for room: nothing dropped", false, []int64{1, 2, 3, 4, 5, 6, 7, 8}, 0},
		{"the agent stops: the oldest dropped", true, []int64{6, 7, 8}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := agent.TaskID{JobID: "j"}
			var mu sync.Mutex
			var sent []int64
			s := newShipper(3, newBackoff(time.Millisecond, time.Millisecond, 1), testLogger(t), func(_ context.Context, b api.LogBatch) error {
				mu.Lock()
				defer mu.Unlock()
				for _, l := range b.Lines {
					sent = append(sent, l.Seq)
				}
				return nil
			})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			run := func() { go func() { s.run(ctx); close(done) }() }
			if tt.stopping {
				s.dropWhenFull()
			} else {
				run()
			}
			for i := 1; i <= 8; i++ {
				s.pushWait(id, agent.LogLine{Seq: uint64(i), Text: "x"})
			}
			if tt.stopping {
				run()
			}
			wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer wcancel()
			if !s.waitHandled(wctx, s.mark()) {
				t.Fatal("lines not handled")
			}
			cancel()
			<-done
			if !slices.Equal(sent, tt.sent) || s.takeDropped(id) != tt.dropped {
				t.Errorf("sent %v, want %v with %d dropped", sent, tt.sent, tt.dropped)
			}
		})
	}
}

// TestOrphanOutputNote: the agent's line on an adopted attempt names the
// output file only when the shim keeps one.
func TestOrphanOutputNote(t *testing.T) {
	tests := []struct {
		name  string
		keeps bool
		want  string
	}{
		{"the shim keeps an output file", true, "comes from the task shim's output file"},
		{"an older agent's shim keeps none", false, "keeps no output file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := orphanOutputNote(tt.keeps); !strings.Contains(got, tt.want) {
				t.Errorf("note %q, want it to say %q", got, tt.want)
			}
		})
	}
}

// TestLogRetryAfterOutage: a log batch the master refused with a status
// (its store down) is sent again within reachableRetryMax, as a sync is,
// not after the backoff the outage built up; while the master cannot be
// reached at all, the backoff's own delay stands. Until the batch is
// delivered the attempts' exit reports wait, so a long sleep here would
// hold finished tasks' GPUs after the outage.
func TestLogRetryAfterOutage(t *testing.T) {
	defer func(d time.Duration) { reachableRetryMax = d }(reachableRetryMax)
	reachableRetryMax = 10 * time.Millisecond
	cases := []struct {
		name      string
		err       error
		delivered bool // within the test's wait, far below the backoff's hour
	}{
		{"store unavailable", &statusError{path: "/agents/n/logs", status: 503}, true},
		{"node unknown", &statusError{path: "/agents/n/logs", status: 404}, true},
		{"unreachable", errors.New("dial tcp: connection refused"), false},
	}
	id := agent.TaskID{JobID: "j"}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			tries := 0
			s := newShipper(8, newBackoff(time.Hour, time.Hour, 1), testLogger(t), func(context.Context, api.LogBatch) error {
				mu.Lock()
				defer mu.Unlock()
				tries++
				if tries == 1 {
					return tt.err
				}
				return nil
			})
			s.push(id, agent.LogLine{Seq: 1, Text: "x"})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { s.run(ctx); close(done) }()
			wctx, wcancel := context.WithTimeout(context.Background(), time.Second)
			defer wcancel()
			got := s.waitHandled(wctx, s.mark())
			cancel()
			<-done
			if got != tt.delivered {
				t.Errorf("delivered within 1s: %v, want %v (tries %d)", got, tt.delivered, tries)
			}
		})
	}
}
