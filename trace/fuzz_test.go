package trace

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

// checkStream drains r and checks what every Reader promises: jobs obey
// the invariants, and every error but io.EOF names the file.
func checkStream(t *testing.T, r Reader, name string) {
	prev := int64(-1 << 63)
	for range 1 << 20 { // a bound, so that a reader stuck returning jobs fails instead of hanging
		j, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if j.Submit < prev || j.Run <= 0 || j.Slots <= 0 || j.Line <= 0 {
			t.Fatalf("job breaks an invariant: %+v (previous submit %d)", j, prev)
		}
		prev = j.Submit
	}
	t.Fatal("Next never ended")
}

func addFile(f *testing.F, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
}

func FuzzSWF(f *testing.F) {
	addFile(f, "testdata/excerpt.swf")
	addFile(f, "testdata/excerpt.swf.gz")
	f.Add([]byte("; MaxProcs: 4\n; Note: a\n;   b\n1 0 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"))
	f.Add([]byte("1 0 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1\n"))
	f.Add([]byte("1 5 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n2 4 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz.swf"
		r, err := NewSWF(bytes.NewReader(data), name)
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		r.Header()
		checkStream(t, r, name)
		r.Skipped()
	})
}

func FuzzCSV(f *testing.F) {
	addFile(f, "testdata/excerpt.csv")
	f.Add([]byte(csvHead + "a,u,p,10,1,,5,\nb,u,p,11,0,1,5,3\n"))
	f.Add([]byte(csvHead + "a,u,p,2020-04-01T00:00:00Z,1,,5,\nb,u,p,2020-04-01 00:00:00,1,1,5,3\n"))
	f.Add([]byte("submit,gpus,duration,job_id,user,project,nodes\n\"1\",2,3,\"x\"\"\",u,p,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz.csv"
		r, err := NewCSV(bytes.NewReader(data), name)
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		r.Header()
		checkStream(t, r, name)
		r.Skipped()
	})
}
