package master

import (
	"reflect"
	"slices"
	"strings"

	"github.com/allot-sched/allot/yamlfield"
)

// Hints the API adds to its refusals of requests a client got almost
// right: a misspelt field, a method the path does not take.

// unknownFieldHint is `; did you mean "priority"?` for an unknown JSON
// field name that is a likely typo of a field of v (a request body, as
// decodeStrict decodes it), as job files and --set say it; else "".
func unknownFieldHint(name string, v any) string {
	return yamlfield.Suggest(name, jsonFieldNames(reflect.TypeOf(v), nil, 0))
}

// jsonFieldNames lists the JSON names of t's fields and of those of the
// structs it holds, each once: encoding/json names an unknown field
// without its path, so any of them may be the one meant.
func jsonFieldNames(t reflect.Type, names []string, depth int) []string {
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct || depth > 4 {
		return names
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			names = jsonFieldNames(f.Type, names, depth+1)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
		names = jsonFieldNames(f.Type, names, depth+1)
	}
	return names
}

// methodHints point a request whose method its path does not take at
// the endpoint that does what it likely meant: DELETE of a job (the
// REST habit) is its kill.
var methodHints = []struct{ method, path, hint string }{
	{"DELETE", "/jobs/{id}", "to kill the job, POST %s/kill"},
}

// methodHint is the hint for method on path (under api.Version, the
// request's path in full for the message), or "".
func methodHint(method, path, full string) string {
	for _, h := range methodHints {
		if h.method == method && pathMatches(h.path, path) {
			return "; " + strings.Replace(h.hint, "%s", full, 1)
		}
	}
	return ""
}
