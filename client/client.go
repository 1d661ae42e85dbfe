package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
)

// MaxResponseBytes bounds a response body, so that a wrong address that
// serves something huge cannot exhaust memory.
const MaxResponseBytes = 256 << 20

// maxPlainMessage bounds the text kept from an error body that is not an
// api.Error.
const maxPlainMessage = 200

// Client talks to one master. It is safe for concurrent use.
type Client struct {
	// tr sends the requests; a named field, so that its methods are not
	// the Client's.
	tr transport
}

// transport sends a client's requests to the master at base over http,
// with the bearer token when there is one, and turns what comes back
// into an answer or an error.
type transport struct {
	base  *url.URL
	http  *http.Client
	token string
	// notes, when set, hears a line for each retry of a request the
	// master could not serve for the moment, and for each partial answer.
	notes io.Writer
}

// WithToken returns a copy of c that authenticates with the bearer token
// (a user's API token).
func (c *Client) WithToken(token string) *Client {
	cp := *c
	cp.tr.token = token
	return &cp
}

// WithNotes returns a copy of c that writes a one-line note to w before
// each retry of a request the master could not serve for the moment (its
// store unavailable), so that a person waiting for an answer knows why
// none comes yet, and for an answer the master gave from its memory
// during such an outage (api.PartialHeader), which lacks what only the
// store holds.
func (c *Client) WithNotes(w io.Writer) *Client {
	cp := *c
	cp.tr.notes = w
	return &cp
}

// HTTPClient returns an http.Client that trusts the PEM certificates in
// caFile besides the system's roots, for a master serving HTTPS with a
// private CA; "" returns nil (the default client).
func HTTPClient(caFile string) (*http.Client, error) {
	if caFile == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("CA file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("CA file %s: no PEM certificate in it", caFile)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr}, nil
}

// New returns a client for the master at addr: a URL such as
// http://10.0.0.5:8080, or host:port for plain HTTP (the CLI makes it
// https:// when it is given a CA: see cli.withScheme). An address that ends
// in the API's path (http://10.0.0.5:8080/api/v1, as allot dev prints it),
// or in a part of it (/api), names the same master: the client adds that
// path to every request itself, so it is cut off here rather than sent
// twice. A path into the API beyond it (/api/v1/jobs) is refused. hc may be nil for
// a default client (without timeout, see the package comment).
func New(addr string, hc *http.Client) (*Client, error) {
	raw := strings.TrimSpace(addr)
	if raw != "" && !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("master address %q: expected a URL such as http://127.0.0.1:8080 or host:port", addr)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	if p, ok := strings.CutSuffix(u.Path, api.Version); ok {
		u.Path = strings.TrimSuffix(p, "/")
	} else {
		u.Path = strings.TrimSuffix(u.Path, "/api") // a part of it
	}
	if strings.Contains(u.Path+"/", api.Version+"/") {
		// An endpoint's URL: the client would add the path again.
		return nil, fmt.Errorf("master address %q: expected a URL such as http://127.0.0.1:8080 or host:port, the master's own, "+
			"not an endpoint's (%s)", addr, u.Path)
	}
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{tr: transport{base: u, http: hc}}, nil
}

// Addr returns the master's base URL.
func (c *Client) Addr() string { return c.tr.addr() }

// Error is a response of the master outside 2xx.
type Error struct {
	Status  int    // the HTTP status code
	Message string // the api.Error message, or the body's text
	Field   string // the request field at fault, when the master names one
	// Errors are every error the master found (api.Error.Errors), the
	// first being Message and Field, where it found more than one; nil
	// for one.
	Errors []api.FieldError
}

// Error reads "master: 400 Bad Request: resources.slots: expected ...".
// A 404's or a 409's field is the path's (id, name), which its message
// names already ("job 999 does not exist", "node dgx-1 runs 2 tasks"),
// so it is left out.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "master: %d %s", e.Status, http.StatusText(e.Status))
	pathField := e.Status == http.StatusNotFound || e.Status == http.StatusConflict
	if e.Field != "" && !pathField && !strings.HasPrefix(e.Message, e.Field) {
		b.WriteString(": " + e.Field)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	for _, o := range e.Errors[min(1, len(e.Errors)):] {
		b.WriteString("; ")
		if o.Field != "" && !strings.HasPrefix(o.Error, o.Field) {
			b.WriteString(o.Field + ": ")
		}
		b.WriteString(o.Error)
	}
	return b.String()
}

// Retries of a 503 that carries Retry-After: the master sends it when its
// store refused the request, having changed nothing, so even a submission
// is safe to send again.
const (
	maxUnavailableRetries = 3
	maxRetryAfter         = 10 * time.Second
)

// do sends a request with an optional JSON body and decodes a JSON answer
// into out (nil to expect none). A 503 with Retry-After is retried a few
// times, waiting as asked (at most maxRetryAfter), while ctx allows.
func (c *transport) do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	var data []byte
	if in != nil {
		var err error
		if data, err = json.Marshal(in); err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
	}
	for try := 0; ; try++ {
		wait, err := c.once(ctx, method, path, query, data, in != nil, out)
		if wait <= 0 || try == maxUnavailableRetries {
			return gaveUp(method, try, err)
		}
		if c.notes != nil {
			what := "unavailable"
			if e := (*Error)(nil); errors.As(err, &e) && strings.Contains(e.Message, "store is unavailable") {
				what = "store unavailable"
			}
			fmt.Fprintf(c.notes, "master: %s, retrying in %s (%d/%d)...\n", what, wait, try+1, maxUnavailableRetries)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// gaveUp words the last refusal of a request that was retried: the
// master's "retry in a few seconds" was done already, and its "nothing
// was changed" is for requests that change something, so a reader is
// told how often it was retried instead.
func gaveUp(method string, retries int, err error) error {
	var e *Error
	if retries == 0 || !errors.As(err, &e) || e.Status != http.StatusServiceUnavailable {
		return err
	}
	if method != http.MethodGet && method != http.MethodHead {
		msg := strings.TrimSuffix(e.Message, "; retry in a few seconds")
		return &Error{Status: e.Status, Field: e.Field,
			Message: fmt.Sprintf("%s; still so after %d retries: try again later", msg, retries)}
	}
	msg, _, _ := strings.Cut(e.Message, ": nothing was changed")
	return &Error{Status: e.Status, Field: e.Field,
		Message: fmt.Sprintf("%s; still so after %d retries: try again later", msg, retries)}
}

// once sends the request once. When the answer is a 503 with Retry-After
// it also returns how long to wait before trying again.
func (c *transport) once(ctx context.Context, method, path string, query url.Values, data []byte, hasBody bool, out any) (time.Duration, error) {
	u := *c.base
	u.Path += api.Version + path
	u.RawQuery = query.Encode()
	var body io.Reader
	if hasBody {
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return 0, fmt.Errorf("build request: %w", err)
	}
	if hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, c.transportError(ctx, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return 0, c.transportError(ctx, err)
	}
	if len(raw) > MaxResponseBytes {
		return 0, fmt.Errorf("%s %s: the response is larger than %d bytes", method, u.Path, MaxResponseBytes)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return retryAfter(resp), httpsAnswer(responseError(resp.StatusCode, raw), c.base)
	}
	if note := resp.Header.Get(api.PartialHeader); note != "" && c.notes != nil {
		// An answer from the master's memory during a store outage: the
		// reader must not take the missing ended jobs or attempts as none.
		fmt.Fprintf(c.notes, "note: %s\n", note)
	}
	if out == nil {
		return 0, nil
	}
	if rb, ok := out.(*rawBody); ok {
		*rb = raw
		return 0, nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return 0, fmt.Errorf("%s %s: the master's answer is not the expected JSON: %w", method, u.Path, err)
	}
	return 0, nil
}

// rawBody takes an answer that is not JSON as it is.
type rawBody []byte

// retryAfter is the wait a 503 asks for in seconds, bounded; 0 for any
// other answer, or a 503 without a usable Retry-After.
func retryAfter(resp *http.Response) time.Duration {
	if resp.StatusCode != http.StatusServiceUnavailable {
		return 0
	}
	secs, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After")))
	if err != nil || secs < 0 {
		return 0
	}
	return min(time.Duration(secs)*time.Second, maxRetryAfter)
}

// transportError explains a request that got no answer.
func (c *transport) transportError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); errors.Is(ctxErr, context.DeadlineExceeded) {
		// A bare "context deadline exceeded" said nothing of whom the
		// client waited for, or why (trial 2026-11-29b B3).
		return fmt.Errorf("master %s did not answer in time: it may be overloaded, or waiting on its store (its log and GET /readyz say which): %w", c.addr(), ctxErr)
	} else if ctxErr != nil {
		return fmt.Errorf("master %s: %w", c.addr(), ctxErr)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the URL is in the message already
	}
	if hint := TLSHint(err); hint != "" {
		// Another address would not help (trial 2026-11-29c C2).
		return fmt.Errorf("cannot talk to the master at %s: %s: %w", c.addr(), hint, err)
	}
	return &UnreachableError{Addr: c.addr(), Err: err}
}

// addr is the master's base URL.
func (c *transport) addr() string { return c.base.String() }

// responseError turns a non-2xx answer into an *Error.
func responseError(status int, body []byte) *Error {
	var ae api.Error
	if json.Unmarshal(body, &ae) == nil && ae.Error != "" {
		return &Error{Status: status, Message: ae.Error, Field: ae.Field, Errors: ae.Errors}
	}
	// A plain-text body (from net/http's own errors, or a proxy) says
	// what went wrong in its first line; an HTML page says nothing that
	// the status does not.
	msg, _, _ := strings.Cut(strings.TrimSpace(string(body)), "\n")
	if strings.HasPrefix(msg, "<") {
		msg = ""
	}
	if len(msg) > maxPlainMessage {
		msg = strings.ToValidUTF8(msg[:maxPlainMessage], "") + "..."
	}
	return &Error{Status: status, Message: msg}
}

// UnreachableError is a request that reached no master: nothing listens
// at the address, or the connection failed before an answer. Its own
// type lets the CLI word it for where the address came from (the
// built-in default of a user never logged in: trial 2026-11-29e E11).
type UnreachableError struct {
	Addr string // the master's base URL
	Err  error  // the dial's or the connection's error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the master at %s (set --master or ALLOT_MASTER to another address): %v", e.Addr, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }
