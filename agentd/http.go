package agentd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
)

// statusError is a reply from the master with a status other than 2xx.
type statusError struct {
	path   string
	status int
	msg    string
	// storeOutage: the master answered that its store is unavailable
	// (api.StoreOutageHeader); it is up and loses no node meanwhile.
	storeOutage bool
	// lease, on a 404 when leased, is how much longer the master waits
	// for the node to register before it loses it (api.NodeLeaseHeader).
	lease  time.Duration
	leased bool
	// credential, on a 401, is why the master refuses the node's
	// credential for good (api.CredentialHeader): "" when it does not say.
	credential string
}

func (e *statusError) Error() string {
	if e.msg != "" {
		return fmt.Sprintf("POST %s: %d %s: %s", e.path, e.status, http.StatusText(e.status), e.msg)
	}
	return fmt.Sprintf("POST %s: %d %s", e.path, e.status, http.StatusText(e.status))
}

// isStatus reports whether err is a reply with the given status.
func isStatus(err error, status int) bool {
	var se *statusError
	return errors.As(err, &se) && se.status == status
}

// isStoreOutage reports whether err is the master's answer that its
// store is unavailable.
func isStoreOutage(err error) bool {
	var se *statusError
	return errors.As(err, &se) && se.storeOutage
}

// nodeLease returns the lease a 404 said the master still gives the
// node (api.NodeLeaseHeader), and whether it said one.
func nodeLease(err error) (time.Duration, bool) {
	var se *statusError
	if !errors.As(err, &se) || se.status != http.StatusNotFound || !se.leased {
		return 0, false
	}
	return se.lease, true
}

// parseLease reads api.NodeLeaseHeader, milliseconds >= 0; ok is false
// when it is absent or not that.
func parseLease(h string) (lease time.Duration, ok bool) {
	ms, err := strconv.ParseInt(h, 10, 64)
	if err != nil || ms < 0 || ms > math.MaxInt64/int64(time.Millisecond) {
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
}

// permanent reports whether re-sending the same request cannot help: the
// master rejected its content. 404 is not permanent (the node registers
// again), nor are timeouts and throttling.
func permanent(err error) bool {
	var se *statusError
	if !errors.As(err, &se) {
		return false
	}
	switch se.status {
	case http.StatusNotFound, http.StatusRequestTimeout, http.StatusTooManyRequests:
		return false
	}
	return se.status >= 400 && se.status < 500
}

// maxReplyBytes bounds what the agent reads of a reply; a sync reply with
// a thousand start commands is far below it.
const maxReplyBytes = 32 << 20

// masterConn is how the agent reaches the master: its URL (without a
// trailing slash), the client that sends the requests and the credential
// they present.
type masterConn struct {
	base   string
	client *http.Client
	cred   *credential
}

// post sends in as JSON to the master's path under /api/v1 and decodes
// the reply into out (nil: the body is discarded).
func (c masterConn) post(ctx context.Context, path string, timeout time.Duration, in, out any) error {
	return c.postHeard(ctx, path, timeout, in, out, nil)
}

// postHeard is post for a sync that asks for heartbeats
// (api.SyncHeartbeatHeader) when heard is not nil: if the master says it
// sends them, heard gets the time its headers came and the time each
// part of the body came, each a moment at which the master held the
// sync (api.SyncHeartbeatHeader says why that is contact).
func (c masterConn) postHeard(ctx context.Context, path string, timeout time.Duration, in, out any, heard func(time.Time)) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("POST %s: encode: %w", path, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx, giveUp := context.WithCancelCause(ctx)
	defer giveUp(nil)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+api.Version+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if tok := c.cred.bearer(); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if heard != nil {
		req.Header.Set(api.SyncHeartbeatHeader, "1")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	var rd io.Reader = resp.Body
	if heard != nil && resp.StatusCode == http.StatusOK && resp.Header.Get(api.SyncHeartbeatHeader) != "" {
		heard(time.Now())
		idle := heartbeatSilence(resp.Header.Get(api.SyncHeartbeatHeader))
		watch := time.AfterFunc(idle, func() { giveUp(fmt.Errorf("%w: no heartbeat for %s", errSilent, idle)) })
		defer watch.Stop()
		rd = heardReader{r: rd, heard: func(at time.Time) {
			watch.Reset(idle)
			heard(at)
		}}
	}
	data, err := io.ReadAll(io.LimitReader(rd, maxReplyBytes))
	if err != nil {
		if cause := context.Cause(ctx); errors.Is(cause, errSilent) {
			err = cause
		}
		return fmt.Errorf("POST %s: read the reply: %w", path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		se := &statusError{path: path, status: resp.StatusCode, msg: errorMessage(path, data),
			storeOutage: resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get(api.StoreOutageHeader) != ""}
		se.lease, se.leased = parseLease(resp.Header.Get(api.NodeLeaseHeader))
		if resp.StatusCode == http.StatusUnauthorized {
			se.credential = resp.Header.Get(api.CredentialHeader)
		}
		return se
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("POST %s: decode the reply: %w", path, err)
	}
	return nil
}

// errSilent is why a held sync was given up: its heartbeats stopped.
var errSilent = errors.New("the master stopped sending heartbeats while holding the sync")

// heartbeatSilence is how long a sync whose master sends heartbeats every
// interval (the header's milliseconds) may bring no byte before the agent
// gives it up: a connection gone without a word (the master's host lost,
// a network cut) would otherwise hold the poll until its timeout, past
// the fence's stop, where the agent could have registered again with a
// master back sooner. Commands in a reply given up are not lost: the
// master sends them again until the agent acknowledges them.
func heartbeatSilence(header string) time.Duration {
	interval := time.Second
	if ms, err := strconv.ParseInt(header, 10, 64); err == nil && ms > 0 && ms <= 60_000 {
		interval = time.Duration(ms) * time.Millisecond
	}
	return 3*interval + 2*time.Second
}

// heardReader calls heard with the time of every read that brings bytes.
type heardReader struct {
	r     io.Reader
	heard func(time.Time)
}

func (h heardReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if n > 0 {
		h.heard(time.Now())
	}
	return n, err
}

// registerFlags names the flag of allot agent behind each field of a
// registration that the master may refuse: the operator typed the flag.
var registerFlags = map[string]string{
	"name":   "--name",
	"pool":   "--pool",
	"labels": "--label",
	"gpus":   "--fake-gpus, or the GPUs nvidia-smi lists",
}

// errorMessage extracts an api.Error's text from a reply body to path,
// naming the field at fault (for a registration, the flag that set it),
// or a shortened copy of the body when it is not one.
func errorMessage(path string, body []byte) string {
	var e api.Error
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		if flag := registerFlags[e.Field]; flag != "" && path == "/agents/register" {
			return e.Error + " (" + flag + ")"
		}
		if e.Field != "" {
			return e.Error + " (field " + e.Field + ")"
		}
		return e.Error
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// backoff yields capped exponential delays with jitter: the n-th delay
// after a failure lies in [d/2, d] for d = min(Min·2ⁿ, Max). The jitter
// comes from a seeded source, so that nodes started together spread
// their retries while a test run stays reproducible. Not safe for
// concurrent use: each loop owns one.
type backoff struct {
	min, max time.Duration
	cur      time.Duration
	rnd      *rand.Rand
}

func newBackoff(minD, maxD time.Duration, seed uint64) *backoff {
	return &backoff{min: minD, max: max(maxD, minD), rnd: rand.New(rand.NewPCG(seed, 0x616c6c6f74))}
}

// next returns the delay before the next try.
func (b *backoff) next() time.Duration { return b.nextWithin(b.max) }

// nextWithin returns the delay before the next try, bounded by limit:
// the jitter spreads it over [c/2, c] for c = min(d, limit), so that
// nodes whose delays are all cut (retryLimit) still spread their tries
// rather than all come at once. The failures go on doubling d, so a
// delay no longer cut grows on from where the outage has got to.
func (b *backoff) nextWithin(limit time.Duration) time.Duration {
	if b.cur == 0 {
		b.cur = b.min
	} else {
		b.cur = min(2*b.cur, b.max)
	}
	c := max(min(b.cur, limit), 1)
	half := c / 2
	return half + time.Duration(b.rnd.Int64N(int64(c-half)+1))
}

// reset starts over after a success.
func (b *backoff) reset() { b.cur = 0 }

// sleep waits d or until ctx is done; it reports whether the full d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
