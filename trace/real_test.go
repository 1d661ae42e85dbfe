package trace

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// sharedTraces is where CI provides the real traces; they are not copied
// into the repository.
var sharedTraces = filepath.Join("..", "..", "shared", "traces")

// realTraces are the counts observed on the shared traces. records is
// every data line of the file; jobs + skipped must add up to it.
var realTraces = []struct {
	file     string
	records  int
	jobs     int
	skipped  []Skipped
	maxProcs int
	maxNodes int
	start    int64
}{
	{
		// 5,671 records were cancelled before they started (run time -1,
		// most also without an allocation); 10 ran for 0 s.
		file: "SDSC-SP2-1998-4.2-cln.swf.gz", records: 59715, jobs: 54034,
		skipped:  []Skipped{{SkipNoRun, 5671, 57}, {SkipZeroRun, 10, 20770}},
		maxProcs: 128, maxNodes: 128, start: 893466664,
	},
	{
		// The README's 25 records with run time or processors -1 all have
		// run time -1 and processors set. The file ends with a blank line.
		file: "hpc2n-subset.swf.gz", records: 3170, jobs: 3145,
		skipped:  []Skipped{{SkipNoRun, 25, 34}},
		maxProcs: 240, maxNodes: 240, start: 1027839845,
	},
	{
		// Synthetic: no MaxProcs or UnixStartTime in its header.
		file: "lublin_256.swf.gz", records: 10000, jobs: 10000,
		maxNodes: 256,
	},
	{
		file: "NASA-iPSC-1993-3.1-cln.swf.gz", records: 18239, jobs: 18066,
		skipped:  []Skipped{{SkipZeroRun, 173, 248}},
		maxProcs: 128, maxNodes: 128, start: 749458803,
	},
}

// TestRealTraces reads every shared trace to the end. It fails rather
// than skips when the traces are missing, so that CI cannot pass without
// exercising the reader on real data.
func TestRealTraces(t *testing.T) {
	entries, err := os.ReadDir(sharedTraces)
	if err != nil {
		t.Fatalf("the shared traces are missing: %v", err)
	}
	known := map[string]bool{"README.md": true}
	for _, tt := range realTraces {
		known[tt.file] = true
	}
	for _, e := range entries {
		if !known[e.Name()] {
			t.Errorf("%s has no expected counts in realTraces; add them", e.Name())
		}
	}
	for _, tt := range realTraces {
		t.Run(tt.file, func(t *testing.T) {
			r, c, err := Open(filepath.Join(sharedTraces, tt.file), "")
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			h := r.Header()
			if h.MaxProcs != tt.maxProcs || h.MaxNodes != tt.maxNodes || h.UnixStartTime != tt.start {
				t.Errorf("header MaxProcs %d, MaxNodes %d, UnixStartTime %d; want %d, %d, %d",
					h.MaxProcs, h.MaxNodes, h.UnixStartTime, tt.maxProcs, tt.maxNodes, tt.start)
			}
			n, prev := 0, int64(-1)
			for {
				j, err := r.Next()
				if err != nil {
					if err != io.EOF {
						t.Fatal(err)
					}
					break
				}
				if j.Submit < prev || j.Run <= 0 || j.Slots <= 0 || j.ID == "" {
					t.Fatalf("job breaks an invariant: %+v (previous submit %d)", j, prev)
				}
				prev = j.Submit
				n++
			}
			skipped := r.Skipped()
			if n != tt.jobs || !reflect.DeepEqual(skipped, tt.skipped) {
				t.Errorf("%d jobs, skipped %+v; want %d, %+v", n, skipped, tt.jobs, tt.skipped)
			}
			total := n
			for _, s := range skipped {
				total += s.Count
			}
			if total != tt.records {
				t.Errorf("jobs + skipped = %d, want the %d records of the file", total, tt.records)
			}
		})
	}
}
