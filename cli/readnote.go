package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

// printReadNote writes a note to w when --project names a project (with
// subprojects, or any under it) where the caller has no role: the master
// then answers with the caller's own jobs there only, as it does for any
// listing, and an empty or short table would read as a project with no
// jobs. Nothing is said when the caller's roles cannot be read (a master
// that does not answer whoami): the note is extra.
func printReadNote(ctx context.Context, w io.Writer, c *client.Client, project string, subprojects bool, user string) {
	if project == "" && user == "" {
		return
	}
	who, err := c.Identity().Whoami(ctx)
	if err != nil || who.Admin || who.Roles["*"] != "" || (user != "" && user == who.User) {
		return
	}
	if project == "" {
		userReadNote(w, who, user)
		return
	}
	wanted := []string{project}
	if subprojects {
		projects, err := c.Projects(ctx)
		if err != nil {
			return
		}
		wanted = subtree(projects, project)
	}
	var none []string
	for _, p := range wanted {
		if who.Roles[p] == "" {
			none = append(none, p)
		}
	}
	if len(none) == 0 {
		return
	}
	what := "project " + none[0]
	if len(none) > 1 {
		what = "projects " + strings.Join(none, ", ")
	}
	fmt.Fprintf(w, "note: %s has no role in %s, so only %s own jobs there are listed "+
		"(allot whoami shows %s roles; an admin grants one with: allot user role %s --role %s=viewer)\n",
		who.User, what, who.User+"'s", who.User+"'s", who.User, none[0])
}

// userReadNote is the note for --user naming another user, whose jobs
// the master lists only in the projects where the caller has a role: an
// empty table would read as a user who runs nothing.
func userReadNote(w io.Writer, who api.Whoami, user string) {
	var mine []string
	for p := range who.Roles {
		mine = append(mine, p)
	}
	slices.Sort(mine)
	where := "no project"
	if len(mine) > 0 {
		where = "project " + strings.Join(mine, ", ")
		if len(mine) > 1 {
			where = "projects " + strings.Join(mine, ", ")
		}
	}
	fmt.Fprintf(w, "note: %s has a role in %s only, so %s's jobs elsewhere are not listed "+
		"(allot whoami shows %s roles; an admin grants one with: allot user role %s --role PROJECT=viewer)\n",
		who.User, where, user, who.User+"'s", who.User)
}

// subtree is project and every project under it, in the master's order.
func subtree(projects []api.Project, project string) []string {
	under := map[string]bool{project: true}
	for grew := true; grew; {
		grew = false
		for _, p := range projects {
			if !under[p.Name] && under[p.Parent] && p.Parent != "" {
				under[p.Name], grew = true, true
			}
		}
	}
	out := []string{project}
	for _, p := range projects {
		if p.Name != project && under[p.Name] && !slices.Contains(out, p.Name) {
			out = append(out, p.Name)
		}
	}
	return out
}
