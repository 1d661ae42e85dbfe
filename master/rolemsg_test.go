package master

import (
	"net/http"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestRoleErrorsSuggest: a mistyped project or role in allot user
// create/role is refused naming the likely one, and the role admin,
// which is a user's flag, says how to make an admin.
func TestRoleErrorsSuggest(t *testing.T) {
	withFile, _ := withConfigFile(t, "default_project: nlp\nprojects:\n  - {name: vision}\n  - {name: nlp}\n")
	h := newHarness(t, withFile)
	h.as("ana")
	cases := []struct {
		name, project, role, want string
	}{
		{"a typo of a project", "visoin", "member", `project \"visoin\" is not configured; did you mean \"vision\"? (projects: vision, nlp, or * for all)`},
		{"a typo of a role", "vision", "membr", `role \"membr\": expected viewer, member or lead; did you mean \"member\"?`},
		{"admin as a role", "nlp", "admin", `admin is no role in a project but a user's flag, given when the user is made (allot user create NAME --admin)`},
		{"no likely role", "nlp", "boss", `role \"boss\": expected viewer, member or lead","field"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"name": "dave", "roles": map[string]string{tc.project: tc.role}}
			code, got := h.rawAs(h.admin, "POST", "/api/v1/users", body)
			if code != 400 || !strings.Contains(got, tc.want) {
				t.Fatalf("create: %d %s, want 400 with %s", code, got, tc.want)
			}
			code, got = h.rawAs(h.admin, "PATCH", "/api/v1/users/ana", map[string]any{"roles": body["roles"]})
			if code != 400 || !strings.Contains(got, tc.want) {
				t.Fatalf("role: %d %s, want 400 with %s", code, got, tc.want)
			}
		})
	}
}

// TestCreateUserWarnsOfCaseClash: a user whose name differs from
// another's only by case is made (names are case-sensitive) with a
// warning naming the other; a name unlike any other's gets none.
func TestCreateUserWarnsOfCaseClash(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		name, says string
	}{
		{"ana", ""},
		{"Ana", `user "Ana" differs from user "ana" only by case`},
		{"bo", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var u api.User
			if code := h.do("POST", "/api/v1/users", api.NewUser{Name: tc.name}, &u); code != http.StatusCreated {
				t.Fatalf("POST /users %s: %d", tc.name, code)
			}
			got := strings.Join(u.Warnings, "; ")
			if tc.says == "" && got != "" || !strings.Contains(got, tc.says) {
				t.Fatalf("warnings %q, want %q", got, tc.says)
			}
		})
	}
}
