package spec

import (
	"slices"
	"testing"

	"github.com/allot-sched/allot/yamlfield/fieldtest"
)

// TestProjectQOSErrors: a project's qos list names the field and line of
// each mistake, in either dialect.
func TestProjectQOSErrors(t *testing.T) {
	const levels = "qos:\n  - {name: normal}\n  - {name: high}\n"
	tests := cases([]errorCase{
		{"not a list", "projects:\n  - {name: a, quota: 1, qos: normal}\n" + levels, 2, `projects[0] "a": qos: expected a list of QOS names`},
		{"empty", "projects:\n  - {name: a, quota: 1, qos: []}\n" + levels, 2, `projects[0] "a": qos: expected at least one QOS name; leave qos out to allow every QOS level`},
		{"twice", "projects:\n  - {name: a, quota: 1, qos: [high, high]}\n" + levels, 2, `projects[0] "a": qos[1]: QOS "high" is listed twice`},
		{"unknown", "projects:\n  - {name: a, quota: 1, qos: [hihg]}\n" + levels, 2, `projects[0] "a": qos: unknown QOS "hihg"`},
	})
	fieldtest.Run(t, parser(master), tests)
	fieldtest.Run(t, parser(scenario), tests)
}

// TestAllowedQOS: a project takes its own list, else its nearest
// ancestor's, else every level; a refusal names whose list it is.
func TestAllowedQOS(t *testing.T) {
	projects := []Project{
		{Name: "org", QOS: []string{"normal", "high"}},
		{Name: "team", Parent: "org"},
		{Name: "lab", Parent: "team", QOS: []string{"normal"}},
		{Name: "free"},
	}
	tests := []struct {
		project, qos string
		levels       []string
		refusal      string
	}{
		{"org", "high", []string{"normal", "high"}, ""},
		{"org", "emergency", []string{"normal", "high"}, `project org may not use QOS "emergency" (its qos: normal, high)`},
		{"team", "emergency", []string{"normal", "high"}, `project team may not use QOS "emergency" (the qos of its parent org: normal, high)`},
		{"lab", "high", []string{"normal"}, `project lab may not use QOS "high" (its qos: normal)`},
		{"free", "emergency", nil, ""},
		{"unknown", "emergency", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.project+"/"+tc.qos, func(t *testing.T) {
			if got, _ := AllowedQOS(projects, tc.project); !slices.Equal(got, tc.levels) {
				t.Errorf("allowed %v, want %v", got, tc.levels)
			}
			err := CheckQOSAllowed(projects, tc.project, tc.qos)
			if got := errString(err); got != tc.refusal {
				t.Errorf("refusal %q, want %q", got, tc.refusal)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
