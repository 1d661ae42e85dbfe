package agent

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"sync"
	"time"
)

// Stream names an output stream of a task.
type Stream string

// Output streams.
const (
	Stdout Stream = "stdout"
	Stderr Stream = "stderr"
)

// MaxLineBytes is the longest log line delivered whole; a longer line is
// cut into pieces of this size, each but the last marked Partial.
const MaxLineBytes = 64 << 10

// DefaultLogBufferBytes is Runner.LogBufferBytes when unset.
const DefaultLogBufferBytes = 4 << 20

// LogLine is one line of a task's output.
type LogLine struct {
	// Seq numbers the task's lines from 1 in the order they were read,
	// over both streams; dropped lines use numbers too, so a gap in Seq
	// is a gap in the log.
	Seq    uint64    `json:"seq"`
	Time   time.Time `json:"time"` // when the agent read it
	Stream Stream    `json:"stream"`
	// Text is the line without its newline (and without a \r before it),
	// with invalid UTF-8 replaced by U+FFFD.
	Text string `json:"text"`
	// Partial is set when the line was longer than MaxLineBytes: Text is
	// a piece and the line goes on in the next entry of the same stream.
	Partial bool `json:"partial,omitempty"`
	// Dropped counts lines dropped just before this one because the
	// consumer fell behind and the buffer was full.
	Dropped uint64 `json:"dropped,omitempty"`
}

// logQueue sits between the pipe readers and the consumer. Readers never
// wait for the consumer: when the buffered text exceeds limit bytes, the
// oldest lines are dropped and counted on the next line that remains, so
// a slow consumer costs log lines, never the task's progress.
type logQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	lines   []LogLine
	head    int // lines[head:] are queued
	bytes   int
	limit   int
	seq     uint64
	dropped uint64 // in all
	closed  bool
	deliver bool // false: no consumer; lines are only counted
}

// lineCost is what a line counts against the buffer limit.
func lineCost(l LogLine) int { return len(l.Text) + 64 }

func newLogQueue(limit int, deliver bool) *logQueue {
	q := &logQueue{limit: limit, deliver: deliver}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *logQueue) push(stream Stream, text string, partial bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.seq++
	if !q.deliver {
		return
	}
	l := LogLine{Seq: q.seq, Time: time.Now().UTC(), Stream: stream, Text: text, Partial: partial}
	for q.head < len(q.lines) && q.bytes+lineCost(l) > q.limit {
		old := q.lines[q.head]
		q.lines[q.head] = LogLine{}
		q.head++
		q.bytes -= lineCost(old)
		q.dropped++
		if q.head < len(q.lines) {
			q.lines[q.head].Dropped += old.Dropped + 1
		} else {
			l.Dropped += old.Dropped + 1
		}
	}
	if q.head > len(q.lines)/2 && q.head > 64 {
		q.lines = append(q.lines[:0], q.lines[q.head:]...)
		q.head = 0
	}
	q.lines = append(q.lines, l)
	q.bytes += lineCost(l)
	q.cond.Signal()
}

// pop waits for the next line; false once the queue is closed and empty.
func (q *logQueue) pop() (LogLine, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.head == len(q.lines) && !q.closed {
		q.cond.Wait()
	}
	if q.head == len(q.lines) {
		return LogLine{}, false
	}
	l := q.lines[q.head]
	q.lines[q.head] = LogLine{}
	q.head++
	q.bytes -= lineCost(l)
	return l, true
}

func (q *logQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// counts returns the lines read and dropped so far.
func (q *logQueue) counts() (read, dropped uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.seq, q.dropped
}

// readLines reads r to its end (or an error such as the pipe being closed),
// pushing each line: to a task's logQueue, or to a shim's output file.
func readLines(r io.Reader, stream Stream, push func(stream Stream, text string, partial bool)) {
	br := bufio.NewReaderSize(r, MaxLineBytes)
	for {
		b, err := br.ReadSlice('\n')
		partial := errors.Is(err, bufio.ErrBufferFull)
		if len(b) > 0 {
			if !partial {
				b = trimNewline(b)
			}
			push(stream, strings.ToValidUTF8(string(b), "\uFFFD"), partial)
		}
		if err != nil && !partial {
			return
		}
	}
}

func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}
