package lockfile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestAcquire(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, path string) // before the Acquire under test
		held    bool
		wantPID int
	}{
		{"free", func(*testing.T, string) {}, false, 0},
		{"left by a dead holder", func(t *testing.T, path string) {
			os.WriteFile(path, []byte("999999\n"), 0o644)
		}, false, 0},
		{"held", func(t *testing.T, path string) {
			l, err := Acquire(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(l.Release)
		}, true, os.Getpid()},
		{"held then released", func(t *testing.T, path string) {
			l, err := Acquire(path)
			if err != nil {
				t.Fatal(err)
			}
			l.Release()
		}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "allot.lock")
			tt.setup(t, path)
			l, err := Acquire(path)
			var he *HeldError
			if tt.held {
				if !errors.As(err, &he) || he.PID != tt.wantPID || he.Path != path {
					t.Fatalf("err = %v, want a HeldError naming pid %d", err, tt.wantPID)
				}
				if want := path + " is locked by process " + strconv.Itoa(tt.wantPID); err.Error() != want {
					t.Errorf("message %q, want %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
			data, _ := os.ReadFile(path)
			if string(data) != strconv.Itoa(os.Getpid())+"\n" {
				t.Errorf("lock file holds %q, want this pid", data)
			}
		})
	}
}
