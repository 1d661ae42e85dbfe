package cli

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sched/allot/store"
)

// TestAdminTokenFileReminder: the first start writes the first admin's
// token file; a later start warns while the file is still there, and is
// quiet once it is deleted, as security.md asks the admin to do.
func TestAdminTokenFileReminder(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(context.Background(), "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	path := filepath.Join(dir, AdminTokenFile)
	cases := []struct {
		name   string
		before func()
		want   string // in the log; "" for nothing
	}{
		{"first start", func() {}, "created the first admin"},
		{"restart with the file", func() {}, "the first admin's token file is still in the data directory"},
		{"restart without it", func() {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.before()
			var log bytes.Buffer
			if err := bootstrapAdmin(context.Background(), st, dir, "http://m:8080", slog.New(slog.NewTextHandler(&log, nil))); err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want == "" && log.Len() != 0:
				t.Fatalf("log %q, want nothing", log.String())
			case tc.want != "" && !strings.Contains(log.String(), tc.want):
				t.Fatalf("log %q, want %q", log.String(), tc.want)
			}
		})
	}
}
