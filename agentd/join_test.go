package agentd

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestJoinAndCredential: the first registration presents the join token,
// the agent keeps the credential the master issues (0600) and presents it
// from then on; a refused first registration ends Run with the reason.
func TestJoinAndCredential(t *testing.T) {
	var mu sync.Mutex
	var auths []string
	refuse := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.URL.Path+" "+r.Header.Get("Authorization"))
		refusing := refuse
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case refusing:
			w.WriteHeader(http.StatusUnprocessableEntity)
			json.NewEncoder(w).Encode(api.Error{Error: "gpus: too many", Field: "gpus"})
		case strings.HasSuffix(r.URL.Path, "/register"):
			json.NewEncoder(w).Encode(api.RegisterReply{SyncWaitS: 0, Credential: "allot_n_secret"})
		default:
			json.NewEncoder(w).Encode(api.SyncReply{})
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(t, &fakeMaster{srv: srv}, dir)
	cfg.JoinToken = "allot_j_join"
	r := startAgent(t, cfg)
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		n := len(auths)
		mu.Unlock()
		if n >= 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := r.stop(t); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := append([]string(nil), auths...)
	mu.Unlock()
	if len(got) < 2 || got[0] != "/api/v1/agents/register Bearer allot_j_join" ||
		!strings.HasSuffix(got[1], "Bearer allot_n_secret") {
		t.Fatalf("requests %q: want the join token first, then the node credential", got)
	}
	st, err := os.Stat(filepath.Join(dir, CredentialFileName))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("credential file: %v, %v", st, err)
	}

	// A fresh node whose join is refused stops with the master's reason,
	// after one request: a node the master never knew, which runs and
	// reports nothing, has no goodbye to send (a second registration
	// saying it leaves was logged and audited as a second refusal).
	mu.Lock()
	refuse = true
	auths = nil
	mu.Unlock()
	cfg2 := testConfig(t, &fakeMaster{srv: srv}, t.TempDir())
	cfg2.JoinToken = "allot_j_join"
	a, err := New(cfg2)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = a.Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "refused to register node node-1") || !strings.Contains(err.Error(), "too many") {
		t.Fatalf("Run = %v, want the refusal", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auths) != 1 {
		t.Fatalf("requests %q after a refused join, want the one registration", auths)
	}
}
