package trace

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkReadSWF reads the whole SDSC-SP2 trace (59,715 records) from
// memory: "gzip" as shipped, "plain" after decompressing it beforehand,
// which isolates the parsing cost.
func BenchmarkReadSWF(b *testing.B) {
	z, err := os.ReadFile(filepath.Join(sharedTraces, "SDSC-SP2-1998-4.2-cln.swf.gz"))
	if err != nil {
		b.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		b.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	for _, in := range []struct {
		name string
		data []byte
	}{{"gzip", z}, {"plain", plain}} {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(plain)))
			b.ReportAllocs()
			for b.Loop() {
				r, err := NewSWF(bytes.NewReader(in.data), "sp2.swf")
				if err != nil {
					b.Fatal(err)
				}
				if n := countJobs(b, r); n != 54034 {
					b.Fatalf("%d jobs", n)
				}
			}
		})
	}
}

// BenchmarkReadCSV reads a generated GPU trace of 50,000 rows with
// timestamps, the slower of the two submit styles.
func BenchmarkReadCSV(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(csvHead)
	for i := range 50000 {
		ts := time.Unix(1585699207+int64(i)*30, 0).UTC().Format(TimestampLayout)
		fmt.Fprintf(&buf, "job%d,user%d,vc%d,%s,8,1,3600,7200\n", i, i%97, i%13, ts)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewCSV(bytes.NewReader(data), "b.csv")
		if err != nil {
			b.Fatal(err)
		}
		if n := countJobs(b, r); n != 50000 {
			b.Fatalf("%d jobs", n)
		}
	}
}

// countJobs drains r and counts its jobs without keeping them, so that the
// benchmarks measure the reader alone.
func countJobs(b *testing.B, r Reader) int {
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
		n++
	}
}
