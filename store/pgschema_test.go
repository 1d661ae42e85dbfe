package store

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/allot-sched/allot/store/pgtest"
)

// TestMissingSchemaSaysSo: a DSN whose search_path names no schema that
// exists is refused at Open with what to do, naming the search_path,
// instead of PostgreSQL's "no schema has been selected to create in".
func TestMissingSchemaSaysSo(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, searchPath string
		says             []string // "" when Open must succeed
	}{
		{"the test's schema", u.Query().Get("search_path"), nil},
		{"a missing schema", "nosuch_schema", []string{`search_path "nosuch_schema" names no schema`,
			"CREATE SCHEMA nosuch_schema", "fix search_path in the DSN"}},
		{"several, none there", "nosuch_a,nosuch_b", []string{`search_path "nosuch_a,nosuch_b"`, "CREATE SCHEMA ..."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := *u
			q := v.Query()
			q.Set("search_path", c.searchPath)
			v.RawQuery = q.Encode()
			s, err := Open(ctx, v.String(), "")
			if err == nil {
				s.Close()
			}
			if c.says == nil {
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("open succeeded, want a refusal")
			}
			for _, want := range c.says {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}
