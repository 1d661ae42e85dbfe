package trace

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// readAll drains r, returning the jobs read before the first error.
func readAll(t testing.TB, r Reader) ([]Job, error) {
	t.Helper()
	var jobs []Job
	for {
		j, err := r.Next()
		if err == io.EOF {
			return jobs, nil
		}
		if err != nil {
			return jobs, err
		}
		jobs = append(jobs, j)
	}
}

// rec builds an SWF record from the fields that matter, leaving the rest
// unknown, so that a test line reads as what it varies.
func rec(job, submit, run, alloc, req, reqTime, user, group string) string {
	f := strings.Fields("0 0 -1 0 0 -1 -1 0 0 -1 1 0 0 -1 -1 -1 -1 -1")
	f[0], f[1], f[3], f[4], f[7], f[8], f[11], f[12] = job, submit, run, alloc, req, reqTime, user, group
	return strings.Join(f, " ") + "\n"
}

func gz(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// swfCases are read both plain and gzipped.
var swfCases = []readCase{
	{
		name: "header",
		in: "; Version: 2.2\n; Computer: Intel iPSC/860\n;Installation: NASA Ames\n" +
			"; MaxJobs: 42264\n; MaxRecords: 42264\n; UnixStartTime: 749458803\n" +
			"; TimeZoneString: US/Pacific\n; MaxNodes: 128 (32 boards)\n; MaxProcs: 128\n" +
			"; Note: There is no information on wait times - the given submit\n" +
			";       times are actually start times\n" +
			"; Information: http://www.nas.nasa.gov/\n" +
			";              http://www.cs.huji.ac.il/labs/parallel/workload/\n" +
			"; Note: group 1 is normal users\n;\n",
		header: Header{
			Version: "2.2", Computer: "Intel iPSC/860", Installation: "NASA Ames",
			MaxJobs: 42264, MaxRecords: 42264, UnixStartTime: 749458803,
			TimeZoneString: "US/Pacific", MaxNodes: 128, MaxProcs: 128,
			Notes: []string{
				"There is no information on wait times - the given submit times are actually start times",
				"group 1 is normal users",
			},
		},
	},
	{
		name:   "fields",
		in:     "; MaxProcs: 8\n" + rec("7", "100", "50", "4", "8", "3600", "12", "3"),
		header: Header{MaxProcs: 8},
		jobs: []Job{{ID: "7", Submit: 100, Run: 50, Slots: 4, TimeLimit: 3600,
			User: "12", Project: "3", Line: 2}},
	},
	{
		name: "fallback to requested processors",
		in:   rec("1", "0", "50", "-1", "16", "-1", "-1", "-1") + rec("2", "5", "50", "0", "2", "0", "1", "1"),
		jobs: []Job{
			{ID: "1", Submit: 0, Run: 50, Slots: 16, Line: 1},
			{ID: "2", Submit: 5, Run: 50, Slots: 2, User: "1", Project: "1", Line: 2},
		},
	},
	{
		name: "skipped summary",
		in: "; a comment\n\n" +
			rec("1", "0", "-1", "4", "4", "60", "1", "1") + // line 3
			rec("2", "1", "0", "4", "4", "60", "1", "1") +
			rec("3", "2", "10", "-1", "-1", "60", "1", "1") +
			rec("4", "3", "-1", "4", "4", "60", "1", "1") +
			rec("5", "-1", "10", "4", "4", "60", "1", "1") +
			"; a comment between records is ignored\n" +
			rec("6", "3", "10", "4", "4", "60", "1", "1") + // line 9
			rec("7", "3", "0", "-1", "-1", "60", "1", "1"),
		jobs: []Job{{ID: "6", Submit: 3, Run: 10, Slots: 4, TimeLimit: 60, User: "1", Project: "1", Line: 9}},
		skipped: []Skipped{
			{SkipNoRun, 2, 3}, {SkipZeroRun, 1, 4}, {SkipNoSlots, 2, 5}, {SkipNoSubmit, 1, 7},
		},
	},
	{
		name:   "blank and CRLF lines",
		in:     "; MaxProcs: 4\r\n\r\n \t\r\n" + strings.ReplaceAll(rec("1", "0", "9", "1", "1", "-1", "2", "-1"), "\n", "\r\n"),
		header: Header{MaxProcs: 4},
		jobs:   []Job{{ID: "1", Run: 9, Slots: 1, User: "2", Line: 4}},
	},
	{name: "empty"},
	{name: "header only", in: "; MaxProcs: 4\n", header: Header{MaxProcs: 4}},
}

func TestSWF(t *testing.T) { runReadCases(t, swfCases, NewSWF, "t.swf") }

// readCase is one well-formed input and everything a Reader should make
// of it.
type readCase struct {
	name    string
	in      string
	header  Header
	jobs    []Job
	skipped []Skipped
}

func runReadCases(t *testing.T, cases []readCase, newReader func(io.Reader, string) (Reader, error), file string) {
	for _, tt := range cases {
		for _, zip := range []bool{false, true} {
			name := tt.name
			in := []byte(tt.in)
			if zip {
				name += "/gzip"
				in = gz(t, tt.in)
			}
			t.Run(name, func(t *testing.T) {
				r, err := newReader(bytes.NewReader(in), file)
				if err != nil {
					t.Fatal(err)
				}
				if got := r.Header(); !reflect.DeepEqual(got, tt.header) {
					t.Errorf("header:\n got %+v\nwant %+v", got, tt.header)
				}
				jobs, err := readAll(t, r)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(jobs, tt.jobs) {
					t.Errorf("jobs:\n got %+v\nwant %+v", jobs, tt.jobs)
				}
				if got := r.Skipped(); !reflect.DeepEqual(got, tt.skipped) {
					t.Errorf("skipped:\n got %+v\nwant %+v", got, tt.skipped)
				}
				if _, err := r.Next(); err != io.EOF {
					t.Errorf("Next after the end = %v, want io.EOF", err)
				}
			})
		}
	}
}

func TestSWFErrors(t *testing.T) {
	ok := rec("1", "100", "10", "1", "1", "-1", "1", "1")
	runErrorCases(t, []errorCase{
		{"truncated line", ok + "2 200 -1 10 4 -1 -1\n",
			[]string{"t.swf:2:", "field 8 (requested processors)", "7 of 18 fields"}},
		{"extra field", ok + strings.TrimSuffix(ok, "\n") + " 5\n", []string{"t.swf:2:", "19 fields, want 18"}},
		{"non-numeric run time", ok + rec("2", "200", "abc", "1", "1", "-1", "1", "1"),
			[]string{"t.swf:2:", "field 4 (run time)", `expected an integer, got "abc"`}},
		{"fraction in a used field", rec("1", "100.5", "10", "1", "1", "-1", "1", "1"),
			[]string{"t.swf:1:", "field 2 (submit time)", `"100.5"`}},
		{"non-numeric unused field", ";\n" + strings.Replace(ok, " -1 -1 ", " x -1 ", 1),
			[]string{"t.swf:2:", "field 6 (average CPU time)", `expected a number, got "x"`}},
		{"integer overflow", rec("1", "99999999999999999999", "10", "1", "1", "-1", "1", "1"),
			[]string{"t.swf:1:", "field 2 (submit time)"}},
		{"submit going backwards", ok + ok + rec("3", "99", "10", "1", "1", "-1", "1", "1"),
			[]string{"t.swf:3:", "field 2 (submit time)", "99 is before 100 on line 2", "sorted"}},
		{"backwards through a skipped record", ok + rec("2", "200", "-1", "1", "1", "-1", "1", "1") + ok,
			[]string{"t.swf:3:", "field 2 (submit time)", "100 is before 200 on line 2"}},
		{"bad header value", "; MaxProcs: many\n" + ok, []string{"t.swf:1:", "header MaxProcs", `"many"`}},
		{"line too long", ok + strings.Repeat("1", maxLine+1) + "\n", []string{"t.swf:2:", "longer than"}},
	}, NewSWF, "t.swf")
}

func TestSWFCorruptGzip(t *testing.T) {
	z := gz(t, strings.Repeat(rec("1", "100", "10", "1", "1", "-1", "1", "1"), 100))
	z = z[:len(z)/2]
	r, err := NewSWF(bytes.NewReader(z), "t.swf.gz")
	if err == nil {
		_, err = readAll(t, r)
	}
	if err == nil || !strings.Contains(err.Error(), "t.swf.gz:") {
		t.Fatalf("error = %v, want one naming t.swf.gz", err)
	}
}

func TestOpen(t *testing.T) {
	tests := []struct {
		path, format string
		jobs         int
		skipped      []Skipped
	}{
		{"testdata/excerpt.swf", "", 5, []Skipped{{SkipNoRun, 1, 16}, {SkipZeroRun, 1, 17}, {SkipNoSlots, 1, 19}}},
		{"testdata/excerpt.swf.gz", "", 5, []Skipped{{SkipNoRun, 1, 16}, {SkipZeroRun, 1, 17}, {SkipNoSlots, 1, 19}}},
		{"testdata/excerpt.csv", "", 3, []Skipped{{SkipNoGPUs, 1, 4}, {SkipZeroRun, 1, 5}}},
		{"testdata/excerpt.swf.gz", "swf", 5, []Skipped{{SkipNoRun, 1, 16}, {SkipZeroRun, 1, 17}, {SkipNoSlots, 1, 19}}},
	}
	for _, tt := range tests {
		t.Run(tt.path+"/"+tt.format, func(t *testing.T) {
			r, c, err := Open(tt.path, tt.format)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			jobs, err := readAll(t, r)
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) != tt.jobs {
				t.Errorf("%d jobs, want %d", len(jobs), tt.jobs)
			}
			if got := r.Skipped(); !reflect.DeepEqual(got, tt.skipped) {
				t.Errorf("skipped:\n got %+v\nwant %+v", got, tt.skipped)
			}
		})
	}
	for _, bad := range []struct{ path, format, want string }{
		{"testdata/excerpt.txt", "", "cannot tell the format"},
		{"testdata/excerpt.swf", "json", "unknown format"},
		{"testdata/missing.swf", "", "no such file"},
	} {
		if _, _, err := Open(bad.path, bad.format); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Open(%q, %q) error = %v, want %q", bad.path, bad.format, err, bad.want)
		}
	}
}

// TestExcerptJobs pins the conversion of the hand-written SDSC-style
// excerpt, including the fractional unused fields of its last record.
func TestExcerptJobs(t *testing.T) {
	r, c, err := Open("testdata/excerpt.swf", "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h := r.Header()
	if h.MaxProcs != 128 || h.MaxNodes != 128 || h.UnixStartTime != 893466664 || h.Computer != "IBM SP2" {
		t.Errorf("header = %+v", h)
	}
	jobs, err := readAll(t, r)
	if err != nil {
		t.Fatal(err)
	}
	want := []Job{
		{ID: "11", Submit: 566129, Run: 28826, Slots: 1, TimeLimit: 28800, User: "153", Project: "75", Line: 13},
		{ID: "12", Submit: 566290, Run: 26171, Slots: 1, TimeLimit: 28800, User: "153", Project: "75", Line: 14},
		{ID: "13", Submit: 567314, Run: 8071, Slots: 8, TimeLimit: 64800, User: "150", Project: "6", Line: 15},
		{ID: "21", Submit: 580200, Run: 300, Slots: 16, Line: 18},
		{ID: "23", Submit: 590000, Run: 60, Slots: 2, TimeLimit: 3600, User: "189", Project: "75", Line: 20},
	}
	if !reflect.DeepEqual(jobs, want) {
		t.Errorf("jobs:\n got %+v\nwant %+v", jobs, want)
	}
}

func TestAtoi(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"-1", -1, true}, {"+7", 7, true}, {"007", 7, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"-9223372036854775808", -9223372036854775808, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false},
		{"99999999999999999999", 0, false}, {"", 0, false}, {"-", 0, false},
		{"1.5", 0, false}, {"1e3", 0, false}, {" 1", 0, false},
	}
	for _, tt := range tests {
		got, ok := atoi(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("atoi(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if got2, ok2 := atoi([]byte(tt.in)); got2 != got || ok2 != ok {
			t.Errorf("atoi([]byte(%q)) differs from the string version", tt.in)
		}
	}
}

func TestIsNumber(t *testing.T) {
	for in, want := range map[string]bool{
		"0": true, "-1": true, "12.5": true, ".5": true, "5.": true, "1e5": true, "-2.5E-3": true,
		"": false, ".": false, "-": false, "e5": false, "1e": false, "1.2.3": false, "abc": false, "1x": false,
	} {
		if got := isNumber([]byte(in)); got != want {
			t.Errorf("isNumber(%q) = %v, want %v", in, got, want)
		}
	}
}

// errorCase is a malformed input and substrings its error must contain:
// the file and line, and the field or column at fault.
type errorCase struct {
	name string
	in   string
	want []string
}

func runErrorCases(t *testing.T, cases []errorCase, newReader func(io.Reader, string) (Reader, error), file string) {
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			r, err := newReader(strings.NewReader(tt.in), file)
			if err == nil {
				_, err = readAll(t, r)
			}
			if err == nil {
				t.Fatal("no error")
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("error %v is a %T, want *Error", err, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if r != nil {
				if _, again := r.Next(); again != err {
					t.Errorf("error is not sticky: then %v", again)
				}
			}
		})
	}
}

// endless yields the same line forever: a reader that buffered the trace
// would never get past its constructor.
type endless struct {
	line []byte
	off  int
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], e.line[e.off:])
		n += c
		e.off = (e.off + c) % len(e.line)
	}
	return n, nil
}

// TestStreaming checks that reading is incremental and that a job costs
// only the allocations of its own strings (the ID; names are interned, and
// CSV adds encoding/csv's one string per row).
func TestStreaming(t *testing.T) {
	swf, err := NewSWF(&endless{line: []byte(rec("1", "5", "10", "4", "4", "60", "7", "3"))}, "endless.swf")
	if err != nil {
		t.Fatal(err)
	}
	csv, err := NewCSV(io.MultiReader(strings.NewReader(csvHead), &endless{line: []byte("j1,u,p,5,1,1,10,\n")}), "endless.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		r    Reader
		want float64
	}{{swf, 1}, {csv, 2}} {
		allocs := testing.AllocsPerRun(10000, func() {
			if _, err := tt.r.Next(); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > tt.want {
			t.Errorf("%T: %.1f allocations per job, want at most %v", tt.r, allocs, tt.want)
		}
	}
}

func TestInternerIsBounded(t *testing.T) {
	var in interner
	for i := range maxInterned + 100 {
		if got, want := in.str(strconv.Itoa(i)), strconv.Itoa(i); got != want {
			t.Fatalf("interned %q as %q", want, got)
		}
	}
	if len(in.m) != maxInterned {
		t.Errorf("%d names kept, want the cap %d", len(in.m), maxInterned)
	}
}
