package cli

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestJobShowHiddenEnvironment: for another user's job the master sends
// the environment's names only (environment_hidden), and job show lists
// the names and says why the values are missing.
func TestJobShowHiddenEnvironment(t *testing.T) {
	fixClock(t)
	cases := []struct {
		name   string
		env    map[string]string
		hidden bool
		want   string
	}{
		{"the owner's", map[string]string{"B": "2", "A": "1"}, false, "Environment  A=1 B=2\n"},
		{"another user's", map[string]string{"HF_TOKEN": api.HiddenValue, "A": api.HiddenValue}, true,
			"Environment  A HF_TOKEN (hidden: only the job's owner and admins see values)\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeMaster(t)
			f.jobs[1].Environment, f.jobs[1].EnvironmentHidden = tc.env, tc.hidden
			out, _, err := runAt(t, f, "job", "show", "5")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, tc.want) {
				t.Fatalf("job show:\n%s\nwant a line %q", out, tc.want)
			}
			if tc.hidden && strings.Contains(out, api.HiddenValue) {
				t.Fatalf("job show prints the placeholder %q:\n%s", api.HiddenValue, out)
			}
		})
	}
}
