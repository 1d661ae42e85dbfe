package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/allot-sched/allot/version"
)

//go:embed static
var static embed.FS

// assetsToken is replaced in index.html by the versioned asset directory.
const assetsToken = "%ASSETS%"

// versionToken is replaced in index.html by allot's version, which the
// footer shows, so that a screenshot of a problem says what ran.
const versionToken = "%VERSION%"

// site is the embedded dashboard, read once: the page with its asset URLs
// resolved, and the assets by name.
type site struct {
	version string // of the assets
	etag    string // of the page, which also holds allot's version
	index   []byte
	assets  map[string][]byte
}

// Handler serves the dashboard: the page at / (and /index.html) and its
// assets under /assets/<version>/.
func Handler() http.Handler {
	s, err := load(static)
	if err != nil {
		// The files are compiled into the binary; failing to read them is
		// a build defect, never a runtime condition.
		panic(fmt.Sprintf("web: embedded dashboard is broken: %v", err))
	}
	return s
}

// load reads the files under static/ and fixes the version as a hash of
// all of them, so that any change to any file changes every asset URL.
func load(fsys fs.FS) (*site, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(fsys, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		files[strings.TrimPrefix(p, "static/")] = b
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk embedded files: %w", err)
	}
	index, ok := files["index.html"]
	if !ok {
		return nil, fmt.Errorf("static/index.html is missing")
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	delete(files, "index.html")
	s := &site{version: hex.EncodeToString(h.Sum(nil))[:12], assets: files}
	s.index = bytes.ReplaceAll(index, []byte(assetsToken), []byte("assets/"+s.version))
	s.index = bytes.ReplaceAll(s.index, []byte(versionToken), []byte(html.EscapeString(version.String())))
	// A new build with the same assets still changes the page's footer.
	sum := sha256.Sum256(s.index)
	s.etag = hex.EncodeToString(sum[:])[:12]
	return s, nil
}

// contentSecurityPolicy keeps the page to its own origin: no inline
// script, no foreign host, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Content-Security-Policy", contentSecurityPolicy)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hdr.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: the dashboard is read with GET", http.StatusMethodNotAllowed)
		return
	}
	p := r.URL.Path
	if p == "/" || p == "/index.html" {
		// The page names the current assets, so it must be revalidated
		// every time; the ETag makes that a 304 while nothing changed.
		hdr.Set("Cache-Control", "no-cache")
		hdr.Set("ETag", `"`+s.etag+`"`)
		hdr.Set("Content-Type", "text/html; charset=utf-8")
		http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(s.index))
		return
	}
	name, ok := strings.CutPrefix(p, "/assets/"+s.version+"/")
	body, found := s.assets[name]
	if !ok || !found {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	// The version in the URL changes with the content, so the content
	// under one URL never changes.
	hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
	hdr.Set("Content-Type", contentType(name))
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
}

// contentType fixes the types of the few kinds of file the dashboard has,
// rather than trusting the host's MIME tables: a module script served as
// anything but JavaScript does not run.
func contentType(name string) string {
	switch path.Ext(name) {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".html":
		return "text/html; charset=utf-8"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}
