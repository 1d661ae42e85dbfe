package scenario

import (
	"slices"
	"strings"
	"testing"
)

// TestJobsMappingOneError: a job written without its "- " gets one error,
// not one for the missing trace and one per field (nor, since the job
// names are then unknown, one per event naming a job).
func TestJobsMappingOneError(t *testing.T) {
	const want = "bad.yaml:10: jobs: expected a list of jobs (- name: ...) or a mapping {trace: FILE, format: ...}"
	tests := []struct {
		name, src string
	}{
		{"block", pools + "jobs:\n  name: a\n  slots: 2\n  duration: 1h\n"},
		{"with events", pools + "jobs:\n  name: a\n  slots: 2\nevents:\n  - {at: 1h, kill: a}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.yaml", []byte(tt.src))
			if err == nil || err.Error() != want {
				t.Errorf("error:\n%v\nwant exactly:\n%s", err, want)
			}
		})
	}
}

// TestJobKeys: jobKeys, by which a jobs mapping is told to be a job, are
// the fields a job has: those its unknown-field hint lists.
func TestJobKeys(t *testing.T) {
	_, err := Parse("bad.yaml", []byte(pools+"jobs:\n  - {name: a, zzzzzzzz: 1}\n"))
	if err == nil {
		t.Fatal("an unknown job field was accepted")
	}
	_, hint, ok := strings.Cut(err.Error(), "(known fields: ")
	hint, _, _ = strings.Cut(hint, ")")
	if got := strings.Split(hint, ", "); !ok || !slices.Equal(got, jobKeys) {
		t.Errorf("a job's known fields are %q, jobKeys %q", got, jobKeys)
	}
}
