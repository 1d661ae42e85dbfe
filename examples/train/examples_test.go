package main

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/allot-sched/allot/jobfile"
)

// TestExampleJobsHyperparameters: every hyperparameter that an example
// job file searches over for this program is one it reads; one it
// ignores makes trials that differ only in it report the same curve.
func TestExampleJobsHyperparameters(t *testing.T) {
	read := map[string]bool{}
	ht := reflect.TypeFor[hparams]()
	for i := range ht.NumField() {
		read[ht.Field(i).Tag.Get("json")] = true
	}
	files, err := filepath.Glob("../jobs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example job files: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			j, err := jobfile.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(j.Entrypoint, "examples/train") {
				t.Skip("does not run examples/train")
			}
			for name := range j.Hyperparameters {
				if !read[name] {
					t.Errorf("hyperparameter %q: examples/train does not read it (it reads %v)", name, read)
				}
			}
		})
	}
}
