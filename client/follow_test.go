package client

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/allot-sched/allot/api"
)

// logServer serves pages of a job's log: pages[cursor] answers
// ?after=cursor, and the queries it saw are recorded.
type logServer struct {
	mu      sync.Mutex
	pages   map[string]api.Logs
	queries []string
}

func (s *logServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queries = append(s.queries, r.URL.RawQuery)
	page, ok := s.pages[r.URL.Query().Get("after")]
	if !ok {
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(api.Error{Error: "bad cursor", Field: "after"})
		return
	}
	json.NewEncoder(w).Encode(page)
}

func lines(texts ...string) []api.LogLine {
	out := make([]api.LogLine, len(texts))
	for i, t := range texts {
		out[i] = api.LogLine{Seq: int64(i + 1), Text: t, Stream: "stdout"}
	}
	return out
}

func TestFollow(t *testing.T) {
	// A job that prints a, b; then nothing for one poll; then c and ends.
	pages := map[string]api.Logs{
		"":   {Lines: lines("a", "b"), Next: "c2"},
		"c2": {Lines: nil, Next: "c2"},
	}
	tests := []struct {
		name    string
		pages   map[string]api.Logs
		follow  bool
		want    string
		cursor  string
		queries []string
		err     string
	}{
		{"follow until done", map[string]api.Logs{
			"":   pages[""],
			"c2": {Lines: lines("c"), Next: "c3"},
			"c3": {Lines: nil, Next: "c3", Done: true},
		}, true, "a b c", "c3", []string{"task=1&wait=30", "after=c2&task=1&wait=30", "after=c3&task=1&wait=30"}, ""},
		{"done with the last lines", map[string]api.Logs{
			"": {Lines: lines("a"), Next: "c1", Done: true},
		}, true, "a", "c1", []string{"task=1&wait=30"}, ""},
		{"without follow, stop when no more now", pages, false, "a b", "c2", []string{"task=1", "after=c2&task=1"}, ""},
		{"lines without a cursor", map[string]api.Logs{"": {Lines: lines("a")}}, true, "a", "",
			[]string{"task=1&wait=30"}, "the master sent lines without a cursor"},
		{"bad cursor", map[string]api.Logs{"": {Lines: lines("a"), Next: "zz"}}, true, "a", "zz",
			[]string{"task=1&wait=30", "after=zz&task=1&wait=30"}, "master: 400 Bad Request: after: bad cursor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls := &logServer{pages: tt.pages}
			srv := httptest.NewServer(ls)
			defer srv.Close()
			c, _ := New(srv.URL, srv.Client())
			var got []string
			task := 1
			cursor, err := c.Follow(ctx(t), 3, LogQuery{Task: &task}, tt.follow, func(l api.LogLine) error {
				got = append(got, l.Text)
				return nil
			})
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("error = %v, want %q", err, tt.err)
			}
			if strings.Join(got, " ") != tt.want || cursor != tt.cursor {
				t.Errorf("lines %q, cursor %q; want %q, %q", got, cursor, tt.want, tt.cursor)
			}
			if strings.Join(ls.queries, " | ") != strings.Join(tt.queries, " | ") {
				t.Errorf("queries %q\nwant    %q", ls.queries, tt.queries)
			}
		})
	}
}

func TestFollowStopsOnCallbackError(t *testing.T) {
	ls := &logServer{pages: map[string]api.Logs{"": {Lines: lines("a", "b"), Next: "c2"}}}
	srv := httptest.NewServer(ls)
	defer srv.Close()
	c, _ := New(srv.URL, srv.Client())
	stop := errors.New("stop")
	n := 0
	cursor, err := c.Follow(ctx(t), 3, LogQuery{}, true, func(api.LogLine) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 || cursor != "" {
		t.Errorf("Follow = %q, %v after %d lines; want the callback's error after 1 line and no cursor", cursor, err, n)
	}
}
