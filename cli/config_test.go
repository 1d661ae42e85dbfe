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
	example := filepath.Join("..", "examples", "cluster.yaml")
	tests := []struct {
		name string
		file string
		out  string
		err  string
	}{
		{"good", good, good + ": ok (1 pool, 2 projects, 1 user)\n", ""},
		{"example", example, example + ": ok (6 pools, 5 projects, 3 users)\n", ""},
		{"bad", bad, "", bad + `:2: pools[0] "default": preemption: only priority, fair_share, quota and multifactor pools preempt`},
		{"missing", filepath.Join(dir, "absent.yaml"), "", "load config: open "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := run(t, "config", "check", tt.file)
			if out != tt.out {
				t.Errorf("stdout = %q, want %q", out, tt.out)
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
}
