package master

import (
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestExplainBackfillReservation: in an EASY backfill pool, a running
// (a, 2 slots, 4 minutes left), the head waiting for the node (head, 4
// slots, reserved at a's limit), a backfilled job (c, 2 slots, 2
// minutes) and a job too long to backfill (d, 2 slots, 10 minutes). The
// counterfactual of d said "It could start on n1 once job c ends", but
// once c ends d would still delay head's reservation (would_delay), and
// once a ends too the head takes the node: the answer now replays the
// reservation and says so, in explain and in d's dry run alike; in a
// multifactor pool with backfill the same.
func TestExplainBackfillReservation(t *testing.T) {
	for _, tc := range []struct{ name, cfg string }{
		{"easy backfill", "pools:\n  - {name: default, policy: backfill}\n"},
		{"multifactor with backfill", "pools:\n  - {name: default, policy: multifactor, backfill: true}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			h := newHarness(t, withConfig(mustConfig(t, cfg)))
			n1 := h.agent("n1", 4)
			ids := map[string]int64{}
			ids["a"] = h.submit(jobSpec("a", 2, `, "time_limit": 240`))
			h.step()
			h.sync(n1, n1)
			ids["head"] = h.submit(jobSpec("head", 4, `, "time_limit": 600`))
			ids["c"] = h.submit(jobSpec("c", 2, `, "time_limit": 120`))
			h.step()
			h.sync(n1, n1)
			d := jobSpec("d", 2, `, "time_limit": 600`)
			ids["d"] = h.submit(d)
			h.step()
			if st := h.taskState(ids["c"], 0); st != "running" {
				t.Fatalf("c is %s, want running (backfilled)", st)
			}
			say := func(s string) string {
				for n, id := range ids {
					s = strings.ReplaceAll(s, "{"+n+"}", strconv.FormatInt(id, 10))
				}
				return s
			}
			x := explainAs(t, h, h.admin, ids["d"])
			cf := x.WouldStart
			if cf == nil {
				t.Fatalf("no would_start: %+v", x)
			}
			says := []string{
				say("Once job {c} ends it would still wait: starting then would delay the reservation of job {head}."),
				say("the pool's order would serve job {head} first, and it would still wait."),
			}
			not := []string{say("It could start on n1 once job {c} ends.")}
			checkSays(t, "message", cf.Message, says, not)
			// The message is said once, below the summary (trial 29i I10).
			checkSays(t, "summary", x.Summary, nil, says)
			if len(cf.MustEnd) != 0 || len(cf.StartFirst) != 1 || cf.StartFirst[0].ID != ids["head"] {
				t.Fatalf("must end %+v, first %+v; want none, and job head first", cf.MustEnd, cf.StartFirst)
			}
			// A dry run of the same job says the same.
			var dr api.DryRun
			if code := h.do("POST", "/api/v1/jobs?dry_run=true", d, &dr); code != 200 || dr.WouldStart == nil {
				t.Fatalf("dry run: %d, %+v", code, dr)
			}
			checkSays(t, "dry run", dr.WouldStart.Message, says, not)
		})
	}
}

// TestExplainBackfillReservationMoves: the same on two nodes, where e
// holds n2 (8 minutes): once c ends the head's reservation on n1 still
// holds d back, and the fewest ends that let d start are c's and e's
// (the head then starts on n2, d on n1), not a's too, which ends
// sooner: a reservation moves as jobs end, and the answer is pruned to
// the jobs that matter.
func TestExplainBackfillReservationMoves(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: backfill}\n")))
	n1, n2 := h.agent("n1", 4), h.agent("n2", 4)
	ids := map[string]int64{}
	ids["a"] = h.submit(jobSpec("a", 2, `, "time_limit": 240`))
	ids["e"] = h.submit(jobSpec("e", 4, `, "time_limit": 480`))
	h.step()
	h.sync(n1, n2, n1, n2)
	ids["head"] = h.submit(jobSpec("head", 4, `, "time_limit": 600`))
	ids["c"] = h.submit(jobSpec("c", 2, `, "time_limit": 120`))
	h.step()
	h.sync(n1, n2, n1, n2)
	ids["d"] = h.submit(jobSpec("d", 2, `, "time_limit": 600`))
	h.step()
	x := explainAs(t, h, h.admin, ids["d"])
	checkAhead(t, x, aheadCase{nodes2: "n1", mustEnd: []string{"c", "e"}, startFirst: []string{"head"},
		says: []string{"Once job {c} ends it would still wait: starting then would delay the reservation of job {head}. " +
			"It could start on n1 once job {c} ends there and, on n2, job {e} ends for the jobs the pool serves before it: job {head} would take some of what they free (the pool's order serves it first)."}}, ids)
}
