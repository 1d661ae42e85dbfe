package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMasterFlagErrors(t *testing.T) {
	dir := t.TempDir()
	busy := t.TempDir()
	held, err := lockDataDir(busy)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	tests := []struct {
		name string
		f    masterFlags
		want string
	}{
		{"no data directory", masterFlags{listen: "127.0.0.1:0", logLevel: "info"}, "--data"},
		{"bad log level", masterFlags{data: dir, listen: "127.0.0.1:0", logLevel: "loud"}, "--log-level"},
		{"missing config file", masterFlags{data: dir, listen: "127.0.0.1:0", logLevel: "info",
			config: filepath.Join(dir, "none.yaml")}, "--config"},
		{"bad database URL", masterFlags{data: dir, listen: "127.0.0.1:0", logLevel: "info", db: "mysql://x"}, "neither sqlite"},
		{"bad listen address", masterFlags{data: dir, listen: "nowhere:-1", logLevel: "info"}, "--listen"},
		{"relative checkpoint root", masterFlags{data: dir, listen: "127.0.0.1:0", logLevel: "info", ckpt: "ckpt"},
			"--checkpoint-root: expected an absolute path"},
		{"data directory in use", masterFlags{data: busy, listen: "127.0.0.1:0", logLevel: "info"},
			"the data directory is in use by process " + strconv.Itoa(os.Getpid())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err := runMaster(ctx, &bytes.Buffer{}, tt.f)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestMasterStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- runMaster(ctx, logs, masterFlags{data: t.TempDir(), listen: "127.0.0.1:0", logLevel: "info"})
	}()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(logs.String(), "master serving"); {
		if time.Now().After(deadline) {
			t.Fatalf("the master did not start: %s", logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("runMaster: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("runMaster did not stop after its context ended")
	}
	if !strings.Contains(logs.String(), "master stopped") {
		t.Errorf("logs %q do not say the master stopped", logs.String())
	}
}

// lockedBuffer is a bytes.Buffer safe for a writer and a reader at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
