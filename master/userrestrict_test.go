package master

import (
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestConfigUserRestriction: a submission that the configuration file's
// users: section refuses says so, naming the file and what to change,
// though the user holds a role in the project; /whoami shows the
// restriction beside the roles.
func TestConfigUserRestriction(t *testing.T) {
	cfg := mustConfig(t, `
default_project: vision
projects:
  - name: vision
  - name: nlp
users:
  - name: ann
    projects: [vision]
  - name: mia
    projects: [vision]
`)
	h := newHarness(t, withConfig(cfg))
	ann := h.as("ann", "vision=member", "nlp=member")
	var e api.Error
	if code := h.doAs(ann, "POST", "/api/v1/jobs", `{"name": "x", "entrypoint": "e", "project": "nlp"}`, &e); code != 403 {
		t.Fatalf("submit to nlp: %d %+v, want 403", code, e)
	}
	for _, want := range []string{"users: section of the configuration file test.yaml", "restricts ann to vision",
		"whatever the user's roles", "add nlp to ann's projects"} {
		if !strings.Contains(e.Error, want) {
			t.Errorf("refusal %q does not say %q", e.Error, want)
		}
	}
	if strings.Contains(e.Error, "Besides") {
		t.Errorf("refusal %q names a missing role, but ann is a member of nlp", e.Error)
	}
	// A listed user without a role in the project is told both: the list
	// alone would not let her in.
	mia := h.as("mia", "vision=member")
	if code := h.doAs(mia, "POST", "/api/v1/jobs", `{"name": "x", "entrypoint": "e", "project": "nlp"}`, &e); code != 403 {
		t.Fatalf("mia's submit to nlp: %d %+v, want 403", code, e)
	}
	for _, want := range []string{"restricts mia to vision", "add nlp to mia's projects",
		". Besides, submitting to project \"nlp\" needs the member or lead role there", "--role nlp=member"} {
		if !strings.Contains(e.Error, want) {
			t.Errorf("refusal %q does not say %q", e.Error, want)
		}
	}
	for _, c := range []struct {
		name, token string
		want        []string
	}{
		{"listed user", ann, []string{"vision"}},
		{"unlisted user", h.admin, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var who api.Whoami
			if code := h.doAs(c.token, "GET", "/api/v1/whoami", nil, &who); code != 200 {
				t.Fatalf("whoami: %d", code)
			}
			if !slices.Equal(who.ConfigProjects, c.want) {
				t.Errorf("whoami config_projects %v, want %v", who.ConfigProjects, c.want)
			}
		})
	}
}
