package scenario

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestMarshalRoundTrip: every scenario file of the repository, searchers
// included, reads back from Marshal's output to the same values.
func TestMarshalRoundTrip(t *testing.T) {
	var files []string
	for _, pat := range []string{"testdata/*.yaml", "testdata/*/*.yaml", "../testdata/*/*.yaml", "../examples/*.yaml"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	tried, searchers := 0, 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse(file, data)
		if err != nil {
			continue // not a scenario (a config, a trace)
		}
		tried++
		searchers += countSearchers(s)
		t.Run(file, func(t *testing.T) {
			out, err := Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Parse(file, out)
			if err != nil {
				t.Fatalf("Marshal's output does not parse: %v\n%s", err, out)
			}
			clearLines(reflect.ValueOf(s))
			clearLines(reflect.ValueOf(back))
			if !reflect.DeepEqual(s, back) {
				t.Errorf("round trip changed the scenario\n got: %.2000v\nwant: %.2000v\n%.2000s", back, s, out)
			}
		})
	}
	if tried < 10 {
		t.Errorf("only %d scenario files tried", tried)
	}
	if searchers < 3 {
		t.Errorf("only %d jobs with a searcher tried", searchers)
	}
}

func countSearchers(s *Scenario) int {
	n := 0
	for _, j := range s.Jobs {
		if j.Searcher != nil {
			n++
		}
	}
	return n
}

// clearLines zeroes every Line field under v, since a file written again
// has its entries on other lines, and makes empty lists nil, since an
// absent section and an empty one read the same.
func clearLines(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			clearLines(v.Elem())
		}
	case reflect.Slice:
		if v.Len() == 0 && v.CanSet() {
			v.SetZero()
		}
		for i := range v.Len() {
			clearLines(v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if v.Type().Field(i).Name == "Line" && f.CanSet() {
				f.SetInt(0)
				continue
			}
			if f.CanSet() {
				clearLines(f)
			}
		}
	}
}
