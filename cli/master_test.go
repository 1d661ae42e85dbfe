package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMasterFlagErrors(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	dir := t.TempDir()
	busy := t.TempDir()
	held, err := lockDataDir(busy)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	// A dev cluster's locks, as allot dev takes them: its data directory
	// and its database, DATA/allot.db.
	dev := t.TempDir()
	release, err := lockData("", dev)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	// A data directory made before the start: a refused start leaves
	// no lock file in it either.
	existing := t.TempDir()
	// A zero-length database file, which the store refuses to open.
	emptyDB := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(emptyDB, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    masterFlags
		want string
		// fresh: the data directory must not exist yet, and the refused
		// start must not make it.
		fresh bool
	}{
		{"no data directory", masterFlags{listen: "127.0.0.1:0", logLevel: "info"}, "--data", false},
		{"bad log level", masterFlags{data: dir, listen: "127.0.0.1:0", logLevel: "loud"}, "--log-level", false},
		{"missing config file", masterFlags{data: dir, listen: "127.0.0.1:0", logLevel: "info",
			config: filepath.Join(dir, "none.yaml")}, "--config", false},
		{"bad database URL", masterFlags{data: dir, listen: "127.0.0.1:0", logLevel: "info", db: "mysql://x"}, `--db "mysql://x": not a database allot can use: expected sqlite://PATH`, false},
		{"bad listen address", masterFlags{data: dir, listen: "nowhere:-1", logLevel: "info"}, "--listen", false},
		{"address in use", masterFlags{data: filepath.Join(dir, "new"), listen: taken.Addr().String(), logLevel: "info"},
			"--listen " + taken.Addr().String() + ": the address is in use (another allot dev or master?)", true},
		{"relative checkpoint root", masterFlags{data: dir, listen: "127.0.0.1:0", logLevel: "info", ckpt: "ckpt"},
			"--checkpoint-root: expected an absolute path", false},
		{"data directory in use", masterFlags{data: busy, listen: "127.0.0.1:0", logLevel: "info"},
			"the data directory is in use by process " + strconv.Itoa(os.Getpid()), false},
		{"a dev cluster's database through another data directory", masterFlags{data: filepath.Join(dir, "other"),
			listen: "127.0.0.1:0", logLevel: "info", db: "sqlite://" + filepath.Join(dev, "allot.db")},
			"the SQLite database " + filepath.Join(dev, "allot.db") + " is in use by process " + strconv.Itoa(os.Getpid()), true},
		{"a database that cannot be opened", masterFlags{data: filepath.Join(dir, "other2"), listen: "127.0.0.1:0",
			logLevel: "info", db: "sqlite://" + emptyDB}, "empty", true},
		{"a locked database through an existing empty data directory", masterFlags{data: existing,
			listen: "127.0.0.1:0", logLevel: "info", db: "sqlite://" + filepath.Join(dev, "allot.db")},
			"is in use by process", false},
		{"an unopenable database through an existing empty data directory", masterFlags{data: existing,
			listen: "127.0.0.1:0", logLevel: "info", db: "sqlite://" + emptyDB}, "empty", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var logs bytes.Buffer
			err := runMaster(ctx, &logs, tt.f)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tt.want)
			}
			if _, serr := os.Stat(tt.f.data); tt.fresh && serr == nil {
				t.Errorf("the refused start made its data directory %s; logs:\n%s", tt.f.data, logs.String())
			}
			if tt.f.data == existing {
				if ents, _ := os.ReadDir(existing); len(ents) != 0 {
					t.Errorf("the refused start left %v in the data directory %s", ents, existing)
				}
			}
		})
	}
}

func TestMasterStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &lockedBuffer{}
	done := make(chan error, 1)
	data := t.TempDir()
	go func() {
		done <- runMaster(ctx, logs, masterFlags{data: data, listen: "127.0.0.1:0", logLevel: "info"})
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
	// The serving line names the database, so that an operator sees
	// which one a master uses (PostgreSQL's URL with its password hidden).
	if want := `store="sqlite ` + filepath.Join(data, "allot.db") + `"`; !strings.Contains(logs.String(), want) {
		t.Errorf("logs %q do not name the store (%s)", logs.String(), want)
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
