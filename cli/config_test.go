package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sched/allot/config"
)

func TestConfigCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("good.yaml", "projects: [{name: default}, {name: b}]\nusers: [{name: u}]\n")
	bad := write("bad.yaml", "pools:\n  - {name: default, policy: fifo, preemption: true}\n")
	short := write("short.yaml", "agent_timeout: 20s\n")
	enough := write("enough.yaml", "agent_timeout: 24s\n")
	unfenced := write("unfenced.yaml", "agent_timeout: 20s\nfence: false\n")
	const mf = "pools:\n  - {name: default, policy: multifactor}\n"
	hourly := write("hourly.yaml", mf+"decay: {half_life: 1h}\n")
	hourlyOK := write("hourly-ok.yaml", mf+"decay: {half_life: 1h, period: 1h}\n")
	noFairShare := write("no-fair-share.yaml", "decay: {half_life: 1h}\n")
	example := filepath.Join("..", "examples", "cluster.yaml")
	tests := []struct {
		name   string
		file   string
		out    string
		stderr string
		err    string
	}{
		{"good", good, good + ": ok (1 pool, 2 projects, 1 user)\n", "", ""},
		{"example", example, example + ": ok (6 pools, 5 projects, 3 users)\n", "", ""},
		{"bad", bad, "", "", bad + `:2: pools[0] "default": preemption: only priority, fair_share, quota and multifactor pools preempt`},
		{"missing", filepath.Join(dir, "absent.yaml"), "", "", "load config: open "},
		// Valid, but the agents' fence would stop tasks after the loss:
		// a warning on stderr, the status still 0.
		{"agent_timeout too short for the fence", short, short + ": ok (1 pool, 1 project, 0 users)\n",
			"warning: " + short + ": agent_timeout: 20s is too short for agents to stop tasks before the master loses their node " +
				"(with the master's 10s long poll and the agents' default settings, 1s between polls, it needs at least 24s): " +
				"an agent cut off from the master stops the tasks the master requeues only after the loss, when they may already run elsewhere\n", ""},
		{"agent_timeout just long enough", enough, enough + ": ok (1 pool, 1 project, 0 users)\n", "", ""},
		{"short agent_timeout without the fence", unfenced, unfenced + ": ok (1 pool, 1 project, 0 users)\n", "", ""},
		// Trial 29i I25: a half-life of an hour over the default day's
		// period decays usage only at midnight UTC.
		{"half_life shorter than the period", hourly, hourly + ": ok (1 pool, 1 project, 0 users)\n",
			"warning: " + hourly + ":3: decay: half_life 1h is shorter than the period, 24h (the default): usage decays only " +
				"at each period's end (00:00 UTC), all at once, and counts in full until then; set period: 1h for hourly decay\n", ""},
		{"half_life as long as the period", hourlyOK, hourlyOK + ": ok (1 pool, 1 project, 0 users)\n", "", ""},
		{"no pool weighs fair share", noFairShare, noFairShare + ": ok (1 pool, 1 project, 0 users)\n", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, err := run(t, "config", "check", tt.file)
			if out != tt.out {
				t.Errorf("stdout = %q, want %q", out, tt.out)
			}
			if tt.err == "" && stderr != tt.stderr {
				t.Errorf("stderr = %q, want %q", stderr, tt.stderr)
			}
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("error: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("error = %v, want one containing %q", err, tt.err)
			}
		})
	}
	var e *config.Error
	if _, _, err := run(t, "config", "check", bad); !errors.As(err, &e) || e.Line != 2 {
		t.Errorf("the error is not the config's *Error: %v", err)
	}
	if _, _, err := run(t, "config", "check"); err == nil {
		t.Error("config check without a file succeeded")
	}
	// allot master's --config, which a newcomer copies (trial q G3).
	if out, _, err := run(t, "config", "check", "--config", enough); err != nil || out != enough+": ok (1 pool, 1 project, 0 users)\n" {
		t.Errorf("config check --config: %q, %v; want the file checked", out, err)
	}
	if _, _, err := run(t, "config", "check", "--config", enough, enough); err == nil || !strings.Contains(err.Error(), "unexpected arguments") {
		t.Errorf("config check --config FILE FILE: %v, want a usage error", err)
	}
}
