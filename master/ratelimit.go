package master

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Rate limits. A script that loops on `allot submit` or `allot job kill`
// must not starve the other users of a shared master: each user gets a
// token bucket for the requests that change state (anything but GET and
// HEAD), and a request over it gets 429 with Retry-After. Reads, agents'
// traffic and admins are not limited: dashboards poll, agents' syncs are
// the cluster's heartbeat, and admins repair things in bulk.

// DefaultUserRate and DefaultUserBurst are Options.UserRate and UserBurst
// unless set: far above what a person types, below what a runaway loop
// sends.
const (
	DefaultUserRate  = 50.0
	DefaultUserBurst = 200
)

// maxLimiters bounds the buckets kept; the least recently used go first.
const maxLimiters = 10000

// userLimits holds one bucket per user.
type userLimits struct {
	rate  rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*limiterEntry
}

type limiterEntry struct {
	l    *rate.Limiter
	used time.Time
}

func newUserLimits(perSecond float64, burst int) *userLimits {
	return &userLimits{rate: rate.Limit(perSecond), burst: burst, buckets: map[string]*limiterEntry{}}
}

// allow takes a token of user's bucket, or says how long to wait for one.
func (u *userLimits) allow(user string, now time.Time) (bool, time.Duration) {
	u.mu.Lock()
	defer u.mu.Unlock()
	e := u.buckets[user]
	if e == nil {
		if len(u.buckets) >= maxLimiters {
			u.evictOldest()
		}
		e = &limiterEntry{l: rate.NewLimiter(u.rate, u.burst)}
		u.buckets[user] = e
	}
	e.used = now
	r := e.l.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

func (u *userLimits) evictOldest() {
	var oldest string
	var at time.Time
	for k, e := range u.buckets {
		if oldest == "" || e.used.Before(at) {
			oldest, at = k, e.used
		}
	}
	delete(u.buckets, oldest)
}

// limit refuses, with 429, a user's change over the user's rate. Callers
// run it after authentication, when the principal is known.
func (ac *access) limit(w http.ResponseWriter, r *http.Request) bool {
	if ac.limits == nil || r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	p := principalOf(r)
	if p.User == "" || p.Admin {
		return true
	}
	ok, wait := ac.limits.allow(p.User, time.Now())
	if ok {
		return true
	}
	secs := int(math.Ceil(wait.Seconds()))
	w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
	writeError(w, http.StatusTooManyRequests, "", "user %s sent more than %g changes a second (burst %d): retry in %ds",
		p.User, float64(ac.limits.rate), ac.limits.burst, max(secs, 1))
	return false
}
