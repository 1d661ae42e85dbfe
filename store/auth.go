package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Identity records: who may use the cluster, with which role in which
// project, the bearer credentials they and the agents present (kept only
// as hashes) and the audit log of every change.

// Role is what a user may do in one project.
type Role string

// Roles, weakest first.
const (
	RoleViewer Role = "viewer" // read the project's jobs and logs
	RoleMember Role = "member" // submit to the project; change and kill own jobs
	RoleLead   Role = "lead"   // change and kill every job of the project
)

// Valid reports whether r is one of the roles.
func (r Role) Valid() bool { return r == RoleViewer || r == RoleMember || r == RoleLead }

// AllProjects, as a role's project, binds the role in every project.
const AllProjects = "*"

// User is a person (or a service) that presents API tokens.
type User struct {
	Name      string
	Admin     bool
	Disabled  bool
	CreatedAt time.Time
	// Roles maps a project (or AllProjects) to the user's role there.
	Roles map[string]Role
}

// CredentialKind says what a credential lets its bearer be.
type CredentialKind string

// Credential kinds.
const (
	CredUser CredentialKind = "user" // an API token of user Subject
	CredJoin CredentialKind = "join" // lets an agent register a node
	CredNode CredentialKind = "node" // node Subject's own credential
)

// Credential is a bearer secret, stored only as the hex SHA-256 of the
// secret.
type Credential struct {
	ID        int64
	Kind      CredentialKind
	Subject   string
	Hash      string
	Note      string
	CreatedBy string
	CreatedAt time.Time
	ExpiresAt time.Time // zero: never
	RevokedAt time.Time // zero: live
}

// Live reports whether the credential may be used at now.
func (c Credential) Live(now time.Time) bool {
	return c.RevokedAt.IsZero() && (c.ExpiresAt.IsZero() || now.Before(c.ExpiresAt))
}

// AuditEntry is one change requested of the master, and its outcome.
type AuditEntry struct {
	Seq       int64
	At        time.Time
	Actor     string // "user:alice", "node:gpu-1", "anonymous"
	Action    string // e.g. "POST /api/v1/jobs/7/kill"
	Target    string
	Status    int // the HTTP status answered
	Detail    string
	RequestID string
}

// AuditFilter selects audit entries.
type AuditFilter struct {
	After int64 // entries with a larger Seq
	Actor string
	Limit int // 0: no limit
	// Newest lists by descending Seq, so that Limit keeps the newest
	// entries (allot audit --last) rather than the oldest.
	Newest bool
	// Since and Until, when set, keep the entries written at or after
	// Since and before Until (allot audit --since, --until).
	Since, Until time.Time
}

// Auth is the identity side of the store.
type Auth interface {
	// CreateUser stores a new user with its roles; ErrConflict if the name
	// is taken.
	CreateUser(ctx context.Context, u User) (User, error)
	// User returns one user with its roles, or ErrNotFound.
	User(ctx context.Context, name string) (User, error)
	// Users lists users by name.
	Users(ctx context.Context) ([]User, error)
	// CountUsers counts users, disabled ones included.
	CountUsers(ctx context.Context) (int, error)
	// SetUserDisabled disables or re-enables a user.
	SetUserDisabled(ctx context.Context, name string, disabled bool) error
	// SetRole gives user the role in project; an empty role removes it.
	SetRole(ctx context.Context, user, project string, role Role) error
	// CreateCredential stores a credential and returns it with its ID.
	CreateCredential(ctx context.Context, c Credential) (Credential, error)
	// CredentialByHash finds a credential by its hash, or ErrNotFound.
	CredentialByHash(ctx context.Context, hash string) (Credential, error)
	// Credentials lists credentials of a kind ("" for all) by ID.
	Credentials(ctx context.Context, kind CredentialKind, subject string) ([]Credential, error)
	// RevokeCredential revokes one credential; revoking twice is a no-op.
	RevokeCredential(ctx context.Context, id int64, at time.Time) error
	// RevokeNodeCredentials revokes every live credential of a node except
	// keep (0 for none).
	RevokeNodeCredentials(ctx context.Context, node string, keep int64, at time.Time) error
	// TakeOverNode is a join token's registration of node name for a new
	// host, credential keep: it revokes the node's other live
	// credentials, returning their IDs, and dates the node's registration
	// (Node.RegisteredAt) at, when the node is known.
	TakeOverNode(ctx context.Context, node string, keep int64, at time.Time) ([]int64, error)
	// AppendAudit stores one audit entry.
	AppendAudit(ctx context.Context, e AuditEntry) error
	// Audit lists audit entries by ascending Seq.
	Audit(ctx context.Context, f AuditFilter) ([]AuditEntry, error)
}

// authOps runs the identity side's SQL (Auth) over a conn, as ops does
// the rest of Tx: over the readers outside Update, over the transaction
// inside it, so that a user, its credentials and the audit entry saying
// so can be written together (master.RecoverAdmin). Its writes assume q
// is a transaction, since some run more than one statement; the Store's
// own (authStore below) run each in an Update of its own.
type authOps struct{ conn }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (a authOps) CreateUser(ctx context.Context, u User) (User, error) {
	if u.Name == "" {
		return User{}, fmt.Errorf("create user: %w", invalidf("name is empty"))
	}
	for p, r := range u.Roles {
		if p == "" || !r.Valid() {
			return User{}, fmt.Errorf("create user %s: %w", u.Name, invalidf("role %q in project %q", r, p))
		}
	}
	u.CreatedAt = nowIfZero(u.CreatedAt).UTC()
	_, err := a.q.ExecContext(ctx, a.d.q(`INSERT INTO users (name, admin, disabled, created_ns) VALUES (?, ?, ?, ?)`),
		u.Name, boolInt(u.Admin), boolInt(u.Disabled), nsOf(u.CreatedAt))
	if err != nil {
		if constraintViolation(err) {
			return User{}, fmt.Errorf("create user %s: %w", u.Name, &ConflictError{What: "user " + u.Name, Field: "name", Expected: "free", Actual: "taken"})
		}
		return User{}, fmt.Errorf("create user %s: %w", u.Name, err)
	}
	for p, r := range u.Roles {
		if _, err := a.q.ExecContext(ctx, a.d.q(`INSERT INTO roles (user_name, project, role) VALUES (?, ?, ?)`),
			u.Name, p, string(r)); err != nil {
			return User{}, fmt.Errorf("create user %s: role in %s: %w", u.Name, p, err)
		}
	}
	return u, nil
}

func (a authOps) User(ctx context.Context, name string) (User, error) {
	users, err := a.users(ctx, "WHERE name = ?", name)
	if err != nil {
		return User{}, err
	}
	if len(users) == 0 {
		return User{}, fmt.Errorf("user %s: %w", name, ErrNotFound)
	}
	return users[0], nil
}

func (a authOps) Users(ctx context.Context) ([]User, error) { return a.users(ctx, "") }

func (a authOps) users(ctx context.Context, where string, args ...any) ([]User, error) {
	rows, err := a.q.QueryContext(ctx, a.d.q("SELECT name, admin, disabled, created_ns FROM users "+where+" ORDER BY name"), args...)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	users, err := collect(rows, func(sc rowScanner) (User, error) {
		var u User
		var admin, disabled int
		var created int64
		if err := sc.Scan(&u.Name, &admin, &disabled, &created); err != nil {
			return User{}, err
		}
		u.Admin, u.Disabled, u.CreatedAt = admin == 1, disabled == 1, timeOf(created)
		return u, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	for i := range users {
		if users[i].Roles, err = a.roles(ctx, users[i].Name); err != nil {
			return nil, err
		}
	}
	return users, nil
}

func (a authOps) roles(ctx context.Context, user string) (map[string]Role, error) {
	rows, err := a.q.QueryContext(ctx, a.d.q("SELECT project, role FROM roles WHERE user_name = ? ORDER BY project"), user)
	if err != nil {
		return nil, fmt.Errorf("roles of %s: %w", user, err)
	}
	type pr struct{ p, r string }
	list, err := collect(rows, func(sc rowScanner) (pr, error) {
		var v pr
		return v, sc.Scan(&v.p, &v.r)
	})
	if err != nil {
		return nil, fmt.Errorf("roles of %s: %w", user, err)
	}
	out := make(map[string]Role, len(list))
	for _, v := range list {
		out[v.p] = Role(v.r)
	}
	return out, nil
}

func (a authOps) CountUsers(ctx context.Context) (int, error) {
	var n int
	if err := a.q.QueryRowContext(ctx, "SELECT COUNT(*) FROM users").Scan(&n); err != nil {
		return 0, fmt.Errorf("count users: %w", err)
	}
	return n, nil
}

func (a authOps) SetUserDisabled(ctx context.Context, name string, disabled bool) error {
	return a.execOne(ctx, "user "+name, "UPDATE users SET disabled = ? WHERE name = ?", boolInt(disabled), name)
}

func (a authOps) SetRole(ctx context.Context, user, project string, role Role) error {
	if project == "" || (role != "" && !role.Valid()) {
		return fmt.Errorf("role of %s: %w", user, invalidf("role %q in project %q", role, project))
	}
	var n int
	if err := a.q.QueryRowContext(ctx, a.d.q("SELECT COUNT(*) FROM users WHERE name = ?"), user).Scan(&n); err != nil {
		return fmt.Errorf("role of %s: %w", user, err)
	}
	if n == 0 {
		return fmt.Errorf("user %s: %w", user, ErrNotFound)
	}
	if _, err := a.q.ExecContext(ctx, a.d.q("DELETE FROM roles WHERE user_name = ? AND project = ?"), user, project); err != nil {
		return fmt.Errorf("role of %s in %s: %w", user, project, err)
	}
	if role == "" {
		return nil
	}
	if _, err := a.q.ExecContext(ctx, a.d.q("INSERT INTO roles (user_name, project, role) VALUES (?, ?, ?)"),
		user, project, string(role)); err != nil {
		return fmt.Errorf("role of %s in %s: %w", user, project, err)
	}
	return nil
}

// execOne runs a write that must change exactly one row.
func (a authOps) execOne(ctx context.Context, what, query string, args ...any) error {
	res, err := a.q.ExecContext(ctx, a.d.q(query), args...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	} else if n == 0 {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return nil
}

const credCols = "id, kind, subject, hash, note, created_by, created_ns, expires_ns, revoked_ns"

func scanCred(sc rowScanner) (Credential, error) {
	var c Credential
	var kind string
	var created int64
	var expires, revoked sql.NullInt64
	if err := sc.Scan(&c.ID, &kind, &c.Subject, &c.Hash, &c.Note, &c.CreatedBy, &created, &expires, &revoked); err != nil {
		return Credential{}, err
	}
	c.Kind, c.CreatedAt = CredentialKind(kind), timeOf(created)
	c.ExpiresAt, c.RevokedAt = timeOfNull(expires), timeOfNull(revoked)
	return c, nil
}

func (a authOps) CreateCredential(ctx context.Context, c Credential) (Credential, error) {
	switch {
	case c.Kind != CredUser && c.Kind != CredJoin && c.Kind != CredNode:
		return Credential{}, fmt.Errorf("create credential: %w", invalidf("kind %q", c.Kind))
	case c.Subject == "" || len(c.Hash) != 64:
		return Credential{}, fmt.Errorf("create credential: %w", invalidf("a subject and a 64-digit hash are required"))
	}
	c.CreatedAt = nowIfZero(c.CreatedAt).UTC()
	out, err := scanCred(a.q.QueryRowContext(ctx, a.d.q(`INSERT INTO credentials (kind, subject, hash, note,
		created_by, created_ns, expires_ns) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING `+credCols),
		string(c.Kind), c.Subject, c.Hash, c.Note, c.CreatedBy, nsOf(c.CreatedAt), nullNS(c.ExpiresAt)))
	if err != nil {
		return Credential{}, fmt.Errorf("create %s credential for %s: %w", c.Kind, c.Subject, err)
	}
	return out, nil
}

func (a authOps) CredentialByHash(ctx context.Context, hash string) (Credential, error) {
	c, err := scanCred(a.q.QueryRowContext(ctx, a.d.q("SELECT "+credCols+" FROM credentials WHERE hash = ?"), hash))
	if errors.Is(err, sql.ErrNoRows) {
		return Credential{}, fmt.Errorf("credential: %w", ErrNotFound)
	}
	if err != nil {
		return Credential{}, fmt.Errorf("read credential: %w", err)
	}
	return c, nil
}

func (a authOps) Credentials(ctx context.Context, kind CredentialKind, subject string) ([]Credential, error) {
	var where []string
	var args []any
	if kind != "" {
		where, args = append(where, "kind = ?"), append(args, string(kind))
	}
	if subject != "" {
		where, args = append(where, "subject = ?"), append(args, subject)
	}
	q := "SELECT " + credCols + " FROM credentials"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := a.q.QueryContext(ctx, a.d.q(q+" ORDER BY id"), args...)
	if err != nil {
		return nil, fmt.Errorf("list credentials: %w", err)
	}
	cs, err := collect(rows, scanCred)
	if err != nil {
		return nil, fmt.Errorf("list credentials: %w", err)
	}
	return cs, nil
}

func (a authOps) RevokeCredential(ctx context.Context, id int64, at time.Time) error {
	err := a.execOne(ctx, fmt.Sprintf("credential %d", id),
		"UPDATE credentials SET revoked_ns = COALESCE(revoked_ns, ?) WHERE id = ?", nsOf(nowIfZero(at)), id)
	return err
}

func (a authOps) RevokeNodeCredentials(ctx context.Context, node string, keep int64, at time.Time) error {
	_, err := a.q.ExecContext(ctx, a.d.q(`UPDATE credentials SET revoked_ns = ?
		WHERE kind = 'node' AND subject = ? AND id <> ? AND revoked_ns IS NULL`), nsOf(nowIfZero(at)), node, keep)
	if err != nil {
		return fmt.Errorf("revoke credentials of node %s: %w", node, err)
	}
	return nil
}

func (a authOps) TakeOverNode(ctx context.Context, node string, keep int64, at time.Time) ([]int64, error) {
	rows, err := a.q.QueryContext(ctx, a.d.q(`SELECT id FROM credentials
		WHERE kind = 'node' AND subject = ? AND id <> ? AND revoked_ns IS NULL ORDER BY id`), node, keep)
	if err != nil {
		return nil, fmt.Errorf("take over node %s: %w", node, err)
	}
	ids, err := collect(rows, func(sc rowScanner) (int64, error) {
		var id int64
		return id, sc.Scan(&id)
	})
	if err != nil {
		return nil, fmt.Errorf("take over node %s: %w", node, err)
	}
	if err := a.RevokeNodeCredentials(ctx, node, keep, at); err != nil {
		return nil, err
	}
	if _, err := a.q.ExecContext(ctx, a.d.q("UPDATE nodes SET registered_ns = ? WHERE name = ?"), nsOf(nowIfZero(at)), node); err != nil {
		return nil, fmt.Errorf("take over node %s: date its registration: %w", node, err)
	}
	return ids, nil
}

func (a authOps) AppendAudit(ctx context.Context, e AuditEntry) error {
	_, err := a.q.ExecContext(ctx, a.d.q(`INSERT INTO audit (at_ns, actor, action, target, status, detail,
		request_id) VALUES (?, ?, ?, ?, ?, ?, ?)`), nsOf(nowIfZero(e.At)), e.Actor, e.Action, e.Target, e.Status,
		e.Detail, e.RequestID)
	if err != nil {
		return fmt.Errorf("append audit entry: %w", err)
	}
	return nil
}

func (a authOps) Audit(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	where := []string{"seq > ?"}
	args := []any{f.After}
	if f.Actor != "" {
		where, args = append(where, "actor = ?"), append(args, f.Actor)
	}
	if !f.Since.IsZero() {
		where, args = append(where, "at_ns >= ?"), append(args, nsOf(f.Since))
	}
	if !f.Until.IsZero() {
		where, args = append(where, "at_ns < ?"), append(args, nsOf(f.Until))
	}
	order := "seq"
	if f.Newest {
		order = "seq DESC"
	}
	q, args := finish("SELECT seq, at_ns, actor, action, target, status, detail, request_id FROM audit", where, order, f.Limit, args)
	rows, err := a.q.QueryContext(ctx, a.d.q(q), args...)
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	es, err := collect(rows, func(sc rowScanner) (AuditEntry, error) {
		var e AuditEntry
		var at int64
		err := sc.Scan(&e.Seq, &at, &e.Actor, &e.Action, &e.Target, &e.Status, &e.Detail, &e.RequestID)
		e.At = timeOf(at)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	return es, nil
}

// authStore is the Store's identity side, which sqlStore embeds: reads
// on the readers, each write in an Update of its own.
type authStore struct {
	reads  authOps
	update func(ctx context.Context, fn func(tx Tx) error) error
}

func (s *authStore) User(ctx context.Context, name string) (User, error) {
	return s.reads.User(ctx, name)
}
func (s *authStore) Users(ctx context.Context) ([]User, error)   { return s.reads.Users(ctx) }
func (s *authStore) CountUsers(ctx context.Context) (int, error) { return s.reads.CountUsers(ctx) }
func (s *authStore) CredentialByHash(ctx context.Context, hash string) (Credential, error) {
	return s.reads.CredentialByHash(ctx, hash)
}
func (s *authStore) Credentials(ctx context.Context, kind CredentialKind, subject string) ([]Credential, error) {
	return s.reads.Credentials(ctx, kind, subject)
}
func (s *authStore) Audit(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	return s.reads.Audit(ctx, f)
}

func (s *authStore) CreateUser(ctx context.Context, u User) (out User, err error) {
	err = s.update(ctx, func(tx Tx) error { out, err = tx.CreateUser(ctx, u); return err })
	return out, err
}

func (s *authStore) SetUserDisabled(ctx context.Context, name string, disabled bool) error {
	return s.update(ctx, func(tx Tx) error { return tx.SetUserDisabled(ctx, name, disabled) })
}

func (s *authStore) SetRole(ctx context.Context, user, project string, role Role) error {
	return s.update(ctx, func(tx Tx) error { return tx.SetRole(ctx, user, project, role) })
}

func (s *authStore) CreateCredential(ctx context.Context, c Credential) (out Credential, err error) {
	err = s.update(ctx, func(tx Tx) error { out, err = tx.CreateCredential(ctx, c); return err })
	return out, err
}

func (s *authStore) RevokeCredential(ctx context.Context, id int64, at time.Time) error {
	return s.update(ctx, func(tx Tx) error { return tx.RevokeCredential(ctx, id, at) })
}

func (s *authStore) RevokeNodeCredentials(ctx context.Context, node string, keep int64, at time.Time) error {
	return s.update(ctx, func(tx Tx) error { return tx.RevokeNodeCredentials(ctx, node, keep, at) })
}

func (s *authStore) TakeOverNode(ctx context.Context, node string, keep int64, at time.Time) (ids []int64, err error) {
	err = s.update(ctx, func(tx Tx) error { ids, err = tx.TakeOverNode(ctx, node, keep, at); return err })
	return ids, err
}

func (s *authStore) AppendAudit(ctx context.Context, e AuditEntry) error {
	return s.update(ctx, func(tx Tx) error { return tx.AppendAudit(ctx, e) })
}
