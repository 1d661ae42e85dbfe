package spec

import (
	"slices"
	"testing"
)

func TestProjectChanges(t *testing.T) {
	vision := Project{Name: "vision", Parent: "ml", Quota: 4, OverQuotaWeight: 4, Shares: 4, QOS: []string{"normal"}, Line: 3}
	with := func(f func(p *Project)) Project { p := vision; f(&p); return p }
	tests := []struct {
		name     string
		was, now []Project
		want     []string
	}{
		{"nothing but a line and a qos list", []Project{vision},
			[]Project{with(func(p *Project) { p.Line, p.QOS, p.MaxPriorityClass = 9, []string{"high"}, "LOW" })}, nil},
		{"quota with its defaults (trial 29g G2)", []Project{vision},
			[]Project{with(func(p *Project) { p.Quota, p.OverQuotaWeight, p.Shares = 8, 8, 8 })},
			[]string{"project vision: quota 4 → 8, over_quota_weight 4 → 8, shares 4 → 8"}},
		{"limit and budget set, parent gone", []Project{vision},
			[]Project{with(func(p *Project) { p.Limit, p.PreemptBudget, p.Parent, p.OverQuotaWeight = 6, 2, "", 0.5 })},
			[]string{"project vision: parent ml → none, over_quota_weight 4 → 0.5, limit none → 6, preempt_budget none → 2"}},
		{"added and removed", []Project{vision}, []Project{{Name: "nlp", Quota: 2}},
			[]string{"project nlp added (quota 2)", "project vision removed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ProjectChanges(tt.was, tt.now); !slices.Equal(got, tt.want) {
				t.Errorf("ProjectChanges = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLicenseChanges(t *testing.T) {
	tests := []struct {
		name     string
		was, now []License
		want     []string
	}{
		{"a line moved", []License{{Name: "matlab", Total: 1, Line: 2}}, []License{{Name: "matlab", Total: 1, Line: 5}}, nil},
		{"lowered to 0 (trial 29g G1)", []License{{Name: "matlab", Total: 1}}, []License{{Name: "matlab"}},
			[]string{"license matlab: total 1 → 0"}},
		{"added and removed", []License{{Name: "matlab", Total: 1}}, []License{{Name: "comsol", Total: 2}},
			[]string{"license comsol added (total 2)", "license matlab removed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LicenseChanges(tt.was, tt.now); !slices.Equal(got, tt.want) {
				t.Errorf("LicenseChanges = %q, want %q", got, tt.want)
			}
		})
	}
}
