package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestDisableSaysJobsRunOn: allot user disable says what becomes of the
// user's queued and running jobs (nothing), so that an admin who wants
// them stopped knows to kill them; with none it says only that the user
// is disabled, and enable says nothing of jobs.
func TestDisableSaysJobsRunOn(t *testing.T) {
	jobs := map[string][]api.Job{"ana": {{ID: 3}, {ID: 4}}, "bo": {{ID: 5}}, "cy": {}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPatch && strings.HasPrefix(r.URL.Path, "/api/v1/users/"):
			reply(w, http.StatusOK, api.User{Name: strings.TrimPrefix(r.URL.Path, "/api/v1/users/")})
		case r.URL.Path == "/api/v1/jobs" && r.URL.Query().Get("state") == "queued,running":
			reply(w, http.StatusOK, jobs[r.URL.Query().Get("user")])
		default:
			reply(w, http.StatusNotFound, api.Error{Error: "unexpected " + r.Method + " " + r.URL.String()})
		}
	}))
	t.Cleanup(srv.Close)
	t.Setenv(TokenEnv, "allot_u_admin")
	cases := []struct {
		verb, user, want string
	}{
		{"disable", "ana", "User ana disabled; the user's 2 queued or running jobs are left as they are (allot jobs --user ana; allot job kill -u ana stops them)\n"},
		{"disable", "bo", "User bo disabled; the user's 1 queued or running job is left as it is (allot jobs --user bo; allot job kill -u bo stops them)\n"},
		{"disable", "cy", "User cy disabled\n"},
		{"enable", "ana", "User ana enabled\n"},
	}
	for _, tc := range cases {
		t.Run(tc.verb+" "+tc.user, func(t *testing.T) {
			out, errOut, err := run(t, "--master", srv.URL, "user", tc.verb, tc.user)
			if err != nil || out != tc.want {
				t.Fatalf("allot user %s %s: %v, stdout %q, stderr %q; want %q", tc.verb, tc.user, err, out, errOut, tc.want)
			}
		})
	}
}
