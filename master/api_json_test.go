package master

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestAPIJSONNotHTMLEscaped: the API's answers keep <, > and & as they
// are, so that an error reads "expected an integer >= 0", not "\u003e= 0".
func TestAPIJSONNotHTMLEscaped(t *testing.T) {
	t.Run("writer", func(t *testing.T) {
		tests := []struct {
			name string
			v    any
			want string
		}{
			{"error", api.Error{Error: "a >= 0 & b < 1", Field: "x"}, `{"error":"a >= 0 & b < 1","field":"x"}` + "\n"},
			{"string", "<b>", `"<b>"` + "\n"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				rec := httptest.NewRecorder()
				writeJSON(rec, http.StatusBadRequest, tt.v)
				if got := rec.Body.String(); got != tt.want {
					t.Errorf("body %q, want %q", got, tt.want)
				}
			})
		}
	})
	t.Run("requests", func(t *testing.T) {
		h := newHarness(t)
		h.submit(jobSpec("a", 1, ""))
		tests := []struct {
			name, path, want string
		}{
			{"audit after", "/api/v1/audit?after=-1", `expected an integer >= 0`},
			{"log task", "/api/v1/jobs/1/logs?task=-1", `expected a task index >= 0`},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				code, body, _ := h.raw("GET", tt.path, "")
				if code != http.StatusBadRequest || !strings.Contains(body, tt.want) {
					t.Errorf("GET %s = %d %s, want 400 with %q", tt.path, code, body, tt.want)
				}
			})
		}
	})
}
