package web

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestJobActionsOnlyWhereAllowed: the job page offers Kill, Requeue and
// Set priority on a live job the signed-in user may change, by the
// master's rule (the owner while a member, the project's lead, an
// admin), Kill and Requeue alone to its owner without the member role
// (who may always kill or requeue it),
// and neither on an ended job, one the user may only read (with a line
// that says why) or one it cannot show.
func TestJobActionsOnlyWhereAllowed(t *testing.T) {
	member := &api.Whoami{User: "ann", Roles: map[string]string{"nlp": "member"}}
	cases := []struct {
		name   string
		who    *api.Whoami
		owner  string // job 2's owner; "" keeps alice
		hash   string
		shown  bool
		denied string // the line that says why; "" for none
		kill   bool   // Kill shown where shown is false
	}{
		{"the project's lead", nil, "", "#/jobs/2", true, "", false},
		{"an admin", &api.Whoami{User: "root", Admin: true}, "", "#/jobs/2", true, "", false},
		{"the owner, a member", member, "ann", "#/jobs/2", true, "", false},
		{"a member, another user's job", member, "", "#/jobs/2", false, "only its owner (alice) while a member of project nlp", false},
		{"the owner, a viewer of every project", &api.Whoami{User: "ann", Roles: map[string]string{"*": "viewer"}}, "ann", "#/jobs/2", false,
			"ann owns this job and may kill or requeue it, but not change its priority", true},
		{"a viewer of every project, another user's job", &api.Whoami{User: "ann", Roles: map[string]string{"*": "viewer"}}, "", "#/jobs/2", false,
			"ann may not kill or change", false},
		{"an ended job", nil, "", "#/jobs/6", false, "", false},
		{"no such job", nil, "", "#/jobs/99", false, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			f.who = c.who
			if c.owner != "" {
				f.jobs[1].User = c.owner
			}
			p := openPage(t, f, c.hash, wide)
			if c.hash == "#/jobs/99" {
				p.expect("status of 404")
				p.waitText("#action-msg", "There is no job 99")
			} else {
				p.waitFor(`document.getElementById('fields').textContent.includes('Kind')`, "the job")
			}
			for _, id := range []string{"kill", "queue-actions", "priority-form"} {
				want := c.shown || id != "priority-form" && c.kill
				if hidden := evalJS[bool](p, `document.getElementById('`+id+`').hidden`); hidden == want {
					t.Errorf("#%s hidden = %v, want shown %v", id, hidden, want)
				}
				// What the page shows, not only the attribute.
				if shown := evalJS[bool](p, `getComputedStyle(document.getElementById('`+id+`')).display !== 'none'`); shown != want {
					t.Errorf("#%s displayed = %v, want %v", id, shown, want)
				}
			}
			denied := evalJS[string](p, `(e => e.hidden ? '' : e.textContent)(document.getElementById('no-actions'))`)
			if c.denied == "" && denied != "" || !strings.Contains(denied, c.denied) {
				t.Errorf("why no actions = %q, want %q", denied, c.denied)
			}
		})
	}
}

// TestLicenseWaitNamesHolders: a job waiting for a license is blocked by
// the license and the jobs that hold it (the counterfactual's license),
// as the explanation below names them, not by "no running job"; a holder
// the viewer may not read is named without a link.
func TestLicenseWaitNamesHolders(t *testing.T) {
	holder := func(id int64, private bool) api.LicenseHolder {
		return api.LicenseHolder{JobRef: api.JobRef{ID: id, Slots: 1, Private: private}, Holding: 1}
	}
	cases := []struct {
		name    string
		w       api.LicenseWait
		want    string
		linkTo  string // a holder's link, "" for none
		notLink string // a holder shown without a link
	}{
		{"one holder", api.LicenseWait{Name: "matlab", PerTask: 1, Total: 1, Holders: []api.LicenseHolder{holder(2, false)}},
			"license matlab, held by job 2", "#/jobs/2", ""},
		{"two holders, one private", api.LicenseWait{Name: "ansys", PerTask: 2, Total: 2,
			Holders: []api.LicenseHolder{holder(2, false), holder(7, true)}}, "license ansys, held by job 2, #7", "#/jobs/2", "#/jobs/7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			f.jobs[4].Pending = &api.Pending{Reason: "license", Message: "waiting for a license"}
			w := c.w
			f.wouldStart = map[int64]*api.Counterfactual{5: {Message: "It needs a license.", License: &w}}
			p := openPage(t, f, "#/jobs/5", wide)
			p.waitText("#would-start", "It needs a license.")
			if got := p.waitText("#blocked-by", "license"); got != c.want {
				t.Errorf("blocked by %q, want %q", got, c.want)
			}
			if n := evalJS[int](p, `document.querySelectorAll('#blocked-by a[href="`+c.linkTo+`"]').length`); n != 1 {
				t.Errorf("%d links to %s in Blocked by, want 1", n, c.linkTo)
			}
			if c.notLink != "" && evalJS[int](p, `document.querySelectorAll('#blocked-by a[href="`+c.notLink+`"]').length`) != 0 {
				t.Errorf("a private holder is linked (%s)", c.notLink)
			}
		})
	}
}

// TestTaskWithoutHyperparameters: a command job's task, whose
// hyperparameters the API sends as {}, shows none.
func TestTaskWithoutHyperparameters(t *testing.T) {
	f := newFixture()
	f.jobs[1].Kind = "command"
	f.jobs[1].TaskList[0].Hyperparameters = json.RawMessage(`{}`)
	f.jobs[0].TaskList[0].Hyperparameters = json.RawMessage(`{"lr":0.1}`)
	p := openPage(t, f, "#/jobs/2", wide)
	if head := p.waitText(`#attempts tbody[data-task="0"] th`, "task 0"); head != "task 0" {
		t.Errorf("task head %q, want no hyperparameters", head)
	}
	p.goTo("#/jobs/1")
	p.waitText(`#attempts tbody[data-task="0"] th`, `{"lr":0.1}`)
}

// TestUsageSharesOfTheRowsListed: the usage page's shares are of the
// rows the user may read; a user who does not read every project is
// told so, one who does sees the cluster's.
func TestUsageSharesOfTheRowsListed(t *testing.T) {
	cases := []struct {
		name  string
		who   *api.Whoami
		share string
		scope bool
	}{
		{"a member", &api.Whoami{User: "ann", Roles: map[string]string{"vision": "member"}}, "75.0% of the GPU-hours listed", true},
		{"an admin", &api.Whoami{User: "root", Admin: true}, "75.0% of all GPU-hours", false},
		{"a viewer of every project", &api.Whoami{User: "ann", Roles: map[string]string{"*": "viewer"}}, "75.0% of all GPU-hours", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			f.who = c.who
			p := openPage(t, f, "#/usage", wide)
			p.waitText(`#usage tr[data-usage="vision"]`, c.share)
			if hidden := evalJS[bool](p, `document.getElementById('usage-scope').hidden`); hidden == c.scope {
				t.Errorf("the note on what is listed hidden = %v, want shown %v", hidden, c.scope)
			}
			if c.scope {
				p.waitText("#usage-scope", "Only the projects where you have a role, and your own usage, are listed")
			}
		})
	}
}
