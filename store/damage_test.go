package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sched/allot/store"
)

func TestOpenRefusesDamagedSQLite(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		damage func(t *testing.T, path string)
		want   string
	}{
		{"zero-length file", func(t *testing.T, path string) {
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "is empty (0 bytes)"},
		{"not a database", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte(strings.Repeat("not sqlite ", 500)), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "the database is damaged"},
		{"damaged pages", func(t *testing.T, path string) {
			s, err := store.Open(ctx, "", filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			for i := range 200 {
				job := store.Job{Name: strings.Repeat("x", 200), Kind: store.KindCommand, Pool: "p", Project: "q",
					Slots: 1, Entrypoint: "e", Priority: 50, PriorityClass: "NORMAL", Weight: 1}
				if _, err := s.CreateJob(ctx, job, []store.Task{{}}); err != nil {
					t.Fatalf("job %d: %v", i, err)
				}
			}
			s.Close()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for off := 4096 * 2; off+4096 <= len(data); off += 4096 {
				copy(data[off+100:off+400], strings.Repeat("\xff", 300))
			}
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "the database is damaged"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, store.DefaultSQLiteFile)
			c.damage(t, path)
			s, err := store.Open(ctx, "", dir)
			if err == nil {
				s.Close()
				t.Fatal("the damaged database was opened")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q, want it to name %s and say %q", err, path, c.want)
			}
			if c.name == "zero-length file" && !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
		})
	}
	t.Run("missing file starts a new database", func(t *testing.T) {
		s, err := store.Open(ctx, "", t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	})
}
