package agent

// The output file: once its agent is gone, a task shim started with
// ShimOutputArg keeps the task's output in a file of the task's state dir
// instead of discarding it, and the agent that adopts the task reads the
// file and delivers the lines (OutputReader). The pipes hold what the task
// writes between the agent's death and the shim noticing it (orphanPoll),
// so nothing written after the death is lost up to the file's cap.
//
// The file holds one OutputRecord per line, as JSON; a record is written
// with one write(2), so a reader that sees no newline at the end of the
// file sees a record still being written, or torn by a crash or a full
// disk. Once the file would pass its cap (Runner.ShimOutputMaxBytes) the
// shim stops
// writing (the newest output is dropped, not the oldest: the file only
// ever grows, so a reader's position and a line's number never change)
// and counts the lines it drops in the exit file (ExitStatus.OutputDropped).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// ShimOutputArg, after ShimDrainArg AGENTPID, names the file where the
// shim keeps the task's output once orphaned, and its cap in bytes:
// BINARY ShimArg ShimDrainArg AGENTPID ShimOutputArg OUTPUTFILE MAXBYTES
// EXITFILE PROGRAM ARGS... Without it the orphaned shim discards the
// output.
const ShimOutputArg = "--keep-output"

// DefaultShimOutputMaxBytes is Runner.ShimOutputMaxBytes when unset.
const DefaultShimOutputMaxBytes = 64 << 20

// ShimOutputGrace is how long a shim that keeps output waits, once the
// task's shell has exited, for the pipes to reach EOF before it writes
// the exit file: longer only if a process that outlives the shell (a
// background child) holds them, and what that writes later is dropped.
const ShimOutputGrace = 2 * time.Second

// maxRecordBytes bounds a record a reader accepts: a line of
// MaxLineBytes whose every byte JSON escapes as \u00XX, and the rest.
const maxRecordBytes = 6*MaxLineBytes + 256

// OutputFileName is the output file of one attempt's part, under the
// task's StateDir, beside its exit file.
func OutputFileName(attempt, nodeRank int) string {
	return "output-" + strconv.Itoa(attempt) + "-" + strconv.Itoa(nodeRank) + ".jsonl"
}

// OutputRecord is one line of an output file: a line of the task's output
// as the shim read it (Time), cut as the agent cuts lines (LogLine).
type OutputRecord struct {
	Time    time.Time `json:"time"`
	Stream  Stream    `json:"stream"`
	Text    string    `json:"text"`
	Partial bool      `json:"partial,omitempty"`
}

// outputKeeper is the shim's side: it reads the task's pipes once the
// agent is gone, into the output file or, without one or after a write
// error, into nothing. A write error never reaches the task.
type outputKeeper struct {
	agentPID int
	outputs  []*os.File // stdout's and stderr's read ends
	path     string     // "" discards
	maxBytes int64

	mu      sync.Mutex
	started bool
	closed  bool     // the exit file is being written: drop the rest
	f       *os.File // nil: discarding
	size    int64
	full    bool
	dropped uint64 // lines read and not kept, while path is set
	problem string
	readers sync.WaitGroup
}

// watch starts reading once the agent is gone.
func (k *outputKeeper) watch() {
	for os.Getppid() == k.agentPID {
		time.Sleep(orphanPoll)
	}
	k.start()
}

// start opens the output file and starts the readers, once.
func (k *outputKeeper) start() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.started || k.closed {
		return
	}
	k.started = true
	if k.path != "" {
		f, err := os.OpenFile(k.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		var st os.FileInfo
		if err == nil {
			st, err = f.Stat()
		}
		if err != nil {
			k.problem = "output file: " + err.Error()
			if f != nil {
				f.Close()
			}
		} else {
			k.f, k.size = f, st.Size()
		}
	}
	streams := []Stream{Stdout, Stderr}
	k.readers.Add(len(k.outputs))
	for i, f := range k.outputs {
		go func() { defer k.readers.Done(); readLines(f, streams[i], k.keep) }()
	}
}

// keep appends one line to the file, or counts it dropped.
func (k *outputKeeper) keep(stream Stream, text string, partial bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.f == nil || k.closed || k.full {
		if k.path != "" && !k.closed {
			k.dropped++
		}
		return
	}
	rec, err := json.Marshal(OutputRecord{Time: time.Now().UTC(), Stream: stream, Text: text, Partial: partial})
	if err != nil { // cannot happen: the text is valid UTF-8
		k.dropped++
		return
	}
	rec = append(rec, '\n')
	if k.size+int64(len(rec)) > k.maxBytes {
		k.full, k.problem = true, fmt.Sprintf("the output file reached its cap of %d bytes", k.maxBytes)
		k.dropped++
		return
	}
	n, err := k.f.Write(rec)
	k.size += int64(n)
	if err != nil {
		// A full disk, say: discard from now on, so the task runs on.
		k.problem = "write the output file: " + err.Error()
		k.dropped++
		k.f.Close()
		k.f = nil
	}
}

// finish runs once the task's shell has exited, before the exit file is
// written: if the agent is gone, it waits (at most ShimOutputGrace) for
// the rest of the output, closes the file and returns what was dropped.
func (k *outputKeeper) finish() (dropped uint64, problem string) {
	if os.Getppid() != k.agentPID {
		k.start() // the agent died after watch last looked
	}
	k.mu.Lock()
	keeping := k.started && k.path != ""
	k.mu.Unlock()
	if keeping {
		// The shim's own stdout and stderr are the pipes' write ends
		// too: they must close for the readers to see the end.
		if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
			_ = unix.Dup2(int(null.Fd()), 1)
			_ = unix.Dup2(int(null.Fd()), 2)
			null.Close()
		}
		done := make(chan struct{})
		go func() { k.readers.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(ShimOutputGrace):
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closed = true
	if k.f != nil {
		if err := k.f.Close(); err != nil && k.problem == "" {
			k.problem = "close the output file: " + err.Error()
		}
		k.f = nil
	}
	return k.dropped, k.problem
}

// OutputReader reads an output file from its start as it grows, for the
// agent that adopted the task. Record n of the file (from 1) becomes the
// LogLine with Seq seqBase+n, whichever agent process reads it, so that
// lines delivered again after another restart are stored once.
type OutputReader struct {
	path    string
	seqBase uint64
	f       *os.File
	chunk   []byte
	buf     []byte // read, not yet a complete record
	skip    bool   // in an oversized record: skip to its newline
	records uint64 // complete records read
	dropped uint64 // records that were not sound, not yet counted on a line
	total   uint64 // records that were not sound, in all
}

// NewOutputReader reads the output file at path; the file need not exist
// yet (the shim creates it when it finds its agent gone).
func NewOutputReader(path string, seqBase uint64) *OutputReader {
	return &OutputReader{path: path, seqBase: seqBase}
}

// Read delivers the records completed since the last call, in order. A
// record that is not sound (not an OutputRecord, or longer than any the
// shim writes) is dropped: its number is skipped, and the next line
// delivered counts it in Dropped.
func (r *OutputReader) Read(deliver func(LogLine)) error {
	if r.f == nil {
		f, err := os.Open(r.path)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("output file: %w", err)
		}
		r.f = f
	}
	if r.chunk == nil {
		r.chunk = make([]byte, 64<<10)
	}
	for {
		n, err := r.f.Read(r.chunk)
		r.consume(r.chunk[:n], deliver)
		if errors.Is(err, io.EOF) || (err == nil && n == 0) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read output file %s: %w", r.path, err)
		}
	}
}

// consume splits data into records and delivers them.
func (r *OutputReader) consume(data []byte, deliver func(LogLine)) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			if !r.skip {
				r.buf = append(r.buf, data...)
			}
			if len(r.buf) > maxRecordBytes {
				r.buf, r.skip = r.buf[:0], true
			}
			return
		}
		rec := data[:i]
		if len(r.buf) > 0 {
			rec = append(r.buf, rec...)
		}
		r.records++
		if r.skip || len(rec) > maxRecordBytes {
			r.drop()
		} else {
			r.deliver(rec, deliver)
		}
		r.buf, r.skip, data = r.buf[:0], false, data[i+1:]
	}
}

func (r *OutputReader) drop() {
	r.dropped++
	r.total++
}

// deliver turns one complete record into a LogLine.
func (r *OutputReader) deliver(rec []byte, deliver func(LogLine)) {
	var o OutputRecord
	if json.Unmarshal(rec, &o) != nil || (o.Stream != Stdout && o.Stream != Stderr) {
		r.drop()
		return
	}
	if o.Time.IsZero() {
		o.Time = time.Now().UTC()
	}
	l := LogLine{Seq: r.seqBase + r.records, Time: o.Time, Stream: o.Stream, Partial: o.Partial, Dropped: r.dropped,
		Text: strings.ToValidUTF8(o.Text, "\uFFFD")}
	r.dropped = 0
	deliver(l)
}

// Close ends the reading, once the shim is gone and the file complete. It
// returns how many records were read and how many of them were dropped,
// and whether the file ends in a torn record (one the shim did not finish
// writing: it was killed, or the disk was full).
func (r *OutputReader) Close() (records, dropped uint64, torn bool) {
	if r.f != nil {
		r.f.Close()
	}
	return r.records, r.total, len(r.buf) > 0 || r.skip
}
