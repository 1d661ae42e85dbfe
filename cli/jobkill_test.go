package cli

import (
	"encoding/json"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestKillSeveral: allot job kill takes several IDs, as scancel does: it
// kills them in one request, reports a job the master refuses while the
// others are killed, and then fails; -o json gives the list of the
// replies of the jobs killed.
func TestKillSeveral(t *testing.T) {
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "three, one unknown", args: []string{"job", "kill", "6", "77", "2"},
			out:    "job 6 (notebook): killed\njob 2 (old-eval) had already ended: completed\n",
			errOut: "allot: master: 404 Not Found: job 77 does not exist\n",
			err:    "1 job of 3 not killed"},
		{name: "a bad ID sends nothing", args: []string{"job", "kill", "5", "x"}, err: `job ID: expected a positive integer, got "x"`},
	})
	if n := len(f.requests); n != 1 {
		t.Errorf("%d requests, want the one kill of the first line's list: %q", n, f.requests)
	}
	out, _, err := runAt(t, f, "job", "kill", "5", "6", "-o", "json")
	var rs []api.KillReply
	if err != nil || json.Unmarshal([]byte(out), &rs) != nil || len(rs) != 2 || rs[0].ID != 5 || !rs[1].AlreadyEnded {
		t.Errorf("job kill 5 6 -o json: %v; want a list of 2 replies, job 6's already ended:\n%s", err, out)
	}
}
