package config

import (
	"strings"
	"testing"
)

// TestRoleNote: a role in a project the users: section keeps the user
// out of is noted (trial 2026-11-29j J3); one the section allows, or of
// a user it does not list, is not.
func TestRoleNote(t *testing.T) {
	c, err := Parse("cfg.yaml", []byte("default_project: nlp\nprojects:\n  - {name: vision}\n  - {name: nlp}\n  - {name: cv, parent: vision}\n"+
		"users:\n  - {name: ana, projects: [vision], default_project: cv}\n  - {name: bo}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ user, project, want string }{
		{"ana", "nlp", "the users: section of the configuration file cfg.yaml restricts ana to vision, whatever the user's roles: " +
			"the role lets ana read nlp but not submit there; add nlp to ana's projects there"},
		{"ana", "*", "the role lets ana read every project but submit only to vision"},
		{"ana", "vision", ""},
		{"ana", "cv", ""},
		{"bo", "nlp", ""},
		{"cy", "nlp", ""},
	} {
		t.Run(tt.user+" "+tt.project, func(t *testing.T) {
			got := c.RoleNote(tt.user, tt.project)
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("RoleNote = %q, want %q", got, tt.want)
			}
		})
	}
}
