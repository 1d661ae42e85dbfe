package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/allot-sched/allot/version"
)

// get serves one request through Handler.
func get(t *testing.T, method, path string, hdr map[string]string) *http.Response {
	t.Helper()
	r := httptest.NewRequest(method, path, nil)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	Handler().ServeHTTP(w, r)
	return w.Result()
}

func body(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return string(b)
}

// assetDir returns the versioned asset directory the page loads its
// script from, e.g. /assets/0123456789ab/.
func assetDir(t *testing.T) string {
	t.Helper()
	page := body(t, get(t, "GET", "/", nil))
	m := regexp.MustCompile(`src="(assets/[0-9a-f]{12}/)app\.js"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("index.html does not load app.js from a versioned assets/ path:\n%s", page)
	}
	return "/" + m[1]
}

func TestHandlerServesPageAndAssets(t *testing.T) {
	cases := []struct {
		name, path, typ, cache, contains string
	}{
		{"root", "/", "text/html; charset=utf-8", "no-cache", "<title>Allot</title>"},
		{"index.html", "/index.html", "text/html; charset=utf-8", "no-cache", `<main id="main"`},
		{"script", "app.js", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", "hashchange"},
		{"module", "job.js", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", "export function mount"},
		{"style", "style.css", "text/css; charset=utf-8", "public, max-age=31536000, immutable", ".gpu.held"},
		{"icon", "favicon.svg", "image/svg+xml", "public, max-age=31536000, immutable", "<svg"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.path
			if !strings.HasPrefix(path, "/") {
				path = assetDir(t) + path
			}
			res := get(t, "GET", path, nil)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("GET %s = %d", path, res.StatusCode)
			}
			for k, want := range map[string]string{
				"Content-Type":           c.typ,
				"Cache-Control":          c.cache,
				"X-Content-Type-Options": "nosniff",
				"X-Frame-Options":        "DENY",
			} {
				if got := res.Header.Get(k); got != want {
					t.Errorf("GET %s: %s = %q, want %q", path, k, got, want)
				}
			}
			if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "connect-src 'self'") {
				t.Errorf("GET %s: Content-Security-Policy = %q, want scripts and connections limited to the origin", path, csp)
			}
			if b := body(t, res); !strings.Contains(b, c.contains) {
				t.Errorf("GET %s: body lacks %q", path, c.contains)
			}
		})
	}
}

func TestHandlerPageRevalidatesWithETag(t *testing.T) {
	first := get(t, "GET", "/", nil)
	etag := first.Header.Get("ETag")
	if etag == "" {
		t.Fatal("index.html has no ETag")
	}
	again := get(t, "GET", "/", map[string]string{"If-None-Match": etag})
	if again.StatusCode != http.StatusNotModified {
		t.Errorf("GET / with If-None-Match %s = %d, want 304", etag, again.StatusCode)
	}
	page := body(t, first)
	if strings.Contains(page, assetsToken) {
		t.Errorf("index.html still holds the %s placeholder", assetsToken)
	}
	if want := `<span id="version">` + version.String() + `</span>`; !strings.Contains(page, want) {
		t.Errorf("the footer does not name the version: want %s in\n%s", want, page)
	}
}

func TestHandlerRefuses(t *testing.T) {
	cases := []struct {
		name, method, path string
		status             int
	}{
		{"unknown path", "GET", "/nope", http.StatusNotFound},
		{"unknown asset", "GET", "ASSET:nope.js", http.StatusNotFound},
		{"asset of another version", "GET", "/assets/000000000000/app.js", http.StatusNotFound},
		{"asset without version", "GET", "/assets/app.js", http.StatusNotFound},
		{"asset directory", "GET", "ASSET:", http.StatusNotFound},
		{"dot-dot", "GET", "/assets/../index.html", http.StatusNotFound},
		{"api path", "GET", "/api/v1/jobs", http.StatusNotFound},
		{"post", "POST", "/", http.StatusMethodNotAllowed},
		{"delete asset", "DELETE", "ASSET:app.js", http.StatusMethodNotAllowed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.path
			if name, ok := strings.CutPrefix(path, "ASSET:"); ok {
				path = assetDir(t) + name
			}
			res := get(t, c.method, path, nil)
			if res.StatusCode != c.status {
				t.Errorf("%s %s = %d, want %d", c.method, path, res.StatusCode, c.status)
			}
			if c.status == http.StatusMethodNotAllowed && res.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: Allow = %q, want GET, HEAD", c.method, path, res.Header.Get("Allow"))
			}
		})
	}
}

func TestHandlerHead(t *testing.T) {
	res := get(t, "HEAD", "/", nil)
	if res.StatusCode != http.StatusOK || body(t, res) != "" {
		t.Errorf("HEAD / = %d with a body, want 200 and none", res.StatusCode)
	}
}

func TestVersionFollowsContent(t *testing.T) {
	files := func(js string) fstest.MapFS {
		return fstest.MapFS{
			"static/index.html": {Data: []byte(`<script src="%ASSETS%/app.js"></script>`)},
			"static/app.js":     {Data: []byte(js)},
		}
	}
	a, err := load(files("one"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := load(files("two"))
	if err != nil {
		t.Fatal(err)
	}
	if a.version == b.version {
		t.Errorf("version %s did not change with app.js", a.version)
	}
	if want := `<script src="assets/` + a.version + `/app.js"></script>`; string(a.index) != want {
		t.Errorf("index = %s, want %s", a.index, want)
	}
	if _, err := load(fstest.MapFS{"static/app.js": {Data: []byte("x")}}); err == nil || !strings.Contains(err.Error(), "index.html") {
		t.Errorf("load without index.html: err = %v, want one naming index.html", err)
	}
}
