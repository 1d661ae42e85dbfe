package trace

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Job is one runnable record of a trace.
type Job struct {
	ID        string // SWF job number (field 1) or CSV job_id, as written in the file
	Submit    int64  // seconds since the trace's time origin; non-decreasing across Next calls
	Run       int64  // actual run time in seconds; always > 0
	Slots     int    // processors (SWF) or GPUs (CSV); always > 0
	Nodes     int    // CSV nodes column; 0 when unknown and always 0 for SWF
	TimeLimit int64  // requested time in seconds; 0 when the trace gives none
	User      string // SWF user id or CSV user; "" when unknown
	Project   string // SWF group id or CSV project (virtual cluster); "" when unknown
	Line      int    // 1-based line of the record in the (decompressed) file
}

// Header is what a trace says about itself before its first record.
// Numeric fields are 0 when the trace does not give them.
type Header struct {
	Version        string   // SWF Version
	Computer       string   // SWF Computer
	Installation   string   // SWF Installation
	MaxJobs        int      // SWF MaxJobs
	MaxRecords     int      // SWF MaxRecords
	MaxNodes       int      // SWF MaxNodes
	MaxProcs       int      // SWF MaxProcs; some traces (Lublin) give only MaxNodes
	UnixStartTime  int64    // Unix time of Submit == 0: SWF UnixStartTime, or SubmitOrigin for CSV timestamps
	TimeZoneString string   // SWF TimeZoneString, e.g. "US/Pacific"
	Notes          []string // SWF Note lines, each with its indented continuation lines joined

	// SubmitOrigin is the raw submit value subtracted from every record's
	// submit time to give Job.Submit: always 0 for SWF (its submit times are
	// already relative), the first row's submit for CSV (in Unix seconds when
	// the file uses timestamps). It is known only once the first row is read,
	// which NewCSV does eagerly.
	SubmitOrigin int64
}

// Skipped counts the records of one kind that were well formed but could
// not be run, so that dropping them is never silent.
type Skipped struct {
	Reason    string // one of the Skip* constants
	Count     int
	FirstLine int
}

// Reasons reported in Skipped. A record is counted under the first reason
// in this order that applies to it.
const (
	SkipNoSubmit = "no submit time" // SWF submit time is -1
	SkipNoSlots  = "no processors"  // SWF allocated and requested processors both <= 0
	SkipNoGPUs   = "no GPUs"        // CSV gpus == 0: a CPU-only job
	SkipNoRun    = "no run time"    // run time < 0 (unknown, e.g. cancelled before start)
	SkipZeroRun  = "zero run time"  // run time == 0
)

// Reader streams the runnable jobs of a trace in file order.
type Reader interface {
	// Header returns what the trace declares about itself; it is complete
	// as soon as the Reader is made.
	Header() Header
	// Next returns the next runnable job, io.EOF after the last one, or an
	// *Error. Errors are sticky: after one, Next keeps returning it.
	Next() (Job, error)
	// Skipped summarises the records skipped so far, one entry per reason,
	// in the order each reason was first met. The slice is a copy.
	Skipped() []Skipped
}

// Error locates a problem in a trace file. Its message has the form
// "NAME:LINE: WHAT: MSG", e.g.
//
//	sp2.swf:12: field 4 (run time): expected an integer, got "abc"
type Error struct {
	File string
	Line int    // 0 when the problem is not on one line
	What string // "field 4 (run time)", "column gpus", or "" for the whole line
	Err  error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.What != "" {
		b.WriteString(e.What)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Open opens a trace file. format is "swf", "csv", or "" to choose by the
// name: .swf, .swf.gz, .csv or .csv.gz (case-insensitive). Whatever the
// name, gzip compression is recognised by its magic bytes. The caller must
// close the returned Closer when done with the Reader.
func Open(path, format string) (Reader, io.Closer, error) {
	if format == "" {
		format = formatOf(path)
		if format == "" {
			return nil, nil, fmt.Errorf("trace: cannot tell the format of %s from its name; want .swf, .swf.gz, .csv or .csv.gz, or pass the format", path)
		}
	}
	var newReader func(io.Reader, string) (Reader, error)
	switch format {
	case "swf":
		newReader = NewSWF
	case "csv":
		newReader = NewCSV
	default:
		return nil, nil, fmt.Errorf("trace: unknown format %q (want \"swf\" or \"csv\")", format)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	r, err := newReader(f, path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return r, f, nil
}

func formatOf(path string) string {
	name := strings.ToLower(filepath.Base(path))
	name = strings.TrimSuffix(name, ".gz")
	switch filepath.Ext(name) {
	case ".swf":
		return "swf"
	case ".csv":
		return "csv"
	}
	return ""
}

// decompress returns r's content, gunzipped if it starts with the gzip
// magic bytes. Sniffing rather than trusting the name lets a renamed or
// piped trace work.
func decompress(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	magic, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return zr, nil
	}
	return br, nil
}

// tally accumulates Skipped entries. The number of reasons is a small
// constant, so a slice searched linearly is both bounded and fast.
type tally struct{ s []Skipped }

func (t *tally) add(reason string, line int) {
	for i := range t.s {
		if t.s[i].Reason == reason {
			t.s[i].Count++
			return
		}
	}
	t.s = append(t.s, Skipped{Reason: reason, Count: 1, FirstLine: line})
}

func (t *tally) list() []Skipped {
	return append([]Skipped(nil), t.s...)
}

// maxInterned caps the intern table so that a trace with a distinct user
// on every line cannot make memory grow with the trace length.
const maxInterned = 1 << 14

// interner makes the many jobs of one user share a single string, which
// removes the per-job allocation for User and Project.
type interner struct{ m map[string]string }

func (in *interner) bytes(b []byte) string {
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	s := string(b)
	in.keep(s)
	return s
}

// str is for strings that point into a larger buffer: the clone keeps a
// held Job from pinning the whole record.
func (in *interner) str(v string) string {
	if s, ok := in.m[v]; ok {
		return s
	}
	s := strings.Clone(v)
	in.keep(s)
	return s
}

func (in *interner) keep(s string) {
	if in.m == nil {
		in.m = make(map[string]string)
	}
	if len(in.m) < maxInterned {
		in.m[s] = s
	}
}

// atoi parses an optionally signed decimal integer. Unlike
// strconv.ParseInt it takes bytes directly, so the hot SWF path allocates
// nothing per field.
func atoi[T string | []byte](b T) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	neg := false
	i := 0
	switch b[0] {
	case '-':
		neg, i = true, 1
	case '+':
		i = 1
	}
	if i == len(b) {
		return 0, false
	}
	const limit = 1 << 63 // magnitude of math.MinInt64
	var n uint64
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (limit-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	if neg {
		return -int64(n), true // n == limit wraps to MinInt64, as wanted
	}
	if n >= limit {
		return 0, false
	}
	return int64(n), true
}

// isNumber reports whether b is a decimal number, possibly with a fraction
// or exponent: some SWF traces store CPU time or memory that way.
func isNumber(b []byte) bool {
	i := 0
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		i++
	}
	digits := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		digits++
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			i++
		}
		start := i
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
		if i == start {
			return false
		}
	}
	return i == len(b)
}
