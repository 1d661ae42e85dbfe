package api

import "time"

// Whoami answers GET /whoami: who the request's token belongs to.
type Whoami struct {
	User  string            `json:"user"`
	Admin bool              `json:"admin"`
	Roles map[string]string `json:"roles,omitempty"` // project ("*": all) → viewer, member or lead
	// ConfigProjects are the projects the configuration file's users:
	// section restricts the user's submissions to, whatever the roles (a
	// parent stands for those under it); empty: no restriction.
	ConfigProjects []string `json:"config_projects,omitempty"`
}

// User is a user of the cluster, as admins see it.
type User struct {
	Name      string            `json:"name"`
	Admin     bool              `json:"admin"`
	Disabled  bool              `json:"disabled"`
	CreatedAt time.Time         `json:"created_at"`
	Roles     map[string]string `json:"roles,omitempty"`
	// Warnings, in POST /users' and PATCH /users/{name}'s replies only,
	// say what an admin should know of the user: another user whose name
	// differs only by case (POST), a member or lead role in a project the
	// configuration's users: section keeps the user out of (both).
	Warnings []string `json:"warnings,omitempty"`
}

// NewUser is the body of POST /users.
type NewUser struct {
	Name  string            `json:"name"`
	Admin bool              `json:"admin,omitempty"`
	Roles map[string]string `json:"roles,omitempty"`
}

// UserUpdate is the body of PATCH /users/{name}. A role of "" in Roles
// removes the user's role in that project.
type UserUpdate struct {
	Disabled *bool             `json:"disabled,omitempty"`
	Roles    map[string]string `json:"roles,omitempty"`
}

// Token kinds.
const (
	TokenUser = "user" // a user's API token
	TokenJoin = "join" // lets agents register nodes
	TokenNode = "node" // a node's own credential, issued at registration
)

// Token describes a credential; its secret is never shown again.
type Token struct {
	ID        int64      `json:"id"`
	Kind      string     `json:"kind"`
	Subject   string     `json:"subject"` // the user, the node, or who made a join token
	Note      string     `json:"note,omitempty"`
	CreatedBy string     `json:"created_by,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// NewToken is the body of POST /tokens.
type NewToken struct {
	Kind string `json:"kind"`           // user or join
	User string `json:"user,omitempty"` // for kind user
	Note string `json:"note,omitempty"`
	// TTLS is the token's lifetime in seconds; 0 means no expiry for a
	// user token and DefaultJoinTTLS for a join token.
	TTLS int64 `json:"ttl_s,omitempty"`
}

// DefaultJoinTTLS is a join token's lifetime unless given: one day, as
// kubeadm's.
const DefaultJoinTTLS = 24 * 3600

// CreatedToken answers POST /tokens: the only time the secret is shown.
type CreatedToken struct {
	Token  Token  `json:"token"`
	Secret string `json:"secret"`
}

// RevokedToken answers POST /tokens/{id}/revoke (200): the token as it is
// now. AlreadyRevoked says it had been revoked before (Token.RevokedAt
// is that time) and nothing changed; Yours says it is the token the
// request was sent with, whose next request is refused (401).
type RevokedToken struct {
	Token          Token `json:"token"`
	AlreadyRevoked bool  `json:"already_revoked,omitempty"`
	Yours          bool  `json:"yours,omitempty"`
}

// AuditEntry is one change requested of the master and its outcome.
type AuditEntry struct {
	Seq       int64     `json:"seq"`
	At        time.Time `json:"at"`
	Actor     string    `json:"actor"`
	Action    string    `json:"action"`
	Target    string    `json:"target"`
	Status    int       `json:"status"`
	Detail    string    `json:"detail,omitempty"`
	RequestID string    `json:"request_id"`
}
