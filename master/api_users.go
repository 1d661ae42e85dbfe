package master

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/yamlfield"
)

func (ac *access) handleWhoami(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r)
	writeJSON(w, http.StatusOK, api.Whoami{User: p.User, Admin: p.Admin, Roles: rolesOut(p.Roles),
		ConfigProjects: ac.m.Config().UserProjects(p.User)})
}

func rolesOut(in map[string]store.Role) map[string]string {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]string, len(in))
	for p, r := range in {
		out[p] = string(r)
	}
	return out
}

func userView(u store.User) api.User {
	return api.User{Name: u.Name, Admin: u.Admin, Disabled: u.Disabled, CreatedAt: u.CreatedAt, Roles: rolesOut(u.Roles)}
}

// adminOnly refuses the request unless its user is an admin.
func (ac *access) adminOnly(w http.ResponseWriter, r *http.Request, what string) bool {
	if err := principalOf(r).CanAdmin(what); err != nil {
		ac.deny(w, r, err)
		return false
	}
	return true
}

func (ac *access) handleListUsers(w http.ResponseWriter, r *http.Request) {
	if !ac.adminOnly(w, r, "listing users") {
		return
	}
	users, err := ac.m.st.Users(r.Context())
	if err != nil {
		ac.fail(w, err)
		return
	}
	out := make([]api.User, 0, len(users))
	for _, u := range users {
		out = append(out, userView(u))
	}
	writeJSON(w, http.StatusOK, out)
}

// checkRoles validates roles by project, naming the field at fault.
func (ac *access) checkRoles(in map[string]string, allowEmpty bool) (map[string]store.Role, error) {
	cfg := ac.m.Config()
	out := make(map[string]store.Role, len(in))
	for p, r := range in {
		if p != store.AllProjects && cfg.ProjectIndex(p) < 0 {
			return nil, badRequest("roles", "roles: project %q is not configured%s (projects: %s, or * for all)",
				p, yamlfield.Suggest(p, cfg.ProjectNames()), strings.Join(cfg.ProjectNames(), ", "))
		}
		role := store.Role(r)
		if !role.Valid() && !(allowEmpty && r == "") {
			return nil, badRequest("roles", "roles[%s]: role %q: expected viewer, member or lead%s", p, r, roleHint(r))
		}
		out[p] = role
	}
	return out, nil
}

// roleHint is what may have been meant by a role that is not one: a
// typo of one, or admin, which is a user's flag and no role in a project.
func roleHint(r string) string {
	if strings.EqualFold(r, "admin") {
		return "; admin is no role in a project but a user's flag, given when the user is made (allot user create NAME --admin)"
	}
	return yamlfield.Suggest(r, []string{string(store.RoleViewer), string(store.RoleMember), string(store.RoleLead)})
}

func (ac *access) handleCreateUser(w http.ResponseWriter, r *http.Request) {
	if !ac.adminOnly(w, r, "creating users") {
		return
	}
	var nu api.NewUser
	if err := decodeBody(w, r, &nu); err != nil {
		ac.fail(w, err)
		return
	}
	if err := auth.CheckName("name", nu.Name); err != nil {
		ac.fail(w, badRequest("name", "%v", err))
		return
	}
	roles, err := ac.checkRoles(nu.Roles, false)
	if err != nil {
		ac.fail(w, err)
		return
	}
	u, err := ac.m.st.CreateUser(r.Context(), store.User{Name: nu.Name, Admin: nu.Admin, Roles: roles, CreatedAt: ac.m.now()})
	if errors.Is(err, store.ErrConflict) {
		ac.fail(w, &httpError{status: http.StatusConflict, field: "name", msg: fmt.Sprintf("user %q already exists", nu.Name)})
		return
	}
	if err != nil {
		ac.fail(w, err)
		return
	}
	noteAudit(r.Context(), "created user %s: %s", u.Name, newUserDetail(u))
	noteAuditTarget(r.Context(), "user "+u.Name)
	view := userView(u)
	view.Warnings = append(ac.caseClash(r.Context(), u.Name), roleNotes(ac.m.Config(), u.Name, roles)...)
	writeJSON(w, http.StatusCreated, view)
}

// caseClash warns of users whose names differ from name only by case:
// names are case-sensitive, as POSIX's, but "Ana" and "ana" read as one
// in the audit log and the dashboard, and the config's users: section
// restricts only the spelling it lists (trial 2026-11-29i I26). A
// failed read leaves the warning out: the user is made either way.
func (ac *access) caseClash(ctx context.Context, name string) []string {
	users, err := ac.m.st.Users(ctx)
	if err != nil {
		return nil
	}
	var out []string
	for _, o := range users {
		if o.Name != name && strings.EqualFold(o.Name, name) {
			out = append(out, fmt.Sprintf("user %q differs from user %q only by case: names are case-sensitive, "+
				"so they are two users with their own roles and tokens (and the config's users: section "+
				"restricts only the spelling it lists)", name, o.Name))
		}
	}
	return out
}

func (ac *access) handlePatchUser(w http.ResponseWriter, r *http.Request) {
	if !ac.adminOnly(w, r, "changing users") {
		return
	}
	name := r.PathValue("name")
	var uu api.UserUpdate
	if err := decodeBody(w, r, &uu); err != nil {
		ac.fail(w, err)
		return
	}
	roles, err := ac.checkRoles(uu.Roles, true)
	if err != nil {
		ac.fail(w, err)
		return
	}
	was, err := ac.m.st.User(r.Context(), name)
	if err != nil {
		ac.fail(w, notFoundAs(err, "name", "user %q does not exist", name))
		return
	}
	if uu.Disabled != nil && *uu.Disabled && name == principalOf(r).User {
		ac.fail(w, &httpError{status: http.StatusConflict, field: "disabled", msg: "you cannot disable yourself"})
		return
	}
	err = ac.updateUser(r.Context(), name, uu.Disabled, roles)
	// Its state or roles may have changed, even when a later write
	// failed; other users' cached entries stand.
	ac.creds.forget(ofUser(name))
	if err != nil {
		ac.fail(w, err)
		return
	}
	u, err := ac.m.st.User(r.Context(), name)
	if err != nil {
		ac.fail(w, err)
		return
	}
	noteAudit(r.Context(), "%s", userChangeDetail(was, u))
	view := userView(u)
	view.Warnings = roleNotes(ac.m.Config(), name, roles)
	writeJSON(w, http.StatusOK, view)
}

// roleNotes warns of each role in roles that lets the user submit
// (member, lead) to a project the configuration's users: section keeps
// the user out of (config.RoleNote): the role is given, as it lets the
// user read the project, but the admin is told (trial 2026-11-29j J3).
func roleNotes(cfg *config.Config, user string, roles map[string]store.Role) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(roles)) {
		if r := roles[p]; r != store.RoleMember && r != store.RoleLead {
			continue
		}
		if n := cfg.RoleNote(user, p); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// updateUser writes a user's new state, when disabled is set, and
// roles.
func (ac *access) updateUser(ctx context.Context, name string, disabled *bool, roles map[string]store.Role) error {
	if disabled != nil {
		if err := ac.m.st.SetUserDisabled(ctx, name, *disabled); err != nil {
			return err
		}
	}
	for p, role := range roles {
		if err := ac.m.st.SetRole(ctx, name, p, role); err != nil {
			return err
		}
	}
	return nil
}

// notFoundAs turns a store.ErrNotFound into a 404 naming the field.
func notFoundAs(err error, field, format string, args ...any) error {
	if errors.Is(err, store.ErrNotFound) {
		return &httpError{status: http.StatusNotFound, field: field, msg: fmt.Sprintf(format, args...)}
	}
	return err
}

func tokenView(c store.Credential) api.Token {
	t := api.Token{ID: c.ID, Kind: string(c.Kind), Subject: c.Subject, Note: c.Note, CreatedBy: c.CreatedBy, CreatedAt: c.CreatedAt}
	if !c.ExpiresAt.IsZero() {
		t.ExpiresAt = &c.ExpiresAt
	}
	if !c.RevokedAt.IsZero() {
		t.RevokedAt = &c.RevokedAt
	}
	return t
}

func (ac *access) handleListTokens(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if err := onlyParams(q, "kind", "subject"); err != nil {
		ac.fail(w, err)
		return
	}
	kind := q.Get("kind")
	if kind != "" && kind != api.TokenUser && kind != api.TokenJoin && kind != api.TokenNode {
		ac.fail(w, badRequest("kind", "kind %q: expected user, join or node", kind))
		return
	}
	subject, err := ownTokens(principalOf(r), &kind, q.Get("subject")) // selftokens.go
	if err != nil {
		ac.deny(w, r, err)
		return
	}
	cs, err := ac.m.st.Credentials(r.Context(), store.CredentialKind(kind), subject)
	if err != nil {
		ac.fail(w, err)
		return
	}
	out := make([]api.Token, 0, len(cs))
	for _, c := range cs {
		out = append(out, tokenView(c))
	}
	writeJSON(w, http.StatusOK, out)
}

func (ac *access) handleCreateToken(w http.ResponseWriter, r *http.Request) {
	var nt api.NewToken
	if err := decodeBody(w, r, &nt); err != nil {
		ac.fail(w, err)
		return
	}
	if err := ownNewToken(principalOf(r), &nt); err != nil { // selftokens.go
		ac.deny(w, r, err)
		return
	}
	c, secret, err := ac.newToken(r, nt)
	if err != nil {
		ac.fail(w, err)
		return
	}
	noteAudit(r.Context(), "created %s", tokenDetail(c))
	writeJSON(w, http.StatusCreated, api.CreatedToken{Token: tokenView(c), Secret: secret})
}

// newToken makes and stores the credential that nt asks for.
func (ac *access) newToken(r *http.Request, nt api.NewToken) (store.Credential, string, error) {
	if nt.TTLS < 0 {
		return store.Credential{}, "", badRequest("ttl_s", "ttl_s %d: expected seconds >= 0", nt.TTLS)
	}
	c := store.Credential{Note: nt.Note, CreatedBy: principalOf(r).User, CreatedAt: ac.m.now()}
	prefix := auth.PrefixUser
	switch nt.Kind {
	case api.TokenUser:
		if _, err := ac.m.st.User(r.Context(), nt.User); err != nil {
			return c, "", notFoundAs(err, "user", "user %q does not exist (create it with allot user create)", nt.User)
		}
		c.Kind, c.Subject = store.CredUser, nt.User
	case api.TokenJoin:
		if nt.User != "" {
			return c, "", badRequest("user", "a join token belongs to no user; leave user out")
		}
		if nt.TTLS == 0 {
			nt.TTLS = api.DefaultJoinTTLS
		}
		c.Kind, c.Subject, prefix = store.CredJoin, c.CreatedBy, auth.PrefixJoin
	default:
		return c, "", badRequest("kind", "kind %q: expected user or join (node credentials are issued at registration)", nt.Kind)
	}
	if nt.TTLS > 0 {
		c.ExpiresAt = c.CreatedAt.Add(time.Duration(nt.TTLS) * time.Second)
	}
	secret, hash, err := auth.NewSecret(prefix)
	if err != nil {
		return c, "", err
	}
	c.Hash = hash
	c, err = ac.m.st.CreateCredential(r.Context(), c)
	return c, secret, err
}

func (ac *access) handleRevokeToken(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		ac.fail(w, badRequest("id", "token id %q: expected a positive integer", r.PathValue("id")))
		return
	}
	out, err := ac.revokeToken(r, id) // revoke.go
	if err != nil {
		ac.deny(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (ac *access) handleAudit(w http.ResponseWriter, r *http.Request) {
	if !ac.adminOnly(w, r, "reading the audit log") {
		return
	}
	f, err := auditFilter(r.URL.Query(), ac.m.now())
	if err != nil {
		ac.fail(w, err)
		return
	}
	es, err := ac.m.st.Audit(r.Context(), f)
	if err != nil {
		ac.fail(w, err)
		return
	}
	if f.Newest {
		slices.Reverse(es) // the newest N, listed oldest first as always
	}
	out := make([]api.AuditEntry, 0, len(es))
	for _, e := range es {
		out = append(out, api.AuditEntry{Seq: e.Seq, At: e.At, Actor: e.Actor, Action: e.Action, Target: e.Target,
			Status: e.Status, Detail: e.Detail, RequestID: e.RequestID})
	}
	writeJSON(w, http.StatusOK, out)
}

// auditFilter reads GET /audit's query: after, actor, since and until
// (times as /history's, either bound left open when not given), and
// limit (the oldest entries, 1000 unless given) or last (the newest N,
// read newest first from the store), not both.
func auditFilter(q url.Values, now time.Time) (store.AuditFilter, error) {
	if err := onlyParams(q, "after", "actor", "limit", "last", "since", "until"); err != nil {
		return store.AuditFilter{}, err
	}
	f := store.AuditFilter{Actor: q.Get("actor"), Limit: 1000}
	if err := checkActor(f.Actor); err != nil {
		return f, err
	}
	if err := auditWindow(q, now, &f); err != nil {
		return f, err
	}
	if s := q.Get("after"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return f, badRequest("after", "after %q: expected an integer >= 0", s)
		}
		f.After = n
	}
	if q.Has("limit") && q.Has("last") {
		return f, badRequest("last", "last and limit: give one (last: the newest entries, limit: the oldest)")
	}
	for _, name := range []string{"limit", "last"} {
		if s := q.Get(name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 || n > 10000 {
				return f, badRequest(name, "%s %q: expected 1..10000", name, s)
			}
			f.Limit, f.Newest = n, name == "last"
		}
	}
	return f, nil
}

// auditWindow reads GET /audit's since and until into f; unlike
// /history's window neither has a default, so that the log reads whole
// unless asked for less.
func auditWindow(q url.Values, now time.Time, f *store.AuditFilter) error {
	for _, b := range []struct {
		name string
		to   *time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		if s := q.Get(b.name); s != "" {
			t, err := parseWhen(s, now)
			if err != nil {
				return badRequest(b.name, "%s %q: %v", b.name, s, err)
			}
			*b.to = t
		}
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return badRequest("since", "since %s is not before until %s",
			f.Since.Format(time.RFC3339), f.Until.Format(time.RFC3339))
	}
	return nil
}

// checkActor refuses an actor filter that no audit entry could have, such
// as a bare user name: it would match nothing, and an empty log reads as
// "nobody did anything".
func checkActor(actor string) error {
	if actor == "" || actor == "anonymous" || actor == "master" { // master: a store outage's mark (health.go)
		return nil
	}
	kind, name, ok := strings.Cut(actor, ":")
	// Every form the log writes: auth.Principal.Actor's, a join token's
	// (harden.go) and recover-admin's local:OSUSER (bootstrap.go).
	if ok && name != "" && (kind == "user" || kind == "node" || kind == "join-token" || kind == "local") {
		return nil
	}
	hint := ""
	if !ok {
		hint = fmt.Sprintf(" (did you mean user:%s?)", actor)
	}
	return badRequest("actor", "actor %q: expected user:NAME, node:NAME, join-token:ID, local:OSUSER (allot master recover-admin), master (its starts and store outages) or anonymous%s", actor, hint)
}
