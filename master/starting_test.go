package master

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStartingAnswers: what a master waiting for its database at start
// answers, state by state, and that it hands over to the master's
// handler (trial 2026-11-29e E7).
func TestStartingAnswers(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 14, 1, 2, 0, time.UTC)
	refused := fmt.Errorf("open postgres store postgres://allot:xxxxx@db.example:5432/allot: %w", syscall.ECONNREFUSED)
	type ask struct {
		path, accept string
		status       int
		want         string
	}
	for _, c := range []struct {
		name string
		set  func(s *Starting)
		asks []ask
	}{
		{name: "before the first try fails", set: func(*Starting) {}, asks: []ask{
			{"/readyz", "", 503, "opening the database\n"},
			{"/livez", "", 200, "ok: opening the database\n"},
		}},
		{name: "waiting", set: func(s *Starting) {
			s.Waiting(t0, errors.New("first"))
			s.Waiting(t0.Add(3*time.Second), refused)
		}, asks: []ask{
			{"/livez", "", 200, "ok: waiting for the database since 2026-11-29T14:01:02Z: connection refused\n"},
			{"/readyz", "", 503, "waiting for the database since 2026-11-29T14:01:02Z: connection refused\n"},
			{"/healthz", "", 503, "waiting for the database since 2026-11-29T14:01:02Z: connection refused\n"},
			{"/readyz", "application/json", 503, `"ready":false,"store":{"up":false,"since":"2026-11-29T14:01:02Z","error":"connection refused"}`},
			{"/api/v1/jobs", "application/json", 503, `{"error":"the master is starting, waiting for the database since 2026-11-29T14:01:02Z: connection refused; nothing was changed or submitted; it serves once`},
			// F6: a browser gets a page, not the API's JSON.
			{"/", "text/html", 503, "<p>The Allot master is starting: waiting for the database since 2026-11-29T14:01:02Z: connection refused.</p>"},
			{"/jobs/4", "", 503, "this page reloads"},
			{"/metrics", "", 503, `{"error":"the master is starting, waiting`},
		}},
		{name: "loading", set: func(s *Starting) {
			s.Waiting(t0, refused)
			s.Loading()
		}, asks: []ask{
			{"/readyz", "", 503, "loading its state from the database\n"},
			{"/readyz", "application/json", 503, `"store":{"up":true}`},
		}},
		{name: "serving", set: func(s *Starting) {
			s.Waiting(t0, refused)
			s.Serve(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "the master") }))
		}, asks: []ask{
			{"/readyz", "", 200, "the master"},
			{"/api/v1/jobs", "", 200, "the master"},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewStarting()
			c.set(s)
			for _, a := range c.asks {
				r := httptest.NewRequest(http.MethodGet, a.path, nil)
				if a.accept != "" {
					r.Header.Set("Accept", a.accept)
				}
				w := httptest.NewRecorder()
				s.ServeHTTP(w, r)
				body := w.Body.String()
				if w.Code != a.status || !strings.Contains(body, a.want) {
					t.Errorf("GET %s (%s): %d %q, want %d with %q", a.path, a.accept, w.Code, body, a.status, a.want)
				}
				if strings.Contains(body, "db.example") || strings.Contains(body, "allot:") {
					t.Errorf("GET %s names the database: %q", a.path, body)
				}
				if isJSON := strings.HasPrefix(w.Header().Get("Content-Type"), "application/json"); w.Code == 503 && a.path != "/readyz" &&
					a.path != "/healthz" && isJSON != (strings.HasPrefix(a.path, "/api/") || a.path == "/metrics") {
					t.Errorf("GET %s: Content-Type %q: JSON for the API only", a.path, w.Header().Get("Content-Type"))
				}
				if strings.HasPrefix(a.path, "/api/") && w.Code == 503 && w.Header().Get("Retry-After") != "" {
					t.Errorf("GET %s: Retry-After %q: the CLI would retry rather than say it", a.path, w.Header().Get("Retry-After"))
				}
			}
		})
	}
}
