package cli

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestJobsWatch: allot jobs --watch prints the queue, prints it again
// after a change (and not while nothing changes), and ends cleanly when
// its context ends, as on Ctrl-C.
func TestJobsWatch(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	root := New()
	var out, errOut syncBuffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs([]string{"--master", f.srv.URL, "jobs", "--watch", "--interval", "100ms"})
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	waitFor(t, "the first listing", func() bool { return out.String() == queueTable })
	waitFor(t, "a few more polls", func() bool { return countRequests(f, "GET /api/v1/jobs") >= 3 })
	if out.String() != queueTable {
		t.Fatalf("an unchanged queue was printed again:\n%s", out.String())
	}
	resp, err := http.Post(f.srv.URL+"/api/v1/jobs/6/kill", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	second := strings.Join(strings.Split(queueTable, "\n")[:3], "\n") + "\n"
	waitFor(t, "the changed listing", func() bool { return out.String() == queueTable+"\n"+second })
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the watch ended with %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch did not end when its context did")
	}
	if errOut.String() != "" {
		t.Errorf("stderr: %s", errOut.String())
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func countRequests(f *fakeMaster, prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}
