package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// swfFields is the number of fields of an SWF record.
const swfFields = 18

// swfNames are the SWF field names, used in error messages so that a
// report can be checked against the standard without looking it up.
var swfNames = [swfFields]string{
	"job number", "submit time", "wait time", "run time",
	"allocated processors", "average CPU time", "used memory",
	"requested processors", "requested time", "requested memory",
	"status", "user id", "group id", "executable", "queue", "partition",
	"preceding job", "think time",
}

// Indexes (0-based) of the fields the reader uses.
const (
	swfJob       = 0
	swfSubmit    = 1
	swfRun       = 3
	swfAlloc     = 4
	swfReqProcs  = 7
	swfReqTime   = 8
	swfUser      = 11
	swfGroup     = 12
	maxLine      = 1 << 20 // longest line accepted; real records are under 200 bytes
	maxNotes     = 64      // header Notes kept, so a hostile header stays small
	maxNoteBytes = 4 << 10
)

// swfInt marks the fields that must be integers. The others only need to
// be numbers: some archive traces store CPU time or memory with a fraction,
// and the reader ignores those fields anyway.
var swfInt = [swfFields]bool{
	swfJob: true, swfSubmit: true, swfRun: true, swfAlloc: true,
	swfReqProcs: true, swfReqTime: true, swfUser: true, swfGroup: true,
}

type swfReader struct {
	name    string
	sc      *bufio.Scanner
	line    int
	pending bool // the scanner holds the first record, met while reading the header
	hdr     Header
	f       [swfFields][]byte // fields of the current line; point into the scanner's buffer
	last    int64             // latest known submit time, to check the order
	lastAt  int               // its line
	skips   tally
	names   interner
	err     error
}

// NewSWF reads a trace in the Standard Workload Format, plain or gzipped.
// It reads the header comments at once; records are parsed as Next is
// called. name is used only in error messages.
func NewSWF(r io.Reader, name string) (Reader, error) {
	src, err := decompress(r)
	if err != nil {
		return nil, &Error{File: name, Err: err}
	}
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	s := &swfReader{name: name, sc: sc, last: math.MinInt64}
	if err := s.readHeader(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *swfReader) Header() Header {
	h := s.hdr
	h.Notes = append([]string(nil), s.hdr.Notes...)
	return h
}

func (s *swfReader) Skipped() []Skipped { return s.skips.list() }

func (s *swfReader) scan() bool {
	if s.pending {
		s.pending = false
		return true
	}
	if !s.sc.Scan() {
		return false
	}
	s.line++
	return true
}

// scanErr turns the end of scanning into io.EOF or a located error.
func (s *swfReader) scanErr() error {
	err := s.sc.Err()
	switch {
	case err == nil:
		return io.EOF
	case errors.Is(err, bufio.ErrTooLong):
		return &Error{File: s.name, Line: s.line + 1, Err: fmt.Errorf("line longer than %d bytes", maxLine)}
	default:
		return &Error{File: s.name, Line: s.line + 1, Err: fmt.Errorf("read: %w", err)}
	}
}

// readHeader consumes the leading comment lines and stops at the first
// record, which it leaves in the scanner for Next. Comments after the first
// record are skipped without being parsed, so memory does not depend on
// where a trace puts them.
func (s *swfReader) readHeader() error {
	lastKey := ""
	for s.scan() {
		b := bytes.TrimLeft(s.sc.Bytes(), " \t\r\v\f")
		if len(b) == 0 {
			continue
		}
		if b[0] != ';' {
			s.pending = true
			return nil
		}
		if err := s.headerLine(b[1:], &lastKey); err != nil {
			return err
		}
	}
	if err := s.scanErr(); err != io.EOF {
		return err
	}
	return nil
}

// headerLine parses "; Key: value". A line indented by more than one blank
// continues the previous field (the archive wraps long notes that way); it
// is kept only for Note, the one free-text field that matters.
func (s *swfReader) headerLine(c []byte, lastKey *string) error {
	if len(c) > 0 && (c[0] == ' ' || c[0] == '\t') {
		c = c[1:]
	}
	key, val, ok := headerField(c)
	if !ok {
		text := string(bytes.TrimSpace(c))
		if text == "" {
			*lastKey = "" // a bare ";" ends a wrapped note
			return nil
		}
		if *lastKey == "Note" && len(s.hdr.Notes) > 0 {
			n := &s.hdr.Notes[len(s.hdr.Notes)-1]
			if len(*n)+1+len(text) <= maxNoteBytes {
				*n += " " + text
			}
		}
		return nil
	}
	*lastKey = key
	var num *int
	switch key {
	case "Version":
		s.hdr.Version = val
	case "Computer":
		s.hdr.Computer = val
	case "Installation":
		s.hdr.Installation = val
	case "TimeZoneString":
		s.hdr.TimeZoneString = val
	case "Note":
		if len(s.hdr.Notes) < maxNotes && len(val) <= maxNoteBytes {
			s.hdr.Notes = append(s.hdr.Notes, val)
		}
	case "MaxJobs":
		num = &s.hdr.MaxJobs
	case "MaxRecords":
		num = &s.hdr.MaxRecords
	case "MaxNodes":
		num = &s.hdr.MaxNodes
	case "MaxProcs":
		num = &s.hdr.MaxProcs
	case "UnixStartTime":
		n, err := s.headerInt(key, val)
		s.hdr.UnixStartTime = n
		return err
	}
	if num != nil {
		n, err := s.headerInt(key, val)
		if err != nil {
			return err
		}
		if n > math.MaxInt || n < math.MinInt {
			return &Error{File: s.name, Line: s.line, What: "header " + key, Err: fmt.Errorf("%d is out of range", n)}
		}
		*num = int(n)
	}
	return nil
}

// headerInt parses the first word of a numeric header value, so that a
// trailing remark such as "128 (64 dual nodes)" does not reject the trace.
func (s *swfReader) headerInt(key, val string) (int64, error) {
	word := val
	if i := strings.IndexAny(val, " \t"); i >= 0 {
		word = val[:i]
	}
	n, ok := atoi(word)
	if !ok {
		return 0, &Error{File: s.name, Line: s.line, What: "header " + key, Err: fmt.Errorf("expected an integer, got %q", val)}
	}
	return n, nil
}

// headerField splits "Key: value", where Key is a word starting with a
// letter; anything else is a continuation or free comment.
func headerField(c []byte) (key, val string, ok bool) {
	if len(c) == 0 || !isLetter(c[0]) {
		return "", "", false
	}
	i := 1
	for i < len(c) && (isLetter(c[i]) || c[i] >= '0' && c[i] <= '9' || c[i] == '_') {
		i++
	}
	if i == len(c) || c[i] != ':' {
		return "", "", false
	}
	return string(c[:i]), string(bytes.TrimSpace(c[i+1:])), true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

func (s *swfReader) Next() (Job, error) {
	if s.err != nil {
		return Job{}, s.err
	}
	for s.scan() {
		n := s.split(s.sc.Bytes())
		if n == 0 || s.f[0][0] == ';' {
			continue
		}
		job, skip, err := s.record(n)
		if err != nil {
			s.err = err
			return Job{}, err
		}
		if skip != "" {
			s.skips.add(skip, s.line)
			continue
		}
		return job, nil
	}
	s.err = s.scanErr()
	return Job{}, s.err
}

// split stores the first swfFields fields of b in s.f and returns how many
// fields b has, so that a long line is reported with its true count.
func (s *swfReader) split(b []byte) int {
	n, i := 0, 0
	for {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i == len(b) {
			return n
		}
		j := i
		for j < len(b) && !isSpace(b[j]) {
			j++
		}
		if n < swfFields {
			s.f[n] = b[i:j]
		}
		n++
		i = j
	}
}

func (s *swfReader) fieldErr(i int, format string, args ...any) error {
	return &Error{
		File: s.name,
		Line: s.line,
		What: fmt.Sprintf("field %d (%s)", i+1, swfNames[i]),
		Err:  fmt.Errorf(format, args...),
	}
}

// record converts the n fields in s.f into a Job, or names the reason to
// skip it, or reports why the line is malformed.
func (s *swfReader) record(n int) (Job, string, error) {
	if n < swfFields {
		return Job{}, "", s.fieldErr(n, "missing: the line has %d of %d fields", n, swfFields)
	}
	if n > swfFields {
		return Job{}, "", &Error{File: s.name, Line: s.line, Err: fmt.Errorf("the line has %d fields, want %d", n, swfFields)}
	}
	var v [swfFields]int64
	for i, f := range s.f {
		if !swfInt[i] {
			if !isNumber(f) {
				return Job{}, "", s.fieldErr(i, "expected a number, got %q", f)
			}
			continue
		}
		x, ok := atoi(f)
		if !ok {
			return Job{}, "", s.fieldErr(i, "expected an integer, got %q", f)
		}
		v[i] = x
	}
	submit, run := v[swfSubmit], v[swfRun]
	slots := v[swfAlloc]
	if slots <= 0 {
		// Cancelled and some failed jobs never got an allocation; what
		// they asked for is the best estimate of what they would use.
		slots = v[swfReqProcs]
	}
	switch {
	case submit < 0:
		return Job{}, SkipNoSubmit, nil
	case submit < s.last:
		return Job{}, "", s.fieldErr(swfSubmit, "%d is before %d on line %d; the trace must be sorted by submit time", submit, s.last, s.lastAt)
	}
	s.last, s.lastAt = submit, s.line
	switch {
	case slots <= 0:
		return Job{}, SkipNoSlots, nil
	case run < 0:
		return Job{}, SkipNoRun, nil
	case run == 0:
		return Job{}, SkipZeroRun, nil
	case slots > math.MaxInt:
		return Job{}, "", s.fieldErr(swfAlloc, "%d processors is out of range", slots)
	}
	return Job{
		ID:        string(s.f[swfJob]),
		Submit:    submit,
		Run:       run,
		Slots:     int(slots),
		TimeLimit: max(v[swfReqTime], 0),
		User:      s.id(v[swfUser], s.f[swfUser]),
		Project:   s.id(v[swfGroup], s.f[swfGroup]),
		Line:      s.line,
	}, "", nil
}

// id maps SWF's "unknown" (-1) to "" and interns the rest.
func (s *swfReader) id(v int64, b []byte) string {
	if v < 0 {
		return ""
	}
	return s.names.bytes(b)
}
