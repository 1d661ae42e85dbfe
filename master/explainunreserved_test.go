package master

import (
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
)

// TestExplainUnreservedHead is trial finding D13: in a multifactor pool
// with EASY backfill, long runs on 2 of n1's 4 GPUs with no time limit
// and head (4 GPUs) waits with no reserved start. A 1-GPU job with a time
// limit starts (backfilled); a 1-GPU job without one waits would_delay,
// and neither its reason nor its explanation speaks of a reservation
// that does not exist: they say the head has no reserved start because
// long has no time limit, and that a time limit would start it now; a
// dry run of the same job says so too. A 2-GPU job without a time limit,
// for which no slots are free, is told that once the timed job ends it
// would still wait, for the same cause.
func TestExplainUnreservedHead(t *testing.T) {
	cfg := "pools:\n  - {name: default, policy: multifactor, backfill: true, multifactor: {age: 1}}\n"
	h := newHarness(t, withConfig(mustConfig(t, cfg)))
	n1 := h.agent("n1", 4)
	ids := map[string]int64{}
	ids["long"] = h.submit(jobSpec("long", 2, ""))
	h.step()
	h.sync(n1, n1)
	ids["head"] = h.submit(jobSpec("head", 4, `, "time_limit": 600`))
	untimed := jobSpec("untimed", 1, "")
	ids["untimed"] = h.submit(untimed)
	h.step()
	ids["timed"] = h.submit(jobSpec("timed", 1, `, "time_limit": 60`))
	h.step()
	say := func(s string) string {
		for n, id := range ids {
			s = strings.ReplaceAll(s, "{"+n+"}", strconv.FormatInt(id, 10))
		}
		return s
	}
	if st := h.taskState(ids["timed"], 0); st == "queued" {
		t.Fatalf("timed is queued, want it backfilled beside long")
	}
	if pe := h.job(ids["head"]).Pending; pe == nil || pe.Reason != sched.CodeNoReservation {
		t.Fatalf("head pending %+v, want %s", pe, sched.CodeNoReservation)
	}
	pe := h.job(ids["untimed"]).Pending
	if pe == nil || pe.Reason != "would_delay" || pe.BlockedBy != ids["head"] {
		t.Fatalf("untimed pending %+v, want would_delay by head", pe)
	}
	checkSays(t, "reason", pe.Message,
		[]string{say("fits now but has no time limit, and job {head} ahead of it has no reserved start: only a job with a time limit may start before it")},
		[]string{"would delay the reservation"})
	x := explainAs(t, h, h.admin, ids["untimed"])
	words := []string{say("The 1 slot it needs is free now on n1, but job {head} ahead of it has no reserved start (job {long} runs with no time limit): with a time limit it could start now; without one it waits until job {head} has started.")}
	not := []string{"would delay the reservation", "no rule held it back"}
	if x.WouldStart == nil {
		t.Fatalf("no would_start: %+v", x)
	}
	checkSays(t, "would start", x.WouldStart.Message, words, not)
	// Said once, under "What would let it start now" (trial 29i I10).
	checkSays(t, "summary", x.Summary, nil, append(words, not...))
	var dr api.DryRun
	if code := h.do("POST", "/api/v1/jobs?dry_run=true", untimed, &dr); code != 200 || dr.WouldStart == nil {
		t.Fatalf("dry run: %d, %+v", code, dr)
	}
	checkSays(t, "dry run", dr.WouldStart.Message, []string{"but job " + say("{head}") + " ahead of it has no reserved start (job " + say("{long}") + " runs with no time limit): with a time limit it could start now"}, not)

	ids["pair"] = h.submit(jobSpec("pair", 2, ""))
	h.step()
	x = explainAs(t, h, h.admin, ids["pair"])
	if x.WouldStart == nil {
		t.Fatalf("pair: no would_start: %+v", x)
	}
	checkSays(t, "pair", x.WouldStart.Message, []string{say("Once job {timed} ends it would still wait: it has no time limit, and job {head} ahead of it has no reserved start (job {long} runs with no time limit); only a job with a time limit may start before it.")}, not)
}
