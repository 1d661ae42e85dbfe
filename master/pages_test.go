package master

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

func jobIDs(jobs []api.Job) []int64 {
	out := []int64{}
	for _, j := range jobs {
		out = append(out, j.ID)
	}
	return out
}

// TestJobsPages: GET /jobs with limit or cursor answers pages, newest
// first, of live jobs from the mirror and ended ones from the store,
// each job once even when it ends between pages; without them it still
// answers the bare array. state takes several states; since bounds the
// submission time.
func TestJobsPages(t *testing.T) {
	h := newHarness(t)
	var ids []int64
	for i := range 5 {
		ids = append(ids, h.submit(jobSpec(fmt.Sprintf("j%d", i+1), 1, "")))
		h.clock.Advance(time.Minute)
	}
	kill := func(id int64) {
		if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/kill", id), nil, nil); code != http.StatusOK {
			t.Fatalf("kill %d: %d", id, code)
		}
	}
	kill(ids[0])
	kill(ids[2])
	page := func(query string) api.JobPage {
		t.Helper()
		var p api.JobPage
		if code := h.do("GET", "/api/v1/jobs?"+query, nil, &p); code != http.StatusOK {
			t.Fatalf("GET /jobs?%s: %d", query, code)
		}
		return p
	}
	p := page("limit=2")
	if got := jobIDs(p.Jobs); !slices.Equal(got, []int64{ids[4], ids[3]}) || p.Next == "" {
		t.Fatalf("first page %v next %q, want the two newest and a next", got, p.Next)
	}
	kill(ids[1]) // ends between pages: listed once, as killed
	p = page("limit=2&cursor=" + url.QueryEscape(p.Next))
	if got := jobIDs(p.Jobs); !slices.Equal(got, []int64{ids[2], ids[1]}) || p.Jobs[1].State != "killed" || p.Next == "" {
		t.Fatalf("second page %+v, want jobs 3 and 2 (killed) and a next", p)
	}
	p = page("limit=2&cursor=" + url.QueryEscape(p.Next))
	if got := jobIDs(p.Jobs); !slices.Equal(got, ids[:1]) || p.Next != "" {
		t.Fatalf("last page %v next %q, want job 1 and no next", got, p.Next)
	}

	tests := []struct {
		name, query string
		want        []int64
	}{
		{"ended only", "state=killed&limit=10", []int64{ids[2], ids[1], ids[0]}},
		{"live only", "state=queued,running&limit=10", []int64{ids[4], ids[3]}},
		{"since", "since=" + h.clock.Now().Add(-210*time.Second).Format(time.RFC3339) + "&limit=10", []int64{ids[4], ids[3], ids[2]}},
		{"since as a duration", "since=210s&state=killed&limit=10", []int64{ids[2]}},
		{"cursor alone", "cursor=" + fmt.Sprint(ids[3]), []int64{ids[2], ids[1], ids[0]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jobIDs(page(tt.query).Jobs); !slices.Equal(got, tt.want) {
				t.Fatalf("GET /jobs?%s: %v, want %v", tt.query, got, tt.want)
			}
		})
	}
	var all []api.Job
	if code := h.do("GET", "/api/v1/jobs", nil, &all); code != http.StatusOK || len(all) != 5 {
		t.Fatalf("GET /jobs without a limit: %d, %d jobs; want the bare array of all 5", code, len(all))
	}
	var since []api.Job
	if code := h.do("GET", "/api/v1/jobs?since=210s", nil, &since); code != http.StatusOK || len(since) != 3 {
		t.Fatalf("GET /jobs?since=210s: %d, %d jobs; want an array of 3", code, len(since))
	}
}

// TestHistoryPages: GET /history pages oldest first.
func TestHistoryPages(t *testing.T) {
	h := newHarness(t)
	var ids []int64
	for i := range 3 {
		ids = append(ids, h.submit(jobSpec(fmt.Sprintf("j%d", i+1), 1, "")))
	}
	h.clock.Advance(time.Second) // the window ends now, and excludes it
	var got []int64
	cursor := ""
	for range 5 {
		var p api.HistoryPage
		q := "/api/v1/history?limit=2"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		if code := h.do("GET", q, nil, &p); code != http.StatusOK {
			t.Fatalf("GET %s: %d", q, code)
		}
		for _, r := range p.Jobs {
			got = append(got, r.ID)
		}
		if cursor = p.Next; cursor == "" {
			break
		}
	}
	if !slices.Equal(got, ids) {
		t.Fatalf("history pages listed %v, want %v", got, ids)
	}
}

// TestPageRejects: bad page parameters are 400s naming the parameter.
func TestPageRejects(t *testing.T) {
	h := newHarness(t)
	tests := []struct{ name, path, field, says string }{
		{"limit 0", "/api/v1/jobs?limit=0", "limit", "from 1 to 1000"},
		{"limit too big", "/api/v1/jobs?limit=1001", "limit", "from 1 to 1000"},
		{"limit not a number", "/api/v1/jobs?limit=ten", "limit", `limit "ten"`},
		{"empty limit", "/api/v1/jobs?limit=", "limit", `limit ""`},
		{"forged cursor", "/api/v1/jobs?cursor=abc", "cursor", "not a cursor of GET /jobs"},
		{"history cursor", "/api/v1/history?cursor=-1", "cursor", "not a cursor of GET /history"},
		{"history limit", "/api/v1/history?limit=x", "limit", `limit "x"`},
		{"bad state in a list", "/api/v1/jobs?state=queued,done", "state", `state "done"`},
		{"bad since", "/api/v1/jobs?since=yesterday", "since", `since "yesterday"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e api.Error
			if code := h.do("GET", tt.path, nil, &e); code != http.StatusBadRequest || e.Field != tt.field ||
				!strings.Contains(e.Error, tt.says) {
				t.Fatalf("GET %s: %d %+v, want 400 naming %s and saying %q", tt.path, code, e, tt.field, tt.says)
			}
		})
	}
}
