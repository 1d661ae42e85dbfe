package fieldtest

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/allot-sched/allot/yamlfield"
)

// Case is one bad input and what its first error must say.
type Case struct {
	Name string
	Src  string
	Line int    // of the first error; 0 for whole-file errors
	Want string // substring of the first error's message
}

// Run parses each case's source as the file "bad.yaml" and checks the
// error, in a subtest named after the case.
func Run[T any](t *testing.T, parse func(name string, data []byte) (T, error), cases []Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			v, err := parse("bad.yaml", []byte(tc.Src))
			if err == nil {
				t.Fatalf("parse succeeded with %+v, want an error containing %q", v, tc.Want)
			}
			if rv := reflect.ValueOf(v); rv.IsValid() && !rv.IsZero() {
				t.Errorf("parse returned %+v along with error %v", v, err)
			}
			var first *yamlfield.Error
			if !errors.As(err, &first) {
				t.Fatalf("error %v (%T) holds no *yamlfield.Error", err, err)
			}
			if first.Line != tc.Line {
				t.Errorf("line = %d, want %d; error:\n%v", first.Line, tc.Line, err)
			}
			if !strings.Contains(first.Error(), tc.Want) {
				t.Errorf("first error does not contain %q; error:\n%v", tc.Want, err)
			}
			if !strings.HasPrefix(err.Error(), "bad.yaml") {
				t.Errorf("error does not start with the file name: %v", err)
			}
		})
	}
}
