package master

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
)

// TestJobViewsCountFromNow: the job list, a page of it and a job's view
// render a pending reason's countdown from the time of the request, which
// the pending gives as as_of, not from the time of its pass: the message
// and as_of to estimated_start are one span, however long ago the pass
// ran, and every job of one answer counts from one as_of.
func TestJobViewsCountFromNow(t *testing.T) {
	h, _, waiting := reservedBehind(t)
	second := h.submit(jobSpec("second", 4, `, "time_limit": 60`))
	h.step()
	views := []struct {
		name string
		get  func(t *testing.T) []api.Job
	}{
		{"list", func(t *testing.T) []api.Job {
			var jobs []api.Job
			if code := h.do("GET", "/api/v1/jobs", nil, &jobs); code != 200 {
				t.Fatalf("list: %d", code)
			}
			return jobs
		}},
		{"page", func(t *testing.T) []api.Job {
			var p api.JobPage
			if code := h.do("GET", "/api/v1/jobs?limit=10", nil, &p); code != 200 {
				t.Fatalf("page: %d", code)
			}
			return p.Jobs
		}},
		{"job", func(t *testing.T) []api.Job { return []api.Job{h.job(waiting)} }},
	}
	for _, tt := range []struct {
		name    string
		advance time.Duration // since the pass, without another
		want    string
	}{
		{"at the pass", 0, "to start in 1h"},
		{"a second later", time.Second, "to start in 59m 59s"},
		{"ten minutes later", 10 * time.Minute, "to start in 49m 59s"},
	} {
		h.clock.Advance(tt.advance)
		for _, v := range views {
			t.Run(tt.name+"/"+v.name, func(t *testing.T) {
				now := h.clock.Now().Truncate(time.Second)
				found := 0
				for _, j := range v.get(t) {
					p := j.Pending
					if j.ID != waiting && j.ID != second {
						continue
					}
					if p == nil || p.EstimatedStart == nil || p.AsOf == nil {
						t.Fatalf("job %d: pending %+v, want an estimated start and as_of", j.ID, p)
					}
					found++
					if !p.AsOf.Equal(now) {
						t.Errorf("job %d: as_of %v, want the request's time %v", j.ID, *p.AsOf, now)
					}
					if in := "in " + sched.HumanDuration(int64(p.EstimatedStart.Sub(*p.AsOf)/time.Second)); !strings.Contains(p.Message, in) {
						t.Errorf("job %d: message %q, but as_of to estimated_start is %s", j.ID, p.Message, in)
					}
					if j.ID == waiting && !strings.Contains(p.Message, tt.want) {
						t.Errorf("job %d: message %q, want %q", j.ID, p.Message, tt.want)
					}
				}
				if found == 0 {
					t.Fatalf("job %s not in the answer", strconv.FormatInt(waiting, 10))
				}
			})
		}
	}
}
