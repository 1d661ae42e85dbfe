package sim

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestRevsChangeNothing replays the traces under every preset with the
// snapshot entries' Revs (sched.Job.Rev, given by revise) and without,
// and compares the results byte for byte: a change to an entry that did
// not give it a new Rev would let the core keep a stale answer.
func TestRevsChangeNothing(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "traces", "*.swf"))
	if len(files) == 0 {
		t.Fatal("no traces")
	}
	// A real trace where the repository's shared data is checked out
	// beside it (not in every worktree).
	if f := filepath.Join("..", "..", "shared", "traces", "hpc2n-subset.swf.gz"); fileExists(f) {
		files = append(files, f)
	}
	for _, f := range files {
		for _, policy := range []string{"fcfs", "easy", "conservative", "fair_share", "priority"} {
			t.Run(filepath.Base(f)+"/"+policy, func(t *testing.T) {
				var out [2][]byte
				for i, off := range []bool{false, true} {
					w, err := LoadWorkload(f, WorkloadOptions{})
					if err != nil {
						t.Fatal(err)
					}
					set, _ := Preset(policy)
					rp, err := w.Open(set)
					if err != nil {
						t.Fatal(err)
					}
					res, err := Run(rp.Input, Options{Until: -1, Timeline: true, noRevs: off})
					rp.Close()
					if err != nil {
						t.Fatal(err)
					}
					if out[i], err = json.Marshal(res); err != nil {
						t.Fatal(err)
					}
				}
				if !bytes.Equal(out[0], out[1]) {
					t.Errorf("results differ without Revs:\n%s\n%s", out[0], out[1])
				}
			})
		}
	}
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}
