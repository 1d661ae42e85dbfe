package master

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/store"
)

// credCacheTTL bounds how long a resolved credential is trusted without
// reading the store again: a revocation through another master (or
// directly in the database) takes effect within it; one through this
// master takes effect at once.
const credCacheTTL = 5 * time.Second

// reqInfo is what the middleware learns about a request, shared by the
// audit log and the handlers through the request's context.
type reqInfo struct {
	id        string
	principal auth.Principal
	// cred is the credential presented: a valid one, or one the master
	// knows and refused (revoked, expired, its user disabled), which only
	// names the refusal's actor in the audit log (auditActor).
	cred store.Credential
	// reRegister marks an agent's sync answered 404 only to ask it to
	// register again (after a master restart, or once its node was
	// lost): no refusal, so the audit log leaves it out.
	reRegister bool
	// detail is what a successful change changed, for its audit entry
	// (noteAudit); a refusal's detail is its error.
	detail string
	// target names what a change made, where its path cannot: a
	// submission's job (noteAuditTarget); "" keeps auditTarget's.
	target string
}

type reqInfoKey struct{}

func infoOf(r *http.Request) *reqInfo {
	if ri, ok := r.Context().Value(reqInfoKey{}).(*reqInfo); ok {
		return ri
	}
	return &reqInfo{}
}

// principalOf is who made the request (zero when unauthenticated).
func principalOf(r *http.Request) auth.Principal { return infoOf(r).principal }

// access owns who may do what: it authenticates requests by their bearer
// tokens (with a cache of resolved credentials), checks a principal's
// rights on a job, limits each user's rate of changes, writes the audit
// log, and serves the users and tokens endpoints. creds has its own lock
// and limits theirs; neither is taken with Master.mu held, and neither
// is held while taking it. Reading a job's owner takes Master.mu.
type access struct {
	server
	// creds caches resolved bearer credentials.
	creds credCache
	// limits are the users' rate limits (ratelimit.go); nil for none.
	limits *userLimits
	// deadCreds collapses the audit entries of requests refused for a
	// known dead credential (auditflood.go).
	deadCreds deadCredAudit
	// revokeMu makes a token's revoke and its last-admin check one step
	// (revoke.go).
	revokeMu sync.Mutex
}

// credCache remembers credentials and users by hash for credCacheTTL.
type credCache struct {
	mu      sync.Mutex
	entries map[string]credEntry
}

type credEntry struct {
	cred  store.Credential
	user  store.User
	until time.Time
}

// get returns the cached entry for hash, if any; fresh says it is within
// credCacheTTL.
func (c *credCache) get(hash string, now time.Time) (e credEntry, fresh, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok = c.entries[hash]
	return e, ok && !now.After(e.until), ok
}

func (c *credCache) put(hash string, e credEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) > 10000 {
		c.entries = map[string]credEntry{}
	}
	c.entries[hash] = e
}

// forget drops the cached credentials that a change to users or
// credentials may have made wrong, those for which drop is true, and
// keeps the others: a kept entry is still what the store says, and it is
// what lets its token read through a store outage (resolve), which a
// token whose entry was dropped cannot until it is used again.
func (c *credCache) forget(drop func(credEntry) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for hash, e := range c.entries {
		if drop(e) {
			delete(c.entries, hash)
		}
	}
}

// ofUser is true for the entries of user name's tokens.
func ofUser(name string) func(credEntry) bool {
	return func(e credEntry) bool { return e.cred.Kind == store.CredUser && e.cred.Subject == name }
}

// ofNode is true for the entries of node name's credentials.
func ofNode(name string) func(credEntry) bool {
	return func(e credEntry) bool { return e.cred.Kind == store.CredNode && e.cred.Subject == name }
}

// ofToken is true for the entry of the credential with this id.
func ofToken(id int64) func(credEntry) bool {
	return func(e credEntry) bool { return e.cred.ID == id }
}

var errUnauthenticated = errors.New("invalid API token")

// userDisabled is why a disabled user's token is refused: a new token
// would be refused too, so the answer says who can lift it.
type userDisabled struct{ user string }

func (e *userDisabled) Error() string { return fmt.Sprintf("user %q is disabled", e.user) }

// resolve finds the live credential (and, for a user token, the enabled
// user) behind a bearer token. When the store cannot answer (a database
// outage), a credential resolved before is still taken, however long ago,
// while it has not expired: the reads the master serves from memory
// (jobs, nodes, explanations) go on through an outage, and nothing is
// let in that the store would have refused, since revoking a token or
// disabling its user is a write, which the outage refuses too.
func (ac *access) resolve(ctx context.Context, token string) (credEntry, error) {
	hash := auth.Hash(token)
	now := ac.m.now()
	cached, fresh, ok := ac.creds.get(hash, now)
	switch {
	case ok && !cached.cred.Live(now):
		// Expired since it was cached: the store would say so too (a
		// revocation through this master empties the cache).
		return credEntry{cred: cached.cred}, fmt.Errorf("%w: %s", errUnauthenticated, whyDead(cached.cred))
	case ok && fresh:
		return cached, nil
	}
	e, err := ac.lookup(ctx, hash, now)
	if err != nil && ok && !errors.Is(err, errUnauthenticated) {
		return cached, nil
	}
	return e, err
}

// lookup resolves the credential whose token hashes to hash from the
// store, and caches it. A credential known but no longer live comes back
// with the error, for the audit to name (it admits nothing).
func (ac *access) lookup(ctx context.Context, hash string, now time.Time) (credEntry, error) {
	c, err := ac.m.st.CredentialByHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return credEntry{}, fmt.Errorf("%w: the token is not known", errUnauthenticated)
	}
	if err != nil {
		return credEntry{}, err
	}
	if !c.Live(now) {
		return credEntry{cred: c}, fmt.Errorf("%w: %s", errUnauthenticated, whyDead(c))
	}
	e := credEntry{cred: c, until: now.Add(credCacheTTL)}
	if c.Kind == store.CredUser {
		u, err := ac.m.st.User(ctx, c.Subject)
		if errors.Is(err, store.ErrNotFound) {
			return credEntry{cred: c}, fmt.Errorf("%w: the token's user %q no longer exists", errUnauthenticated, c.Subject)
		}
		if err != nil {
			return credEntry{}, err
		}
		if u.Disabled {
			return credEntry{cred: c}, fmt.Errorf("%w: %w", errUnauthenticated, &userDisabled{u.Name})
		}
		e.user = u
	}
	ac.creds.put(hash, e)
	return e, nil
}

// whyDead says why a credential that is not live is refused: revoked or
// expired, whichever came first, with when, since the remedy differs (a
// revoked token was taken away on purpose; an expired one is renewed).
func whyDead(c store.Credential) string {
	revoked := !c.RevokedAt.IsZero() && (c.ExpiresAt.IsZero() || c.RevokedAt.Before(c.ExpiresAt))
	if revoked {
		return fmt.Sprintf("the token (id %d) was revoked at %s", c.ID, c.RevokedAt.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("the token (id %d) expired at %s", c.ID, c.ExpiresAt.UTC().Format(time.RFC3339))
}

// authenticate admits a request by its bearer token: a user's API token
// for the API, a join token or the node's credential for registration,
// and the node's own credential for the rest of the agents' protocol.
// /healthz, the dashboard's files and the OpenAPI document are open;
// /metrics is open unless Options.PrivateMetrics, but a token sent to it
// is checked all the same: it may let its holder read the usage series
// (metrics.handler), and a bad one is refused rather than ignored.
func (ac *access) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		isAPI := strings.HasPrefix(path, api.Version+"/")
		metricsAuth := path == "/metrics" && (ac.m.opt.PrivateMetrics || r.Header.Get("Authorization") != "")
		if !isAPI && !metricsAuth || path == api.Version+"/openapi.json" {
			next.ServeHTTP(w, r)
			return
		}
		ri := infoOf(r)
		token, ok := auth.BearerToken(r.Header.Get("Authorization"))
		if !ok {
			ac.refuse(w, r, &auth.Error{Status: http.StatusUnauthorized,
				Msg: "authentication required: send an API token as 'Authorization: Bearer TOKEN' (see allot login)"})
			return
		}
		e, err := ac.resolve(r.Context(), token)
		if errors.Is(err, errUnauthenticated) {
			hint := "; sign in with a valid one (allot login, or $ALLOT_TOKEN)"
			var off *userDisabled
			switch {
			case strings.HasPrefix(path, api.Version+"/agents/"):
				// An agent's operator, not a user, reads this in its log.
				hint = "; the agent needs its node credential (WORK_DIR/node-credential) or a join token " +
					"(an admin makes one with allot token create --join)"
			case errors.As(err, &off):
				hint = fmt.Sprintf("; its tokens work again once an admin enables it (allot user enable %s)", off.user)
			}
			// A credential the master knows, revoked, expired or its
			// user's disabled, is audited as whose it is (auditActor):
			// user:NAME, node:NAME or join-token:ID, not anonymous.
			ri.cred = e.cred
			markRevokedNode(w, e.cred) // for the agent: it no longer holds the node
			ac.refuse(w, r, &auth.Error{Status: http.StatusUnauthorized, Msg: deadCredMessage(path, e.cred, err, hint)})
			return
		}
		if err != nil {
			ac.fail(w, fmt.Errorf("authenticate: %w", err))
			return
		}
		ri.cred = e.cred
		if err := ac.admits(r, e); err != nil {
			ac.refuse(w, r, err)
			return
		}
		if !ac.limit(w, r) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// admits checks that the kind of credential fits the endpoint, and sets
// the request's principal.
func (ac *access) admits(r *http.Request, e credEntry) *auth.Error {
	ri := infoOf(r)
	path := r.URL.Path
	agents := api.Version + "/agents/"
	switch {
	case path == agents+"register" && r.Method == http.MethodPost:
		if e.cred.Kind == store.CredJoin || e.cred.Kind == store.CredNode {
			ri.principal = auth.Principal{Node: e.cred.Subject}
			if e.cred.Kind == store.CredJoin {
				ri.principal = auth.Principal{}
			}
			return nil
		}
		return &auth.Error{Status: http.StatusForbidden,
			Msg: "registering a node needs a join token (allot token create --join) or the node's own credential"}
	case strings.HasPrefix(path, agents):
		name, _, _ := strings.Cut(strings.TrimPrefix(path, agents), "/")
		if e.cred.Kind != store.CredNode {
			return &auth.Error{Status: http.StatusForbidden,
				Msg: "the agents' protocol needs a node credential, which the master issues when the node registers"}
		}
		ri.principal = auth.Principal{Node: e.cred.Subject}
		if name != e.cred.Subject {
			return &auth.Error{Status: http.StatusForbidden,
				Msg: fmt.Sprintf("node %q may act only as itself, not as node %q", e.cred.Subject, name)}
		}
		return nil
	case e.cred.Kind != store.CredUser:
		return &auth.Error{Status: http.StatusForbidden,
			Msg: credKindText(e.cred) + ": " + userTokenHint}
	}
	ri.principal = auth.PrincipalOf(e.user)
	return nil
}

// refuse answers a refused request, with WWW-Authenticate on a 401, and
// logs refusals of agents' requests, which are never expected.
func (ac *access) refuse(w http.ResponseWriter, r *http.Request, e *auth.Error) {
	if e.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="allot"`)
	}
	if strings.HasPrefix(r.URL.Path, api.Version+"/agents/") {
		ac.m.log.Warn("agent request refused", "method", r.Method, "path", r.URL.Path, "status", e.Status,
			"actor", principalOf(r).Actor(), "remote", r.RemoteAddr, "reason", e.Msg)
	}
	writeError(w, e.Status, "", "%s", e.Msg)
}

// deny answers with an authorization refusal from package auth, or fails
// with any other error.
func (ac *access) deny(w http.ResponseWriter, r *http.Request, err error) {
	var ae *auth.Error
	if errors.As(err, &ae) {
		ac.refuse(w, r, ae)
		return
	}
	ac.fail(w, err)
}

// jobOwner returns a job's project and user, from the read view when it
// is live; a missing job is a 404.
func (ac *access) jobOwner(ctx context.Context, id int64) (project, user string, err error) {
	if j := ac.m.pub.reads().job(id); j != nil {
		return j.rec.Project, j.rec.User, nil
	}
	rec, err := ac.m.st.Job(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return "", "", &httpError{status: http.StatusNotFound, field: "id", msg: fmt.Sprintf("job %d does not exist", id)}
	}
	if err != nil {
		return "", "", err
	}
	return rec.Project, rec.User, nil
}

// readableJob reads the job id of the request's path and checks that the
// caller may read that job, answering the request itself when not.
func (ac *access) readableJob(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, err := pathID(r)
	if err != nil {
		ac.fail(w, err)
		return 0, false
	}
	if err := ac.mayReadJob(r, id); err != nil {
		ac.deny(w, r, err)
		return 0, false
	}
	return id, true
}

// mayReadJob and mayChangeJob authorize the request for job id.
func (ac *access) mayReadJob(r *http.Request, id int64) error {
	project, user, err := ac.jobOwner(r.Context(), id)
	if err != nil {
		return err
	}
	return principalOf(r).CanRead(project, user)
}

func (ac *access) mayChangeJob(r *http.Request, id int64) error {
	project, user, err := ac.jobOwner(r.Context(), id)
	if err != nil {
		return err
	}
	return principalOf(r).CanChange(project, user)
}

// mayKillJob is mayChangeJob for a kill, which a job's owner may always
// do (auth.Principal.CanKill).
func (ac *access) mayKillJob(r *http.Request, id int64) error {
	project, user, err := ac.jobOwner(r.Context(), id)
	if err != nil {
		return err
	}
	return principalOf(r).CanKill(project, user)
}
