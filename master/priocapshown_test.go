package master

import "testing"

// TestProjectsShowPriorityCap: GET /projects gives each project its
// effective max_priority_class, naming the ancestor whose setting a
// subproject inherits, so that members can see the cap before a
// submission is refused (trial 2026-11-29a: allot projects did not show
// it).
func TestProjectsShowPriorityCap(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, `default_project: nlp
projects:
  - {name: team, max_priority_class: NORMAL}
  - {name: team-sub, parent: team}
  - {name: team-low, parent: team, max_priority_class: LOW}
  - {name: nlp}
`)))
	_, byName := h.projects()
	for _, tc := range []struct {
		project, class, from string
	}{
		{"team", "NORMAL", ""},
		{"team-sub", "NORMAL", "team"},
		{"team-low", "LOW", ""},
		{"nlp", "", ""},
	} {
		t.Run(tc.project, func(t *testing.T) {
			p, ok := byName[tc.project]
			if !ok {
				t.Fatalf("project %s not listed", tc.project)
			}
			if p.MaxPriorityClass != tc.class || p.MaxPriorityClassFrom != tc.from {
				t.Fatalf("max_priority_class %q from %q, want %q from %q", p.MaxPriorityClass, p.MaxPriorityClassFrom, tc.class, tc.from)
			}
		})
	}
}
