package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestUserRolePrintsWarnings: allot user role prints the master's
// warnings (a role the users: section keeps from use) on stderr and
// still reports the roles (trial 2026-11-29j J3).
func TestUserRolePrintsWarnings(t *testing.T) {
	note := "the users: section of the configuration file cfg.yaml restricts ana to vision, whatever the user's roles: " +
		"the role lets ana read nlp but not submit there"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "PATCH" || r.URL.Path != "/api/v1/users/ana" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(api.User{Name: "ana", Roles: map[string]string{"nlp": "member", "vision": "member"},
			Warnings: []string{note}})
	}))
	t.Cleanup(srv.Close)
	out, errOut, err := run(t, "--master", srv.URL, "user", "role", "ana", "--role", "nlp=member")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "User ana: nlp=member,vision=member") {
		t.Errorf("stdout %q, want the roles", out)
	}
	if errOut != "warning: "+note+"\n" {
		t.Errorf("stderr %q, want the warning", errOut)
	}
}
