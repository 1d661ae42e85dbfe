package master

import (
	"mime"
	"net/http"
	"strings"
)

// VersionHeader names the master's build on every response.
const VersionHeader = "X-Allot-Version"

// Health is the answer of /healthz and /readyz to a client that asks for
// JSON.
type Health struct {
	Status  string      `json:"status"` // "ok", or "unavailable" while the store fails
	Version string      `json:"version"`
	Ready   bool        `json:"ready"`
	Store   StoreStatus `json:"store"`
	// Scheduler says, while the scheduling passes fail, since when and
	// why (passHealth); left out while they succeed, so that a healthy
	// master answers as before.
	Scheduler PassStatus `json:"scheduler,omitzero"`
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
