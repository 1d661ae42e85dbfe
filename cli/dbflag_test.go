package cli

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckDB: --db takes what the store opens (sqlite://, postgres://,
// postgresql://, or nothing); anything else is a usage error (exit 2)
// naming the flag and the forms it takes, without repeating a password.
func TestCheckDB(t *testing.T) {
	cases := []struct {
		name, db string
		want     string // "" accepted
	}{
		{"default", "", ""},
		{"sqlite default file", "sqlite://", ""},
		{"sqlite path", "sqlite:///var/lib/allot/allot.db?synchronous=normal", ""},
		{"postgres", "postgres://allot:pw@db/allot", ""},
		{"postgresql", "postgresql://db/allot", ""},
		{"mysql", "mysql://x", `--db "mysql://x": not a database allot can use: expected sqlite://PATH`},
		{"mysql with a password", "mysql://u:secret@db/x", `--db "mysql://u:xxxxx@db/x"`},
		{"a bare file", "allot.db", `--db "allot.db": not a database allot can use`},
		{"forms named", "pg://x", "postgres://USER[:PASSWORD]@HOST[:PORT]/DB"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := checkDB("--db", tc.db)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("%q refused: %v", tc.db, err)
				}
				return
			}
			var ue *usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%q: %v, want a usage error with %q", tc.db, err, tc.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("the error repeats the password: %v", err)
			}
		})
	}
}
