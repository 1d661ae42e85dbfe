package master

import (
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/allot-sched/allot/version"
)

// VersionHeader names the master's build on every response.
const VersionHeader = "X-Allot-Version"

// Health is /healthz's answer to a client that asks for JSON.
type Health struct {
	Status  string `json:"status"` // "ok"
	Version string `json:"version"`
}

// writeHealthy answers a healthy /healthz: "ok" as plain text, which
// probes and scripts already match, or, for a client that accepts
// application/json, a Health object with the master's version.
func writeHealthy(w http.ResponseWriter, r *http.Request) {
	if acceptsJSON(r) {
		writeJSON(w, http.StatusOK, Health{Status: "ok", Version: version.String()})
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "ok\n")
}

// acceptsJSON reports whether the Accept header lists application/json.
func acceptsJSON(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == "application/json" {
			return true
		}
	}
	return false
}
