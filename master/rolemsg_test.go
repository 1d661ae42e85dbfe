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

// TestRoleWarnsOfUsersSection: a member role in a project the users:
// section keeps the user out of is given, with a warning that says so
// (trial 2026-11-29j J3); a role the section allows, or a viewer's, has
// none.
func TestRoleWarnsOfUsersSection(t *testing.T) {
	withFile, _ := withConfigFile(t, "default_project: nlp\nprojects:\n  - {name: vision}\n  - {name: nlp}\n"+
		"users:\n  - {name: ana, projects: [vision], default_project: vision}\n")
	h := newHarness(t, withFile)
	var u api.User
	if code := h.do("POST", "/api/v1/users", api.NewUser{Name: "ana", Roles: map[string]string{"vision": "member"}}, &u); code != http.StatusCreated {
		t.Fatalf("POST /users: %d", code)
	}
	if len(u.Warnings) != 0 {
		t.Errorf("create with a role the section allows: warnings %q", u.Warnings)
	}
	for _, tc := range []struct{ role, want string }{
		{"member", "restricts ana to vision, whatever the user's roles: the role lets ana read nlp but not submit there"},
		{"viewer", ""},
	} {
		t.Run(tc.role, func(t *testing.T) {
			var u api.User
			if code := h.do("PATCH", "/api/v1/users/ana", api.UserUpdate{Roles: map[string]string{"nlp": tc.role}}, &u); code != http.StatusOK {
				t.Fatalf("PATCH: %d", code)
			}
			if u.Roles["nlp"] != tc.role {
				t.Errorf("roles %v, want nlp=%s given all the same", u.Roles, tc.role)
			}
			got := strings.Join(u.Warnings, "; ")
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("warnings %q, want %q", got, tc.want)
			}
		})
	}
}
