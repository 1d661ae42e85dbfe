package cli

import (
	"net/http"
	"testing"
)

func TestJobResultErrorNamesTheJobOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		id   int64
		msg  string
		want string
	}{
		{"message names the job", 18, "job 18: its exit actions fail it", "master: 409 Conflict: job 18: its exit actions fail it"},
		{"message names it without a colon", 2, "job 2 is completed", "master: 409 Conflict: job 2 is completed"},
		{"message names another job", 1, "job 18: held", "job 1: master: 409 Conflict: job 18: held"},
		{"message names a longer ID", 1, "job 12 is completed", "job 1: master: 409 Conflict: job 12 is completed"},
		{"message does not name a job", 7, "not allowed", "job 7: master: 409 Conflict: not allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := jobResultError(tc.id, http.StatusConflict, tc.msg).Error(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
