package master

import (
	"strconv"
	"testing"
)

// TestUserRateLimit: a user's changes over the rate get 429 with
// Retry-After; reads, other users and admins are not held back.
func TestUserRateLimit(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.UserRate, o.UserBurst = 0.001, 3 })
	h.agent("n1", 2)
	ann := h.as("ann")
	bo := h.as("bo")
	for i := range 3 {
		if code := h.doAs(ann, "POST", "/api/v1/jobs", jobSpec("j"+strconv.Itoa(i), 1, ""), nil); code != 201 {
			t.Fatalf("submission %d within the burst: %d", i, code)
		}
	}
	tests := []struct {
		name  string
		token string
		meth  string
		path  string
		body  string
		want  int
	}{
		{"over the burst", ann, "POST", "/api/v1/jobs", jobSpec("over", 1, ""), 429},
		{"a read is not limited", ann, "GET", "/api/v1/jobs", "", 200},
		{"another user", bo, "POST", "/api/v1/jobs", jobSpec("bo", 1, ""), 201},
		{"an admin", h.admin, "POST", "/api/v1/jobs", jobSpec("admin", 1, ""), 201},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body any
			if tt.body != "" {
				body = tt.body
			}
			if code := h.doAs(tt.token, tt.meth, tt.path, body, nil); code != tt.want {
				t.Fatalf("status %d, want %d", code, tt.want)
			}
		})
	}
}
