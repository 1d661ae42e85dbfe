package master

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/allot-sched/allot/api"
)

// FuzzRequestBodies sends arbitrary bodies to every endpoint that decodes
// one: the master must answer with a 2xx, or a 4xx carrying an api.Error,
// never a server error or a panic.
func FuzzRequestBodies(f *testing.F) {
	for _, s := range []string{
		`{"name": "x", "entrypoint": "e", "resources": {"slots": 2}}`,
		`{"name": "n1", "gpus": [{"index": 0, "uuid": "u", "type": "h100"}]}`,
		`{"reports": [{"seq": 1, "task": {"job_id": "1", "task_index": 0, "attempt": 1}, "event": "running"}], "running": []}`,
		`{"priority": 5}`, `{"weight": -1}`, `{"lines": [{"task": {"job_id": "1", "attempt": 1}, "seq": 1, "stream": "stdout"}]}`,
		`{}`, `[]`, `null`, `{"a":1}{`, "\x00", `{"priority": 1e400}`,
	} {
		f.Add(0, []byte(s))
		f.Add(3, []byte(s))
	}
	// A registration of an agent that shuts down (api.Register.Leaving).
	f.Add(2, []byte(`{"name": "n1", "gpus": [{"index": 0, "uuid": "u", "type": "h100"}], "running": [], "leaving": true}`))
	h := newHarness(f)
	handler := h.m.Handler()
	h.agent("n1", 2)
	h.submit(jobSpec("seed", 1, ""))
	targets := []struct{ method, path string }{
		{"POST", "/api/v1/jobs"},
		{"PATCH", "/api/v1/jobs/1"},
		{"POST", "/api/v1/agents/register"},
		{"POST", "/api/v1/agents/n1/sync"},
		{"POST", "/api/v1/agents/n1/logs"},
	}
	f.Fuzz(func(t *testing.T, target int, body []byte) {
		tg := targets[(target%len(targets)+len(targets))%len(targets)]
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(tg.method, tg.path, bytes.NewReader(body))
		// Authenticated as a real client would be, so that the bodies reach
		// the handlers rather than stop at a 401.
		req.Header.Set("Authorization", "Bearer "+h.tokenFor(tg.path, nil))
		handler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: status %d: %s", tg.method, tg.path, body, rec.Code, rec.Body)
		}
		if rec.Code >= 400 {
			var e api.Error
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
				t.Fatalf("%s %s %q: status %d with body %q, want an api.Error", tg.method, tg.path, body, rec.Code, rec.Body)
			}
		}
		if rec.Code == http.StatusCreated || rec.Code == http.StatusOK || rec.Code == http.StatusNoContent {
			return
		}
	})
}

// FuzzDecodeStrict: the strict decoder never panics, and what it accepts
// is one JSON object that plain encoding/json reads the same way.
func FuzzDecodeStrict(f *testing.F) {
	for _, s := range []string{`{"priority": 5}`, `{"priority": 5} `, `{"priority": 5}{}`, `{"prio": 1}`, ``, `{"weight": "x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var u api.JobUpdate
		if err := decodeStrict(data, &u); err != nil {
			if _, ok := err.(*httpError); !ok {
				t.Fatalf("error %T %v, want *httpError", err, err)
			}
			return
		}
		var plain api.JobUpdate
		if err := json.Unmarshal(data, &plain); err != nil {
			t.Fatalf("accepted %q, which encoding/json refuses: %v", data, err)
		}
		a, _ := json.Marshal(u)
		b, _ := json.Marshal(plain)
		if !bytes.Equal(a, b) {
			t.Fatalf("%q decodes to %s strictly and %s plainly", data, a, b)
		}
	})
}
