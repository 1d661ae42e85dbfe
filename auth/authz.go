package auth

import (
	"fmt"
	"sort"

	"github.com/allot-sched/allot/store"
)

// Principal is who made a request: a user (with its roles) or a node.
type Principal struct {
	User  string
	Admin bool
	// Roles maps a project, or store.AllProjects, to the user's role.
	Roles map[string]store.Role
	// Node is set instead of User for an agent's node credential.
	Node string
}

// PrincipalOf builds the principal of a stored user.
func PrincipalOf(u store.User) Principal {
	return Principal{User: u.Name, Admin: u.Admin, Roles: u.Roles}
}

// Actor names the principal in logs and the audit log.
func (p Principal) Actor() string {
	switch {
	case p.Node != "":
		return "node:" + p.Node
	case p.User != "":
		return "user:" + p.User
	}
	return "anonymous"
}

// Error is a refusal: Status is 401 (who are you?) or 403 (not allowed).
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

func forbidden(format string, args ...any) *Error {
	return &Error{Status: 403, Msg: fmt.Sprintf(format, args...)}
}

// RoleIn returns the user's role in project: the stronger of its role
// there and its role in every project; "" for none.
func (p Principal) RoleIn(project string) store.Role {
	r, all := p.Roles[project], p.Roles[store.AllProjects]
	if rank(all) > rank(r) {
		return all
	}
	return r
}

func rank(r store.Role) int {
	switch r {
	case store.RoleViewer:
		return 1
	case store.RoleMember:
		return 2
	case store.RoleLead:
		return 3
	}
	return 0
}

// Projects lists the projects where the user has a role, sorted; all is
// true when it has a role in every project (or is an admin).
func (p Principal) Projects() (projects []string, all bool) {
	if p.Admin || p.Roles[store.AllProjects] != "" {
		return nil, true
	}
	for proj := range p.Roles {
		projects = append(projects, proj)
	}
	sort.Strings(projects)
	return projects, false
}

// CanAdmin allows what only an admin may do (config reload, users,
// tokens, the audit log).
func (p Principal) CanAdmin(what string) error {
	if p.Admin {
		return nil
	}
	return forbidden("%s needs the admin role; %s is not an admin", what, p.Actor())
}

// CanSubmit allows a submission to project: a member or lead there.
func (p Principal) CanSubmit(project string) error {
	if p.Admin || rank(p.RoleIn(project)) >= rank(store.RoleMember) {
		return nil
	}
	return forbidden("submitting to project %q needs the member or lead role there; %s has %s "+
		"(an admin grants it with: allot user role %s --role %s=member)",
		project, p.Actor(), roleWords(p.RoleIn(project)), p.User, project)
}

// CanRead allows reading a job (its record and its logs): its owner, or
// anyone with a role in its project.
func (p Principal) CanRead(project, owner string) error {
	if p.Admin || (owner != "" && owner == p.User) || p.RoleIn(project) != "" {
		return nil
	}
	return forbidden("reading a job of project %q needs a role there; %s has none", project, p.Actor())
}

// SeesEnvironment reports whether p sees the values of a job's
// environment: its owner and admins only, as Slurm shows a job's
// environment to its owner and root. The environment is where users put
// secrets (API tokens), and a project's other readers, even its lead,
// need its names at most.
func (p Principal) SeesEnvironment(owner string) bool {
	return p.Admin || (p.User != "" && owner == p.User)
}

// CanChange allows killing or changing a job: its owner while a member of
// the project, or the project's lead.
func (p Principal) CanChange(project, owner string) error {
	role := p.RoleIn(project)
	switch {
	case p.Admin, role == store.RoleLead:
		return nil
	case owner != "" && owner == p.User && rank(role) >= rank(store.RoleMember):
		return nil
	case owner == p.User && owner != "":
		return forbidden("changing your job in project %q needs the member role there; %s has %s",
			project, p.Actor(), roleWords(role))
	}
	return forbidden("the job belongs to %s; changing another user's job in project %q needs the lead role there; %s has %s",
		ownerWords(owner), project, p.Actor(), roleWords(role))
}

// CanRaise allows what only an admin, or the lead of the job's project,
// may do to a job it may change (CanChange): raise or remove its time
// limit, or lower its nice (Slurm's operators and account
// coordinators). what says the change, for the refusal.
func (p Principal) CanRaise(project, what string) error {
	if p.Admin || p.RoleIn(project) == store.RoleLead {
		return nil
	}
	return forbidden("%s needs the admin role or the lead role in project %q; %s has %s",
		what, project, p.Actor(), roleWords(p.RoleIn(project)))
}

// CanKill reports whether the principal may kill a job of project owned
// by owner: as CanChange, and a job's owner may always kill it, even
// after losing its role in the project (as Slurm's scancel of one's own
// job): ending it only frees what the job holds, and leaving the owner
// unable to stop a job that runs on in their name helps no one.
func (p Principal) CanKill(project, owner string) error {
	if owner != "" && owner == p.User {
		return nil
	}
	return p.CanChange(project, owner)
}

func roleWords(r store.Role) string {
	if r == "" {
		return "no role"
	}
	return "the " + string(r) + " role"
}

func ownerWords(owner string) string {
	if owner == "" {
		return "no user"
	}
	return owner
}
