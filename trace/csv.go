package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// CSV columns, in the order documented in doc.go.
const (
	colJobID = iota
	colUser
	colProject
	colSubmit
	colGPUs
	colNodes
	colDuration
	colTimeLimit
	numCols
)

var csvNames = [numCols]string{
	"job_id", "user", "project", "submit", "gpus", "nodes", "duration", "time_limit",
}

// csvOptional marks the columns a file may leave out.
var csvOptional = [numCols]bool{colTimeLimit: true}

// TimestampLayout is the submit layout used by the Helios and Philly logs.
// RFC 3339 is accepted too.
const TimestampLayout = "2006-01-02 15:04:05"

type submitStyle int

const (
	styleUnknown submitStyle = iota
	styleSeconds
	styleTime
)

type csvReader struct {
	name   string
	cr     *csv.Reader
	col    [numCols]int // index of each column in a row; -1 when absent
	header []string     // the header row's names, in its order
	hdr    Header
	style  submitStyle
	origin bool // whether hdr.SubmitOrigin is set
	last   int64
	lastAt int
	skips  tally
	names  interner
	err    error

	// The first job is read by NewCSV so that Header knows SubmitOrigin.
	peeked  bool
	peekJob Job
	peekErr error
}

// NewCSV reads a GPU job trace in the CSV format described in the package
// documentation, plain or gzipped. It checks the header row and reads
// ahead to the first runnable job, so that Header().SubmitOrigin is known;
// an error in a row is still returned by Next. name is used only in error
// messages.
func NewCSV(r io.Reader, name string) (Reader, error) {
	src, err := decompress(r)
	if err != nil {
		return nil, &Error{File: name, Err: err}
	}
	cr := csv.NewReader(src)
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true
	s := &csvReader{name: name, cr: cr, last: math.MinInt64}
	if err := s.readColumns(); err != nil {
		return nil, err
	}
	s.peekJob, s.peekErr = s.next()
	s.peeked = true
	return s, nil
}

func (s *csvReader) Header() Header { return s.hdr }

func (s *csvReader) Skipped() []Skipped { return s.skips.list() }

func (s *csvReader) Next() (Job, error) {
	if s.peeked {
		s.peeked = false
		s.err = s.peekErr
		return s.peekJob, s.peekErr
	}
	if s.err != nil {
		return Job{}, s.err
	}
	j, err := s.next()
	s.err = err
	return j, err
}

// readErr locates an error from encoding/csv, whose own message has the
// line but not the file. rec is the record Read returned with it, which
// for a row of the wrong length is the row.
func (s *csvReader) readErr(err error, rec []string) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return &Error{File: s.name, Line: pe.StartLine, Err: s.countErr(len(rec))}
		}
		return &Error{File: s.name, Line: pe.Line, Err: pe.Err}
	}
	return &Error{File: s.name, Err: fmt.Errorf("read: %w", err)}
}

// countErr says how a row of n cells differs from the header row: the
// counts, and the columns a short row lacks, as the SWF reader says a
// short line's (trial 2026-11-29e E5: "a different number of cells"
// named neither).
func (s *csvReader) countErr(n int) error {
	want := len(s.header)
	switch {
	case n < want:
		return fmt.Errorf("the row has %d cells, the header has %d (missing: %s)", n, want, strings.Join(s.header[n:], ", "))
	case want > 0:
		return fmt.Errorf("the row has %d cells, the header has %d (%d more than its columns, after %s)", n, want, n-want, s.header[want-1])
	}
	return fmt.Errorf("the row has %d cells, not as many as the header", n)
}

// readColumns maps the header row's names to column indexes. Unknown
// names are errors rather than ignored, because a misspelt optional column
// (time_limt) would otherwise silently vanish.
func (s *csvReader) readColumns() error {
	rec, err := s.cr.Read()
	if err == io.EOF {
		return &Error{File: s.name, Err: errors.New("empty file: want a header row naming the columns")}
	}
	if err != nil {
		return s.readErr(err, rec)
	}
	line, _ := s.cr.FieldPos(0)
	s.header = make([]string, len(rec))
	for i := range s.col {
		s.col[i] = -1
	}
	for i, name := range rec {
		name = strings.TrimSpace(name)
		if i == 0 {
			name = strings.TrimPrefix(name, "\ufeff") // spreadsheets write a byte-order mark
		}
		s.header[i] = name
		c := columnIndex(name)
		switch {
		case c < 0:
			return &Error{File: s.name, Line: line, What: fmt.Sprintf("column %d", i+1),
				Err: fmt.Errorf("unknown column %q; the columns are %s", name, strings.Join(csvNames[:], ","))}
		case s.col[c] >= 0:
			return &Error{File: s.name, Line: line, What: fmt.Sprintf("column %d", i+1),
				Err: fmt.Errorf("column %q appears twice", name)}
		}
		s.col[c] = i
	}
	var missing []string
	for c, i := range s.col {
		if i < 0 && !csvOptional[c] {
			missing = append(missing, csvNames[c])
		}
	}
	if len(missing) > 0 {
		noun := "column"
		if len(missing) > 1 {
			noun = "columns"
		}
		return &Error{File: s.name, Line: line, Err: fmt.Errorf("missing %s %s", noun, strings.Join(missing, ", "))}
	}
	return nil
}

func columnIndex(name string) int {
	for c, n := range csvNames {
		if n == name {
			return c
		}
	}
	return -1
}

// next returns the next runnable job, counting the skipped rows before it.
func (s *csvReader) next() (Job, error) {
	for {
		rec, err := s.cr.Read()
		if err == io.EOF {
			return Job{}, io.EOF
		}
		if err != nil {
			return Job{}, s.readErr(err, rec)
		}
		line, _ := s.cr.FieldPos(0)
		job, skip, err := s.row(rec, line)
		if err != nil {
			return Job{}, err
		}
		if skip != "" {
			s.skips.add(skip, line)
			continue
		}
		return job, nil
	}
}

// cellError is a bad cell; row adds the file, line and column.
type cellError struct {
	col int
	err error
}

func (e *cellError) Error() string { return e.err.Error() }

func badCell(col int, format string, args ...any) error {
	return &cellError{col, fmt.Errorf(format, args...)}
}

func (s *csvReader) row(rec []string, line int) (Job, string, error) {
	job, skip, err := s.convert(rec, line)
	if err == nil {
		return job, skip, nil
	}
	var ce *cellError // declared only on failure: errors.As makes it escape
	if errors.As(err, &ce) {
		return Job{}, "", &Error{File: s.name, Line: line, What: "column " + csvNames[ce.col], Err: ce.err}
	}
	return job, skip, err
}

func (s *csvReader) cell(rec []string, c int) string {
	if s.col[c] < 0 {
		return ""
	}
	return strings.TrimSpace(rec[s.col[c]])
}

// convert checks one row and turns it into a Job or a skip reason.
func (s *csvReader) convert(rec []string, line int) (Job, string, error) {
	id := s.cell(rec, colJobID)
	if id == "" {
		return Job{}, "", badCell(colJobID, "empty")
	}
	submit, err := s.submit(s.cell(rec, colSubmit), line)
	if err != nil {
		return Job{}, "", err
	}
	gpus, err := s.count(rec, colGPUs, false)
	if err != nil {
		return Job{}, "", err
	}
	nodes, err := s.count(rec, colNodes, true)
	if err != nil {
		return Job{}, "", err
	}
	run, err := s.seconds(rec, colDuration, false)
	if err != nil {
		return Job{}, "", err
	}
	limit, err := s.seconds(rec, colTimeLimit, true)
	if err != nil {
		return Job{}, "", err
	}
	switch {
	case gpus == 0:
		return Job{}, SkipNoGPUs, nil
	case run < 0:
		return Job{}, SkipNoRun, nil
	case run == 0:
		return Job{}, SkipZeroRun, nil
	}
	return Job{
		ID:        strings.Clone(id),
		Submit:    submit,
		Run:       run,
		Slots:     gpus,
		Nodes:     nodes,
		TimeLimit: max(limit, 0),
		User:      s.names.str(s.cell(rec, colUser)),
		Project:   s.names.str(s.cell(rec, colProject)),
		Line:      line,
	}, "", nil
}

// count parses a non-negative integer cell; an empty optional cell is 0.
func (s *csvReader) count(rec []string, c int, optional bool) (int, error) {
	v := s.cell(rec, c)
	if v == "" && optional {
		return 0, nil
	}
	n, ok := atoi(v)
	switch {
	case !ok:
		return 0, badCell(c, "expected an integer, got %q", v)
	case n < 0:
		return 0, badCell(c, "must not be negative, got %q", v)
	case n > math.MaxInt32:
		return 0, badCell(c, "%d is out of range", n)
	}
	return int(n), nil
}

// seconds parses an integer number of seconds; an empty optional cell is 0.
func (s *csvReader) seconds(rec []string, c int, optional bool) (int64, error) {
	v := s.cell(rec, c)
	if v == "" && optional {
		return 0, nil
	}
	n, ok := atoi(v)
	if !ok {
		return 0, badCell(c, "expected integer seconds, got %q", v)
	}
	return n, nil
}

// submit parses a submit cell, checks the order and rebases it on the
// first row's submit time.
func (s *csvReader) submit(v string, line int) (int64, error) {
	raw, err := s.rawSubmit(v)
	if err != nil {
		return 0, err
	}
	if raw < s.last {
		return 0, badCell(colSubmit, "%q is before the submit time on line %d; rows must be sorted by submit time", v, s.lastAt)
	}
	if !s.origin {
		s.origin = true
		s.hdr.SubmitOrigin = raw
		if s.style == styleTime {
			s.hdr.UnixStartTime = raw
		}
	}
	d := raw - s.hdr.SubmitOrigin
	if d < 0 { // only by overflow, since raw >= origin
		return 0, badCell(colSubmit, "%q is too far from the first submit time", v)
	}
	s.last, s.lastAt = raw, line
	return d, nil
}

// rawSubmit parses integer seconds or a timestamp (as Unix seconds). One
// file must stick to one style: a mix usually means a botched conversion,
// and the two styles' origins would not agree.
func (s *csvReader) rawSubmit(v string) (int64, error) {
	if n, ok := atoi(v); ok {
		if s.style == styleTime {
			return 0, badCell(colSubmit, "got integer seconds %q, but earlier rows use timestamps", v)
		}
		s.style = styleSeconds
		return n, nil
	}
	t, ok := parseTimestamp(v)
	if !ok {
		return 0, badCell(colSubmit, "expected integer seconds or a timestamp like %q or RFC 3339, got %q", TimestampLayout, v)
	}
	if s.style == styleSeconds {
		return 0, badCell(colSubmit, "got timestamp %q, but earlier rows use integer seconds", v)
	}
	s.style = styleTime
	return t.Unix(), nil
}

// parseTimestamp reads TimestampLayout as UTC, or RFC 3339 with its own
// offset. Choosing the layout by the date/time separator avoids a failed
// parse, and its allocation, on every row.
func parseTimestamp(v string) (time.Time, bool) {
	layout := TimestampLayout
	if len(v) > 10 && (v[10] == 'T' || v[10] == 't') {
		layout = time.RFC3339
	}
	t, err := time.Parse(layout, v)
	return t, err == nil
}
