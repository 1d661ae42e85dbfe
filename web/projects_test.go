package web

import (
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestProjectsQuotaInQuotaPools: the projects page compares a project's
// quota with its use in the quota pools only, pool by pool, and names
// the GPUs it holds elsewhere apart, never as over quota.
func TestProjectsQuotaInQuotaPools(t *testing.T) {
	cases := []struct {
		name    string
		project string
		change  func(p *api.Project)
		want    []string
		over    []string // the rows flagged over quota
	}{
		{
			name: "quota held in the quota pool, more in a FIFO pool", project: "nlp",
			change: func(p *api.Project) {
				p.Used, p.UsedInQuotaPools, p.QuotaPools = 14, 12, []api.ProjectPoolUse{{Pool: "h100", Used: 12}}
			},
			want: []string{"12 of quota 12; 2 more in pools without quota", "14", "12"},
			over: []string{"vision"},
		},
		{
			name: "past its quota only by what LOW work borrows", project: "nlp",
			change: func(p *api.Project) {
				p.Used, p.UsedInQuotaPools, p.OverQuota = 15, 15, 0
				p.QuotaPools = []api.ProjectPoolUse{{Pool: "h100", Used: 15, Borrowed: 3}}
			},
			want: []string{"15 of quota 12; 3 of them borrowed by LOW work, counting toward no quota"},
			over: []string{"vision"},
		},
		{
			name: "over quota by the quota pool's use alone", project: "vision",
			want: []string{"6 of quota 4, over quota by 2; 2 more in pools without quota"},
			over: []string{"vision"},
		},
		{
			name: "several quota pools", project: "research",
			change: func(p *api.Project) {
				p.Used, p.UsedInQuotaPools = 13, 13
				p.QuotaPools = []api.ProjectPoolUse{{Pool: "h100", Used: 10}, {Pool: "v100", Used: 3}}
			},
			want: []string{"10 in h100, 3 in v100, each of quota 16", "h100 10, v100 3"},
			over: []string{"vision"},
		},
		{
			name: "no quota pool", project: "research",
			change: func(p *api.Project) { p.UsedInQuotaPools, p.QuotaPools = 0, nil },
			want:   []string{"12 used, in no quota pool"},
			over:   []string{"vision"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			for i := range f.projects {
				if f.projects[i].Name == c.project && c.change != nil {
					c.change(&f.projects[i])
				}
			}
			p := openPage(t, f, "#/projects", wide)
			sel := `#projects tr[data-project="` + c.project + `"]`
			got := p.waitText(sel, c.want[0])
			for _, w := range c.want[1:] {
				if !strings.Contains(got, w) {
					t.Errorf("%s = %q, want %q", sel, got, w)
				}
			}
			if over := rowIDs(p, "#projects tr.over-quota", "project"); !slices.Equal(over, c.over) {
				t.Errorf("over-quota rows = %v, want %v", over, c.over)
			}
		})
	}
}

// TestProjectsPriorityCap: the projects page shows each project's
// max_priority_class, naming the parent a subproject inherits it from,
// and "any class" where nothing caps it.
func TestProjectsPriorityCap(t *testing.T) {
	f := newFixture()
	f.projects[1].MaxPriorityClass, f.projects[1].MaxPriorityClassFrom = "NORMAL", "research"
	f.projects[0].MaxPriorityClass = "NORMAL"
	p := openPage(t, f, "#/projects", wide)
	for _, tc := range []struct{ project, want string }{
		{"research", "NORMAL"},
		{"vision", "NORMAL (research's)"},
		{"nlp", "any class"},
	} {
		t.Run(tc.project, func(t *testing.T) {
			p.waitText(`#projects tr[data-project="`+tc.project+`"]`, tc.want)
		})
	}
}
