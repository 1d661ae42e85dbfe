package master

import (
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestExplainFairShareNoPreempt: in a fair_share pool with preemption,
// alice's experiment of two preemptible 1-GPU trials holds both GPUs;
// bob's 2-GPU job waits. Its task is larger than its fair share (shares
// are handed out in whole tasks: after alice's first trial one GPU is
// left, too small for it), so the fair-share rule never preempts for it:
// explain said "once job 1 ends or is preempted", and now says it waits
// for the end, and why; its dry run the same.
func TestExplainFairShareNoPreempt(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fair_share, preemption: true}\n")))
	n1 := h.agent("n1", 2)
	alice := h.submit(`{"name": "alice", "entrypoint": "train", "resources": {"slots": 1, "preemptible": true, "time_limit": 3600},
		"hyperparameters": {"lr": {"type": "categorical", "vals": [1, 2]}}}`)
	h.step()
	h.sync(n1, n1)
	bobSpec := jobSpec("bob", 2, "")
	// Its dry run, before it is submitted, says what explain says after.
	var d api.DryRun
	if code := h.do("POST", "/api/v1/jobs?dry_run=true", bobSpec, &d); code != 200 || d.WouldStart == nil {
		t.Fatalf("dry run: %d, %+v", code, d)
	}
	bob := h.submit(bobSpec)
	h.step()
	h.sync(n1, n1)
	h.step()
	if st := h.taskState(bob, 0); st != "queued" {
		t.Fatalf("bob's task is %s, want queued", st)
	}
	a := strconv.FormatInt(alice, 10)
	says := []string{"It could start on n1 once job " + a + " ends.",
		"Fair share preempts no job for it: its task needs 2 slots, more than its fair share (0 of the pool's 2 slots; " +
			"shares are handed out in whole tasks, by demand × weight); it waits for job " + a + " to end.",
		"This pool shares among jobs, not users or projects, and does not rotate running jobs over time"}
	not := []string{"preempted"}
	x := explainAs(t, h, h.admin, bob)
	cf := x.WouldStart
	if cf == nil || len(cf.MustEnd) != 1 || cf.MustEnd[0].ID != alice || cf.MustEnd[0].Preempt != "" {
		t.Fatalf("would start %+v, want job %d to end, not be preempted", cf, alice)
	}
	checkSays(t, "message", cf.Message, says, not)
	checkSays(t, "summary", x.Summary, says, not)
	checkSays(t, "dry run", d.WouldStart.Message, says, not)
	if strings.Contains(d.Summary, "or is preempted") {
		t.Fatalf("dry run summary %q promises a preemption", d.Summary)
	}
}
