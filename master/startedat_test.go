package master

import (
	"strconv"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestJobStartedAt: a job holding GPUs says when it started (the
// earliest start of its open attempts), which allot jobs shows as
// START; a waiting job and an ended one say nothing.
func TestJobStartedAt(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 2)
	first := h.submit(jobSpec("first", 1, ""))
	h.step()
	startedFirst := h.clock.Now().UTC()
	h.clock.Advance(time.Minute)
	second := h.submit(jobSpec("second", 1, ""))
	waits := h.submit(jobSpec("waits", 2, ""))
	h.step()
	h.sync(a, a)
	jobs := map[int64]api.Job{}
	var list []api.Job
	if code := h.do("GET", "/api/v1/jobs", nil, &list); code != 200 {
		t.Fatalf("GET /jobs: %d", code)
	}
	for _, j := range list {
		jobs[j.ID] = j
	}
	for _, c := range []struct {
		name string
		id   int64
		want time.Time
	}{
		{"the first", first, startedFirst},
		{"the second, a minute later", second, startedFirst.Add(time.Minute)},
		{"a waiting job", waits, time.Time{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := jobs[c.id].StartedAt
			if c.want.IsZero() != (got == nil) || got != nil && !got.Equal(c.want) {
				t.Errorf("job %d started_at %v, want %v", c.id, got, c.want)
			}
		})
	}
	if code := h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(waits, 10)+"/kill", nil, nil); code != 200 {
		t.Fatalf("kill: %d", code)
	}
	var j api.Job
	if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(waits, 10), nil, &j); code != 200 || j.StartedAt != nil {
		t.Errorf("a job killed while queued: %d, started_at %v, want none", code, j.StartedAt)
	}
}
