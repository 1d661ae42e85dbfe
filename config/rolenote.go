package config

import (
	"fmt"
	"strings"
)

// RoleNote says, of a role that lets user submit to project ("*": every
// project) given by allot user create or role, that the users: section
// still keeps the user from submitting there; "" when it does not (the
// user is not listed, lists no projects, or the list covers project).
// The role is given all the same, since it lets the user read the
// project, and the section may change at a reload; but an admin who
// grants it expects the user to submit, and was told nothing (trial
// 2026-11-29j J3).
func (c *Config) RoleNote(user, project string) string {
	u, listed := c.User(user)
	if !listed || len(u.Projects) == 0 {
		return ""
	}
	only := strings.Join(u.Projects, ", ")
	if project == "*" {
		return fmt.Sprintf("the users: section of %s restricts %s to %s, whatever the user's roles: the role lets %s read "+
			"every project but submit only to %s", c.fileName(), user, only, user, only)
	}
	if c.userMay(u, project) {
		return ""
	}
	return fmt.Sprintf("the users: section of %s restricts %s to %s, whatever the user's roles: the role lets %s read %s "+
		"but not submit there; add %s to %s's projects there and reload the configuration (allot config reload) for that",
		c.fileName(), user, only, user, project, project, user)
}
