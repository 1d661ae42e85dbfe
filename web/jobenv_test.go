package web

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestJobDetailHiddenEnvironment: for another user's job the master sends
// the environment's names only (environment_hidden); the job page lists
// the names and says the values are hidden, never the placeholder.
func TestJobDetailHiddenEnvironment(t *testing.T) {
	f := newFixture()
	f.mu.Lock()
	f.jobs[0].Environment = map[string]string{"EPOCHS": api.HiddenValue, "HF_TOKEN": api.HiddenValue}
	f.jobs[0].EnvironmentHidden = true
	f.mu.Unlock()
	p := openPage(t, f, "#/jobs/1", wide)
	fields := p.waitText("#fields", "hidden: only the job's owner and admins see values")
	for _, c := range []struct {
		name, text string
		want       bool
	}{
		{"a name", "HF_TOKEN", true},
		{"another name", "EPOCHS", true},
		{"the placeholder", api.HiddenValue, false},
		{"a name=value pair", "EPOCHS=", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if strings.Contains(fields, c.text) != c.want {
				t.Fatalf("fields = %q: %q shown %v, want %v", fields, c.text, !c.want, c.want)
			}
		})
	}
}
