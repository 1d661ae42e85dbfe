package master

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestPassHealth: failed passes count each, the log gets a line when the
// failure starts or changes and one when passes succeed again, not one a
// pass, and /healthz answers 503 while they fail (the error, which names
// jobs and pools, only in GET /pools and the log), as a waiting job's
// explanation says first.
func TestPassHealth(t *testing.T) {
	logs := &lockedBuffer{}
	h := newHarness(t, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	errA, errB := errors.New("core refused A"), errors.New("core refused B")
	cases := []struct {
		name       string
		passes     []error
		wantCount  float64 // the counter after the case
		wantLines  int     // log lines the case adds
		wantHealth int
		wantBody   string
	}{
		{"failing thrice with one error", []error{errA, errA, errA}, 3, 1, http.StatusServiceUnavailable, "core refused A"},
		{"another error", []error{errB, errB}, 5, 1, http.StatusServiceUnavailable, "core refused B"},
		{"succeeding again", []error{nil, nil}, 5, 1, http.StatusOK, "ok"},
	}
	id := h.submit(jobSpec("waiting", 1, "")) // no node: it waits
	h.step()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			logs.take()
			for _, err := range tc.passes {
				h.m.passes.record(err, h.clock.Now())
				h.clock.Advance(time.Second)
			}
			want := fmt.Sprintf("\nallot_scheduling_pass_failures_total %v\n", tc.wantCount)
			if _, body, _ := h.raw("GET", "/metrics", ""); !strings.Contains(body, want) {
				t.Errorf("/metrics lacks %q", want)
			}
			if got := strings.Count(logs.String(), "\n"); got != tc.wantLines {
				t.Errorf("%d log lines, want %d:\n%s", got, tc.wantLines, logs.String())
			}
			var pools []api.Pool
			if code := h.do("GET", "/api/v1/pools", nil, &pools); code != http.StatusOK || len(pools) == 0 {
				t.Fatalf("GET /pools: %d, %d pools", code, len(pools))
			}
			if failing := tc.wantHealth != http.StatusOK; failing != strings.Contains(pools[0].SchedulerError, tc.wantBody) {
				t.Errorf("pool's scheduler_error %q, want it with %q: %v", pools[0].SchedulerError, tc.wantBody, failing)
			}
			var x api.Explanation
			if code := h.do("GET", fmt.Sprintf("/api/v1/jobs/%d/explain", id), nil, &x); code != http.StatusOK {
				t.Fatalf("explain: %d", code)
			}
			warned := strings.HasPrefix(x.Summary, "No scheduling pass has succeeded since")
			if failing := tc.wantHealth != http.StatusOK; failing != warned || failing != strings.Contains(x.SchedulerError, tc.wantBody) ||
				failing != (x.SchedulerFailingSince != nil) {
				t.Errorf("explanation's summary %q, scheduler_error %q, failing since %v; want the failure said: %v",
					x.Summary, x.SchedulerError, x.SchedulerFailingSince, failing)
			}
			code, body, _ := h.raw("GET", "/healthz", "")
			healthSays := tc.wantBody
			if tc.wantHealth != http.StatusOK {
				healthSays = "scheduling passes failing since"
				if strings.Contains(body, tc.wantBody) {
					t.Errorf("/healthz %q shows the core's error to anyone", body)
				}
			}
			if code != tc.wantHealth || !strings.Contains(body, healthSays) {
				t.Errorf("/healthz %d %q, want %d with %q", code, body, tc.wantHealth, healthSays)
			}
		})
	}
}
