package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/yamlfield"
)

// Errors of the Resolve methods, for errors.Is: the master answers the
// first with 400 Bad Request and the second with 403 Forbidden.
var (
	ErrUnknown    = errors.New("unknown")
	ErrNotAllowed = errors.New("not allowed")
)

// Pool returns the pool with the given name.
func (c *Config) Pool(name string) (Pool, bool) {
	i := c.PoolIndex(name)
	if i < 0 {
		return Pool{}, false
	}
	return c.Pools[i], true
}

// PoolIndex returns the position of a pool in Pools (and in SchedPools),
// or -1.
func (c *Config) PoolIndex(name string) int {
	return slices.IndexFunc(c.Pools, func(p Pool) bool { return p.Name == name })
}

// Project returns the project with the given name.
func (c *Config) Project(name string) (Project, bool) {
	i := c.ProjectIndex(name)
	if i < 0 {
		return Project{}, false
	}
	return c.Projects[i], true
}

// ProjectIndex returns the position of a project in Projects (and in
// SchedProjects), or -1.
func (c *Config) ProjectIndex(name string) int {
	return slices.IndexFunc(c.Projects, func(p Project) bool { return p.Name == name })
}

// IsLeaf reports whether a project exists and has no sub-projects: only
// such projects take jobs.
func (c *Config) IsLeaf(name string) bool {
	return c.ProjectIndex(name) >= 0 && !slices.ContainsFunc(c.Projects, func(p Project) bool { return p.Parent == name })
}

// User returns the user with the given name.
func (c *Config) User(name string) (User, bool) {
	i := slices.IndexFunc(c.Users, func(u User) bool { return u.Name == name })
	if i < 0 {
		return User{}, false
	}
	return c.Users[i], true
}

// Node returns the rule for the node with the given name.
func (c *Config) Node(name string) (NodeRule, bool) {
	i := slices.IndexFunc(c.Nodes, func(n NodeRule) bool { return n.Name == name })
	if i < 0 {
		return NodeRule{}, false
	}
	return c.Nodes[i], true
}

// SchedPools returns the pools for a sched.Snapshot, in the order of
// Pools, so that PoolIndex gives a job's or node's Pool index.
func (c *Config) SchedPools() []sched.Pool {
	out := make([]sched.Pool, len(c.Pools))
	for i, p := range c.Pools {
		out[i] = p.Sched()
	}
	return out
}

// SchedProjects returns the projects for a sched.Snapshot, in the order of
// Projects with parents as indexes, so that ProjectIndex gives a job's
// Project index.
func (c *Config) SchedProjects() []sched.Project { return spec.SchedProjects(c.Projects) }

// ResolvePool returns the pool a job runs in: the one it asks for, or the
// default pool.
func (c *Config) ResolvePool(requested string) (string, error) {
	if requested == "" {
		return c.DefaultPool, nil
	}
	if c.PoolIndex(requested) < 0 {
		return "", fmt.Errorf("%w pool %q%s (pools: %s)", ErrUnknown, requested,
			yamlfield.Suggest(requested, c.poolNames()), strings.Join(c.poolNames(), ", "))
	}
	return requested, nil
}

// ResolveProject returns the project a job of user runs in: the one it
// asks for, else the user's default project, else the config's. A user
// the config does not list may use every project; a listed one only the
// projects under its Projects.
func (c *Config) ResolveProject(user, requested string) (string, error) {
	u, listed := c.User(user)
	if requested == "" {
		if listed {
			return u.DefaultProject, nil
		}
		return c.DefaultProject, nil
	}
	if c.ProjectIndex(requested) < 0 {
		return "", fmt.Errorf("%w project %q%s (projects: %s)", ErrUnknown, requested,
			yamlfield.Suggest(requested, c.projectNames()), strings.Join(c.projectNames(), ", "))
	}
	if !c.IsLeaf(requested) {
		return "", notAllowed("project %q has sub-projects; jobs run in projects without sub-projects", requested)
	}
	if listed && !c.userMay(u, requested) {
		// Said at length: a role in the project does not lift this, and
		// an admin who just gave one looks for the cause in the roles.
		return "", &notAllowedError{
			msg: fmt.Sprintf("user %q may not submit to project %q: the users: section of %s restricts %s to %s, whatever the user's roles",
				user, requested, c.fileName(), user, strings.Join(u.Projects, ", ")),
			fix: fmt.Sprintf("add %s to %s's projects there and reload the configuration (allot config reload)", requested, user),
			alt: "drop the projects: list to leave the roles alone to decide"}
	}
	return requested, nil
}

// notAllowedError is a refusal that is ErrNotAllowed for errors.Is
// without ending its sentence in ": not allowed". fix, when not "", is
// what an admin does about it, said after msg (ForNonAdmin), and alt
// another way an admin has, which a user who is no admin is not told:
// it is the admin's choice, and the message is long enough.
type notAllowedError struct{ msg, fix, alt string }

func (e *notAllowedError) Error() string {
	if e.fix == "" {
		return e.msg
	}
	if e.alt == "" {
		return e.msg + "; " + e.fix
	}
	return e.msg + "; " + e.fix + ", or " + e.alt
}

func (e *notAllowedError) Unwrap() error { return ErrNotAllowed }

// ForNonAdmin is err as a user who is no admin reads it: a refusal
// whose fix only an admin can make (editing the configuration and
// reloading it) says to ask an admin to make it, rather than telling
// the user to do what they may not (trial 29e E9). Other errors are
// returned as they are.
func ForNonAdmin(err error) error {
	var na *notAllowedError
	if !errors.As(err, &na) || na.fix == "" {
		return err
	}
	return &notAllowedError{msg: na.msg + "; ask an admin to " + na.fix}
}

func notAllowed(format string, args ...any) error {
	return &notAllowedError{msg: fmt.Sprintf(format, args...)}
}

// fileName names the configuration file in a message.
func (c *Config) fileName() string {
	if c.File == "" {
		return "the configuration file"
	}
	return "the configuration file " + c.File
}

// UserProjects returns the projects the users: section restricts user to
// (a parent stands for those under it), or nil when it does not restrict
// the user.
func (c *Config) UserProjects(user string) []string {
	u, _ := c.User(user)
	return u.Projects
}

// NodePool returns the pool a registering node joins and its labels: the
// pool its rule pins it to, else the pool the agent asks for, else the
// default pool; the rule's labels win over the agent's.
func (c *Config) NodePool(node, requested string, agentLabels map[string]string) (string, map[string]string, error) {
	rule, _ := c.Node(node)
	pool := rule.Pool
	if pool == "" {
		pool = requested
	}
	if pool == "" {
		pool = c.DefaultPool
	}
	if c.PoolIndex(pool) < 0 {
		return "", nil, fmt.Errorf("node %q: %w pool %q (pools: %s)", node, ErrUnknown, pool, strings.Join(c.poolNames(), ", "))
	}
	if len(agentLabels) == 0 && len(rule.Labels) == 0 {
		return pool, nil, nil
	}
	labels := maps.Clone(agentLabels)
	if labels == nil {
		labels = make(map[string]string, len(rule.Labels))
	}
	maps.Copy(labels, rule.Labels)
	return pool, labels, nil
}

// userMay reports whether u may submit to project pr.
func (c *Config) userMay(u User, pr string) bool {
	return covers(u.Projects, pr, len(c.Projects), func(name string) (string, bool) {
		p, ok := c.Project(name)
		return p.Parent, ok
	})
}

// covers reports whether a user's project list allows project pr: the list
// is empty, or holds pr or one of its ancestors. parent looks a project's
// parent up; the walk stops after n steps, so a cycle cannot trap it.
func covers(list []string, pr string, n int, parent func(string) (string, bool)) bool {
	if len(list) == 0 {
		return true
	}
	for at, steps := pr, 0; at != "" && steps <= n; steps++ {
		if slices.Contains(list, at) {
			return true
		}
		up, ok := parent(at)
		if !ok {
			return false
		}
		at = up
	}
	return false
}

// PoolNames lists the pools' names in file order.
func (c *Config) PoolNames() []string { return c.poolNames() }

func (c *Config) poolNames() []string {
	out := make([]string, len(c.Pools))
	for i, p := range c.Pools {
		out[i] = p.Name
	}
	return out
}

// ProjectNames lists the projects' names in file order.
func (c *Config) ProjectNames() []string { return c.projectNames() }

func (c *Config) projectNames() []string {
	out := make([]string, len(c.Projects))
	for i, p := range c.Projects {
		out[i] = p.Name
	}
	return out
}

// SchedLicenses returns the licenses for a sched.Snapshot, in the order of
// Licenses, so that LicenseIndex gives a LicenseUse's License index.
func (c *Config) SchedLicenses() []sched.License { return spec.SchedLicenses(c.Licenses) }

// LicenseIndex returns the position of a license in Licenses, or -1.
func (c *Config) LicenseIndex(name string) int {
	return slices.IndexFunc(c.Licenses, func(l License) bool { return l.Name == name })
}

// QOSIndex returns the position of a QOS in QOS (and in a snapshot's QOS
// list), or -1.
func (c *Config) QOSIndex(name string) int {
	return slices.IndexFunc(c.QOS, func(q spec.QOS) bool { return q.Name == name })
}

// SchedQOS returns the QOS levels for a sched.Snapshot, in the order of
// QOS, so that QOSIndex gives a job's QOS index.
func (c *Config) SchedQOS() []sched.QOS { return spec.SchedQOS(c.QOS) }

// SchedDecay returns the usage decay as the scheduling core takes it.
func (c *Config) SchedDecay() sched.Decay { return c.Decay.Sched() }

// ResolveQOS returns the QOS a job runs with: the one it asks for, or the
// default QOS ("" when the configuration lists none).
func (c *Config) ResolveQOS(requested string) (string, error) {
	if requested == "" {
		return c.DefaultQOS, nil
	}
	if c.QOSIndex(requested) < 0 {
		if len(c.QOS) == 0 {
			return "", fmt.Errorf("%w QOS %q: the configuration defines no QOS levels", ErrUnknown, requested)
		}
		names := spec.QOSNames(c.QOS)
		return "", fmt.Errorf("%w QOS %q%s (qos: %s)", ErrUnknown, requested, yamlfield.Suggest(requested, names), strings.Join(names, ", "))
	}
	return requested, nil
}

// CheckLicense reports a license use the configuration cannot serve: an
// unknown license name.
func (c *Config) CheckLicense(name string) error {
	if c.LicenseIndex(name) >= 0 {
		return nil
	}
	if len(c.Licenses) == 0 {
		return fmt.Errorf("%w license %q: the configuration defines no licenses", ErrUnknown, name)
	}
	names := make([]string, len(c.Licenses))
	for i, l := range c.Licenses {
		names[i] = l.Name
	}
	return fmt.Errorf("%w license %q%s (licenses: %s)", ErrUnknown, name, yamlfield.Suggest(name, names), strings.Join(names, ", "))
}
