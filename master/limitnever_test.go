package master

import (
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestExplainOverLimitNeverStarts (trial 2026-11-29e E6): a job whose
// task is larger than its project's limit, borrowing LOW work's
// included, is refused at submission (quotaFeasible); one queued all the
// same (allow_infeasible) or whose limit a reload lowered below its task
// is told it can never start and what must change, in its pending
// reason and in explain, not that another job is served first; one the
// limit holds back only while its project's work runs is not.
func TestExplainOverLimitNeverStarts(t *testing.T) {
	const never = "can never start: a task of 4 slots is over project teamb's limit of 3 in pool q; an admin must raise the project's limit"
	for _, tc := range []struct {
		name       string
		slots      int
		reloadTo   int // the limit a reload sets; 0: no reload
		says, not  []string
		wantReason string
	}{
		{"LOW past the limit, queued with allow_infeasible", 4, 0,
			[]string{"It cannot start: job", "can never start: a task of 4 slots is over its project teamb's limit of 3 in pool q",
				"an admin must raise the limit"},
			[]string{"the pool's order would serve", "would still wait", "In the last pass"}, never},
		{"a reload lowered the limit below the task", 3, 2,
			[]string{"can never start: a task of 3 slots is over its project teamb's limit of 2 in pool q", "an admin must raise the limit"},
			[]string{"the pool's order would serve"},
			"can never start: a task of 3 slots is over project teamb's limit of 2 in pool q; an admin must raise the project's limit"},
		{"within the limit once its project's work ends", 3, 0,
			[]string{"needs 3 slots; that would take its project past its limit"},
			[]string{"can never start"}, "needs 3 slots; that would take its project past its limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withFile, path := withConfigFile(t, trialQuotaConfig(3))
			h := newHarness(t, withFile)
			n1 := h.agent("n1", 4)
			h.submit(trialJob("reclaim2", "teamb", 2, "NORMAL"))
			h.step()
			h.sync(n1)
			spec := trialJob("low", "teamb", tc.slots, "LOW")
			var reply api.SubmitReply
			var e struct {
				ID    int64  `json:"id"`
				Error string `json:"error"`
				Field string `json:"field"`
			}
			switch code := h.do("POST", "/api/v1/jobs", spec, &e); {
			case tc.slots <= 3 && code == 201:
				reply.ID = e.ID
			case tc.slots <= 3:
				t.Fatalf("submit within the limit: %d %+v", code, e)
			case code != 422 || e.Field != "resources.slots" ||
				!strings.Contains(e.Error, "can never run under project teamb's limit of 3 in quota pool q"):
				t.Fatalf("submit past the limit: %d %+v, want 422 on resources.slots", code, e)
			default:
				if code := h.do("POST", "/api/v1/jobs?allow_infeasible=true", spec, &reply); code != 201 {
					t.Fatalf("submit with allow_infeasible: %d", code)
				}
			}
			if tc.reloadTo > 0 {
				writeConfig(t, path, trialQuotaConfig(tc.reloadTo))
				if code := h.do("POST", "/api/v1/config/reload", nil, nil); code != 200 {
					t.Fatalf("reload: %d", code)
				}
			}
			h.step()
			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(reply.ID, 10)+"/explain", nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			if x.Pending == nil || x.Pending.Reason != "project_limit" || x.Pending.Message != tc.wantReason {
				t.Fatalf("pending %+v, want project_limit: %q", x.Pending, tc.wantReason)
			}
			if v := h.job(reply.ID); v.Pending == nil || v.Pending.Message != tc.wantReason {
				t.Errorf("allot jobs' reason %+v, want %q", v.Pending, tc.wantReason)
			}
			checkSays(t, "summary", x.Summary, tc.says, tc.not)
			if isNever := x.WouldStart != nil && x.WouldStart.Never != ""; isNever != strings.HasPrefix(tc.wantReason, "can never") {
				t.Errorf("would start %+v: never %v, want %v", x.WouldStart, isNever, !isNever)
			}
		})
	}
}
