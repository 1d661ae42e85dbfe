package master

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/master/mastertest"
)

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns
// their paths.
func selfSigned(t *testing.T) (cert, key string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "allot test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return cert, key
}

func TestServeTLS(t *testing.T) {
	h := newHarness(t)
	cert, key := selfSigned(t)
	if err := CheckTLS(cert, ""); err == nil {
		t.Fatal("a certificate without its key was accepted")
	}
	if err := CheckTLS(cert, cert); err == nil || !strings.Contains(err.Error(), "--tls-key") {
		t.Fatalf("a certificate as its own key: %v", err)
	}
	opt := ServerOptions{TLSCert: cert, TLSKey: key}
	if err := CheckTLS(cert, key); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(h.m.Handler(), opt, nil)
	go Serve(srv, ln, opt)
	t.Cleanup(func() { srv.Close() })
	url := "https://" + ln.Addr().String()

	hc, err := client.HTTPClient(cert)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(url, hc)
	if err != nil {
		t.Fatal(err)
	}
	who, err := c.WithToken(h.admin).Identity().Whoami(h.ctx)
	if err != nil || who.User != "root" || !who.Admin {
		t.Fatalf("whoami over HTTPS = %+v, %v", who, err)
	}
	plain, _ := client.New(url, nil)
	if _, err := plain.WithToken(h.admin).Identity().Whoami(h.ctx); err == nil {
		t.Fatal("a client without the CA trusted the self-signed certificate")
	}
	if _, err := client.HTTPClient(filepath.Join(t.TempDir(), "none.pem")); err == nil {
		t.Fatal("a missing CA file was accepted")
	}
}

func TestInternalErrorsDoNotLeak(t *testing.T) {
	h := newHarness(t)
	w := httptest.NewRecorder()
	w.Header().Set("X-Request-Id", "abc123")
	server{h.m}.fail(w, errors.New(`dial tcp db.internal:5432: password authentication failed for user "allot"`))
	body := w.Body.String()
	if w.Code != 500 || strings.Contains(body, "db.internal") || strings.Contains(body, "allot\\\"") ||
		!strings.Contains(body, "request id abc123") {
		t.Fatalf("500 answer %d %s", w.Code, body)
	}
	// Every answer carries a request id.
	resp, err := http.Get(h.srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(resp.Header.Get("X-Request-Id")) != 16 {
		t.Fatalf("X-Request-Id = %q", resp.Header.Get("X-Request-Id"))
	}
}

// TestPrivateMetrics: /metrics is open unless --private-metrics, but the
// series that name projects' and users' usage (allot_gpu_seconds_total)
// go only to a caller who may read every project's usage, an admin or a
// role in all projects, as GET /usage redacts them for a member (trial
// 2026-11-29a A4); everyone gets usage by pool. A token sent to an open
// /metrics is checked: a bad one is refused, not ignored.
func TestPrivateMetrics(t *testing.T) {
	const userSeries = `allot_gpu_seconds_total{pool="default",project="default",user="root"} 10`
	const poolSeries = `allot_pool_gpu_seconds_total{pool="default"} 10`
	for _, tc := range []struct {
		name      string
		private   bool
		who       string // "", "admin", "member", "all-viewer", "bad"
		code      int
		userLines bool
	}{
		{"open, no token: by pool only", false, "", 200, false},
		{"open, a member: by pool only", false, "member", 200, false},
		{"open, a viewer of every project: by user", false, "all-viewer", 200, true},
		{"open, the admin: by user", false, "admin", 200, true},
		{"open, a bad token: refused", false, "bad", 401, false},
		{"private, no token: refused", true, "", 401, false},
		{"private, a member: by pool only", true, "member", 200, false},
		{"private, the admin: by user", true, "admin", 200, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, func(o *Options) { o.PrivateMetrics = tc.private })
			h.m.metric.chargeGPU("default", "default", "root", 10)
			token := map[string]string{"": "", "admin": h.admin, "bad": "allot_u_nosuchtoken"}[tc.who]
			if tc.who == "member" || tc.who == "all-viewer" {
				roles := map[string]string{"default": "member"}
				if tc.who == "all-viewer" {
					roles = map[string]string{"*": "viewer"}
				}
				if code := h.do("POST", "/api/v1/users", api.NewUser{Name: "ann", Roles: roles}, nil); code != 201 {
					t.Fatalf("create user: %d", code)
				}
				var ct api.CreatedToken
				if code := h.do("POST", "/api/v1/tokens", api.NewToken{Kind: "user", User: "ann"}, &ct); code != 201 {
					t.Fatalf("create token: %d", code)
				}
				token = ct.Secret
			}
			code, body := metricsAs(t, h, token)
			if code != tc.code {
				t.Fatalf("/metrics as %q: %d, want %d", tc.who, code, tc.code)
			}
			if code != 200 {
				return
			}
			if got := strings.Contains(body, userSeries); got != tc.userLines {
				t.Errorf("per-user series shown: %v, want %v:\n%s", got, tc.userLines, grepLines(body, "gpu_seconds"))
			}
			if !strings.Contains(body, poolSeries) {
				t.Errorf("/metrics lacks %s:\n%s", poolSeries, grepLines(body, "gpu_seconds"))
			}
		})
	}
}

// metricsAs reads /metrics with token (none when ""): its status and text.
func metricsAs(t *testing.T, h *harness, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(h.ctx, "GET", h.srv.URL+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(data)
}

func TestTokenLifecycle(t *testing.T) {
	h := newHarness(t)
	var u api.User
	if code := h.do("POST", "/api/v1/users", api.NewUser{Name: "ann", Roles: map[string]string{"default": "member"}}, &u); code != 201 {
		t.Fatalf("create user: %d", code)
	}
	for _, tc := range []struct {
		name string
		body any
		code int
	}{
		{"taken name", api.NewUser{Name: "ann"}, 409},
		{"bad name", api.NewUser{Name: "a/b"}, 400},
		{"unknown project", api.NewUser{Name: "zed", Roles: map[string]string{"audio": "member"}}, 400},
		{"unknown role", api.NewUser{Name: "zed", Roles: map[string]string{"default": "owner"}}, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e api.Error
			if code := h.do("POST", "/api/v1/users", tc.body, &e); code != tc.code || e.Error == "" {
				t.Fatalf("status %d (%+v), want %d", code, e, tc.code)
			}
		})
	}
	var ct api.CreatedToken
	if code := h.do("POST", "/api/v1/tokens", api.NewToken{Kind: "user", User: "ann"}, &ct); code != 201 || ct.Secret == "" {
		t.Fatalf("create token: %d %+v", code, ct)
	}
	if code := h.doAs(ct.Secret, "GET", "/api/v1/whoami", nil, nil); code != 200 {
		t.Fatalf("new token: %d", code)
	}
	if code := h.doAs(ct.Secret, "GET", "/api/v1/tokens?kind=join", nil, nil); code != 403 {
		t.Fatalf("a member listing join tokens: %d, want 403", code)
	}
	var list []api.Token
	h.do("GET", "/api/v1/tokens?kind=user&subject=ann", nil, &list)
	if len(list) != 1 || list[0].ID != ct.Token.ID || list[0].RevokedAt != nil {
		t.Fatalf("ann's tokens = %+v", list)
	}
	if code := h.do("POST", "/api/v1/tokens/"+strconv.FormatInt(ct.Token.ID, 10)+"/revoke", nil, nil); code != 200 {
		t.Fatalf("revoke: %d", code)
	}
	// Revocation through the master takes effect at once, cache or not.
	if code := h.doAs(ct.Secret, "GET", "/api/v1/whoami", nil, nil); code != 401 {
		t.Fatalf("revoked token: %d, want 401", code)
	}
	if code := h.do("POST", "/api/v1/tokens/999/revoke", nil, nil); code != 404 {
		t.Fatalf("revoke a missing token: %d, want 404", code)
	}
	var join api.CreatedToken
	if code := h.do("POST", "/api/v1/tokens", api.NewToken{Kind: "join"}, &join); code != 201 || join.Token.ExpiresAt == nil {
		t.Fatalf("join token: %d %+v", code, join)
	}
	if code := h.doAs(join.Secret, "GET", "/api/v1/jobs", nil, nil); code != 403 {
		t.Fatalf("a join token on the user API: %d, want 403", code)
	}
}

// TestDisabledUserIsToldWhoCanLiftIt: a disabled user's token is refused
// with 401 saying that an admin enables the user, not to sign in with a
// valid token (every token of the user would be refused alike).
func TestDisabledUserIsToldWhoCanLiftIt(t *testing.T) {
	h := newHarness(t)
	tok := h.as("ann")
	yes := true
	if code := h.do("PATCH", "/api/v1/users/ann", api.UserUpdate{Disabled: &yes}, nil); code != 200 {
		t.Fatalf("disable: %d", code)
	}
	var e api.Error
	if code := h.doAs(tok, "GET", "/api/v1/jobs", nil, &e); code != 401 {
		t.Fatalf("disabled user: %d, want 401", code)
	}
	want := `invalid API token: user "ann" is disabled; its tokens work again once an admin enables it (allot user enable ann)`
	if e.Error != want {
		t.Errorf("error %q, want %q", e.Error, want)
	}
}

func TestNodeInventoryLimitFromConfig(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "max_node_gpus: 4\n")))
	gpus := func(n int) []api.GPU {
		out := make([]api.GPU, n)
		for i := range out {
			out[i] = api.GPU{Index: i, UUID: "u" + strconv.Itoa(i), Type: "h100"}
		}
		return out
	}
	var e api.Error
	if code := h.do("POST", "/api/v1/agents/register", api.Register{Name: "big", GPUs: gpus(8)}, &e); code != 422 ||
		e.Field != "gpus" || !strings.Contains(e.Error, "the most a node may declare is 4") {
		t.Fatalf("8 GPUs over a limit of 4: %d %+v", code, e)
	}
	if code := h.do("POST", "/api/v1/agents/register", api.Register{Name: "ok", GPUs: gpus(4)}, nil); code != 200 {
		t.Fatalf("4 GPUs: %d", code)
	}
}

// TestSecretsGoOnlyToTheirNode: a job's environment travels only in the
// start command to the node that runs it.
func TestSecretsGoOnlyToTheirNode(t *testing.T) {
	h := newHarness(t)
	a1, a2 := h.agent("n1", 1), h.agent("n2", 1)
	id := h.submit(`{"name": "s", "entrypoint": "e", "environment": {"API_KEY": "s3cret"}, "resources": {"slots": 1}}`)
	h.step()
	h.sync(a1, a2, a1, a2)
	holders := 0
	for _, a := range []*mastertest.Agent{a1, a2} {
		for _, c := range a.Commands() {
			if c.Start != nil && c.Start.Env["API_KEY"] == "s3cret" {
				holders++
				if c.Start.ID().JobID != strconv.FormatInt(id, 10) {
					t.Errorf("%s got the secret with another job's start", a.Name)
				}
			}
		}
	}
	if holders != 1 {
		t.Fatalf("the secret went to %d nodes, want exactly the one that runs the job", holders)
	}
}

func TestWrongMethodIs405(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		name, method, path string
		code               int
		allow              string
	}{
		{"delete the job list", "DELETE", "/api/v1/jobs", 405, "GET, POST"},
		{"put a job", "PUT", "/api/v1/jobs/3", 405, "GET, PATCH"},
		{"get a kill", "GET", "/api/v1/jobs/3/kill", 405, "POST"},
		{"unknown path", "GET", "/api/v1/gpus", 404, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, h.srv.URL+c.path, nil)
			req.Header.Set("Authorization", "Bearer "+h.admin)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.code || resp.Header.Get("Allow") != c.allow {
				t.Fatalf("%d Allow %q, want %d %q", resp.StatusCode, resp.Header.Get("Allow"), c.code, c.allow)
			}
		})
	}
}

func TestBodyMustBeJSON(t *testing.T) {
	h := newHarness(t)
	body := `{"name": "x", "entrypoint": "e"}`
	for _, c := range []struct {
		name, ct string
		code     int
	}{
		{"json", "application/json", 201},
		{"json with charset", "application/json; charset=utf-8", 201},
		{"no content type", "", 201},
		{"plain text", "text/plain", 415},
		{"form", "application/x-www-form-urlencoded", 415},
		{"malformed", "application/", 415},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", h.srv.URL+"/api/v1/jobs", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+h.admin)
			if c.ct != "" {
				req.Header.Set("Content-Type", c.ct)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.code {
				t.Fatalf("status %d, want %d", resp.StatusCode, c.code)
			}
		})
	}
}

// TestOwnerKillsAfterLosingRole: a job's owner who lost her role in its
// project may still kill it (as Slurm's scancel of one's own job), but
// not change its priority; another member still may not kill it.
func TestOwnerKillsAfterLosingRole(t *testing.T) {
	h := newHarness(t)
	ann := h.as("ann", "default=member")
	bob := h.as("bob", "default=member")
	var reply api.SubmitReply
	if code := h.doAs(ann, "POST", "/api/v1/jobs", jobSpec("mine", 1, ""), &reply); code != 201 {
		t.Fatalf("submit: %d", code)
	}
	if code := h.do("PATCH", "/api/v1/users/ann", map[string]any{"roles": map[string]string{"default": ""}}, nil); code != 200 {
		t.Fatalf("take ann's role: %d", code)
	}
	path := "/api/v1/jobs/" + strconv.FormatInt(reply.ID, 10)
	var e api.Error
	if code := h.doAs(ann, "PATCH", path, map[string]any{"priority": 5}, &e); code != 403 || !strings.Contains(e.Error, "member role") {
		t.Errorf("ann changing her job after losing the role: %d %q, want 403 naming the member role", code, e.Error)
	}
	if code := h.doAs(bob, "POST", path+"/kill", nil, &e); code != 403 || !strings.Contains(e.Error, "lead role") {
		t.Errorf("bob killing ann's job: %d %q, want 403 naming the lead role", code, e.Error)
	}
	if code := h.doAs(ann, "POST", path+"/kill", nil, nil); code != 200 {
		t.Fatalf("ann killing her job after losing the role: %d, want 200", code)
	}
	if j := h.job(reply.ID); j.State != "killed" {
		t.Errorf("job %s, want killed", j.State)
	}
}

// TestCutShortRequestIs503: a request whose context ended before the
// master finished it (the client's timeout, the master stopping) is
// answered 503 with Retry-After, not "internal error", whatever wraps the
// context's error; other errors stay 500.
func TestCutShortRequestIs503(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"canceled", fmt.Errorf("store logs: store transaction: begin: %w", context.Canceled), http.StatusServiceUnavailable},
		{"deadline", fmt.Errorf("read: %w", context.DeadlineExceeded), http.StatusServiceUnavailable},
		{"another error", errors.New("disk on fire"), http.StatusInternalServerError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			server{h.m}.fail(w, c.err)
			if w.Code != c.want {
				t.Fatalf("answer %d %s, want %d", w.Code, w.Body.String(), c.want)
			}
			if c.want == http.StatusServiceUnavailable && (w.Header().Get("Retry-After") == "" || strings.Contains(w.Body.String(), "internal error")) {
				t.Fatalf("503 without Retry-After, or saying internal error: %v %s", w.Header(), w.Body.String())
			}
		})
	}
}

// TestClientClosedIsLogged499: a request cut short because its client
// hung up is logged at info with nginx's 499 "client closed request",
// not as an error with the 503 nobody read; one cut short by the master
// stopping, and a real failure, stay errors.
func TestClientClosedIsLogged499(t *testing.T) {
	cases := []struct {
		name     string
		stopping bool
		err      error
		want     string
	}{
		{"the client hung up", false, fmt.Errorf("list attempts: %w", context.Canceled),
			`level=INFO msg="http request" method=GET path=/api/v1/jobs/22 status=499 note="client closed request"`},
		{"the master is stopping", true, fmt.Errorf("list attempts: %w", context.Canceled),
			`level=ERROR msg="http request" method=GET path=/api/v1/jobs/22 status=503`},
		{"a failure, the client gone too", false, nil,
			`level=ERROR msg="http request" method=GET path=/api/v1/jobs/22 status=500`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf strings.Builder
			m := &Master{log: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))}
			run, stop := context.WithCancel(context.Background())
			m.running.Store(&run)
			ctx, hangUp := context.WithCancel(run)
			s := server{m}
			h := s.logRequests(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if c.stopping {
					stop()
				}
				hangUp() // a stop cancels every request too
				if c.err == nil {
					writeError(w, http.StatusInternalServerError, "", "internal error")
					return
				}
				s.fail(w, c.err)
			}))
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequestWithContext(ctx, "GET", "/api/v1/jobs/22", nil))
			stop()
			if !strings.Contains(buf.String(), c.want) {
				t.Fatalf("log:\n%s\nwant a line with %s", buf.String(), c.want)
			}
		})
	}
}

// TestClientClosedIsAudited499: the audit entry of a change whose client
// hung up before its 503 is written with status 499, not as a 503.
func TestClientClosedIsAudited499(t *testing.T) {
	h := newHarness(t)
	ctx, hangUp := context.WithCancel(context.Background())
	mw := h.m.access.audit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hangUp()
		server{h.m}.fail(w, fmt.Errorf("kill: %w", context.Canceled))
	}))
	mw.ServeHTTP(httptest.NewRecorder(), httptest.NewRequestWithContext(ctx, "POST", "/api/v1/jobs/5/kill", nil))
	if e := h.newestAudit("POST /api/v1/jobs/5/kill"); e.Status != statusClientClosed {
		t.Fatalf("audit entry %+v, want status 499", e)
	}
}
