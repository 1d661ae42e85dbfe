package agent

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// orphanShim runs task under a shim whose agent (a shell that starts the
// shim in the background) is gone at once, as after a kill -9, with the
// given output file and cap; it returns when the exit file appears.
func orphanShim(t *testing.T, task, outputFile string, maxBytes int) ExitStatus {
	t.Helper()
	exitFile := filepath.Join(t.TempDir(), ExitFileName(1, 0))
	shim := `bin=$1; shift; "$bin" ` + ShimArg + ` ` + ShimDrainArg + ` $$ ` + ShimOutputArg + ` "$@" &`
	rOut, wOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	rErr, wErr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	agent := exec.Command("/bin/sh", "-c", shim, "agent", os.Args[0], outputFile, strconv.Itoa(maxBytes), exitFile,
		"/bin/sh", "-c", task)
	agent.Stdout, agent.Stderr = wOut, wErr
	agent.ExtraFiles = []*os.File{rOut, rErr}
	if err := agent.Run(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []*os.File{wOut, wErr, rOut, rErr} {
		f.Close()
	}
	return awaitExitFile(t, exitFile)
}

// readOutputFile reads a whole output file as an adopting agent does once
// the shim is gone.
func readOutputFile(t *testing.T, path string, seqBase uint64) (lines []LogLine, records, dropped uint64, torn bool) {
	t.Helper()
	r := NewOutputReader(path, seqBase)
	if err := r.Read(func(l LogLine) { lines = append(lines, l) }); err != nil {
		t.Fatal(err)
	}
	records, dropped, torn = r.Close()
	return lines, records, dropped, torn
}

func streamTexts(lines []LogLine, s Stream) []string {
	var out []string
	for _, l := range lines {
		if l.Stream == s {
			out = append(out, l.Text)
		}
	}
	return out
}

// numbered is the output of a shell loop that echoes "PREFIX i" for i
// from 0 to n-1.
func numbered(prefix string, n int) (script string, lines []string) {
	for i := range n {
		lines = append(lines, prefix+" "+strconv.Itoa(i))
	}
	return fmt.Sprintf(`i=0; while [ $i -lt %d ]; do echo "%s $i"; i=$((i+1)); done`, n, prefix), lines
}

// TestShimKeepsOutputWhenOrphaned: a shim whose agent is gone keeps what
// the task writes in its output file, every line of it there by the time
// the exit file appears, up to the file's cap; past it, and when the file
// cannot be written, it drops lines, counts them in the exit file, and
// the task runs on to its end.
func TestShimKeepsOutputWhenOrphaned(t *testing.T) {
	// More than a pipe's 64 KiB buffer, some of it written before the
	// shim notices that its agent is gone.
	out, outLines := numbered("line", 8000)
	errScript, errLines := numbered("err", 50)
	tests := []struct {
		name       string
		task       string
		noDir      bool // the output file's directory does not exist
		maxBytes   int
		code       int
		stdout     []string // want, all of them; nil with a cap: a prefix of outLines
		stderr     []string
		dropped    bool
		errHas     string
		lastPieces int // the last stdout line is cut in this many pieces
	}{
		{name: "every line, both streams, before the exit file", task: out + "; " + errScript + " >&2; exit 3",
			maxBytes: 64 << 20, code: 3, stdout: outLines, stderr: errLines},
		{name: "a last line without a newline", task: `echo first; printf 'no newline'`, maxBytes: 1 << 20,
			stdout: []string{"first", "no newline"}},
		{name: "a line longer than MaxLineBytes is cut", task: `head -c 100000 /dev/zero | tr '\0' x`, maxBytes: 1 << 20,
			lastPieces: 2},
		{name: "over the cap the newest lines are dropped", task: out, maxBytes: 20000, dropped: true,
			errHas: "cap of 20000 bytes"},
		{name: "the file cannot be written: dropped, the task runs on", task: out + "; exit 0", noDir: true,
			maxBytes: 1 << 20, dropped: true, errHas: "output file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, OutputFileName(1, 0))
			if tt.noDir {
				path = filepath.Join(dir, "missing", OutputFileName(1, 0))
			}
			st := orphanShim(t, tt.task, path, tt.maxBytes)
			if st.ExitCode != tt.code || st.Signal != "" {
				t.Fatalf("exit status %+v, want exit code %d", st, tt.code)
			}
			if !strings.Contains(st.OutputError, tt.errHas) || (tt.errHas == "") != (st.OutputError == "") {
				t.Errorf("output error %q, want one with %q", st.OutputError, tt.errHas)
			}
			lines, records, dropped, torn := readOutputFile(t, path, 100)
			if dropped != 0 || torn {
				t.Errorf("reading the file: %d records dropped, torn %v; want a sound file", dropped, torn)
			}
			for i, l := range lines {
				if l.Seq != 100+uint64(i)+1 || l.Dropped != 0 {
					t.Fatalf("line %d: seq %d dropped %d, want seq %d", i, l.Seq, l.Dropped, 100+i+1)
				}
			}
			if fi, err := os.Stat(path); err == nil && fi.Size() > int64(tt.maxBytes) {
				t.Errorf("output file of %d bytes, over its cap of %d", fi.Size(), tt.maxBytes)
			}
			stdout := streamTexts(lines, Stdout)
			switch {
			case tt.lastPieces > 0:
				if len(lines) != tt.lastPieces || !lines[0].Partial || lines[len(lines)-1].Partial ||
					len(strings.Join(stdout, "")) != 100000 {
					t.Errorf("%d lines, want one of 100000 bytes in %d pieces", len(lines), tt.lastPieces)
				}
			case tt.dropped:
				if kept := uint64(len(stdout)); st.OutputDropped == 0 || kept+st.OutputDropped != uint64(len(outLines)) ||
					!slices.Equal(stdout, outLines[:kept]) {
					t.Errorf("kept %d lines and dropped %d, want the first of %d lines kept and the rest dropped",
						kept, st.OutputDropped, len(outLines))
				}
			default:
				if !slices.Equal(stdout, tt.stdout) || !slices.Equal(streamTexts(lines, Stderr), tt.stderr) ||
					st.OutputDropped != 0 || records != uint64(len(lines)) {
					t.Errorf("output file: %d stdout lines, %d stderr lines, %d dropped by the shim; want %d and %d, none dropped",
						len(stdout), len(streamTexts(lines, Stderr)), st.OutputDropped, len(tt.stdout), len(tt.stderr))
				}
			}
		})
	}
}

// TestOutputReader: a reader takes what is complete, waits for the rest
// of a record being written, and drops what is not a sound record,
// counting it on the next line and leaving its number unused.
func TestOutputReader(t *testing.T) {
	rec := func(s Stream, text string) string {
		return `{"time":"2026-01-01T00:00:00Z","stream":"` + string(s) + `","text":"` + text + `"}` + "\n"
	}
	tests := []struct {
		name    string
		writes  []string // appended one after another, read after each
		seqs    []uint64
		drops   []uint64 // each line's Dropped
		dropped uint64
		torn    bool
	}{
		{name: "complete records", writes: []string{rec(Stdout, "a") + rec(Stderr, "b")}, seqs: []uint64{1, 2}, drops: []uint64{0, 0}},
		{name: "a record written in two parts", writes: []string{rec(Stdout, "a")[:10], rec(Stdout, "a")[10:]},
			seqs: []uint64{1}, drops: []uint64{0}},
		{name: "a torn last record", writes: []string{rec(Stdout, "a") + `{"stream":"std`}, seqs: []uint64{1}, drops: []uint64{0}, torn: true},
		{name: "unsound records are dropped and counted on the next line",
			writes: []string{"not json\n" + rec("stdin", "x") + rec(Stdout, "a")}, seqs: []uint64{3}, drops: []uint64{2}, dropped: 2},
		{name: "an oversized record is dropped", writes: []string{strings.Repeat("x", maxRecordBytes+10), "\n" + rec(Stdout, "a")},
			seqs: []uint64{2}, drops: []uint64{1}, dropped: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), OutputFileName(0, 0))
			r := NewOutputReader(path, 0)
			var lines []LogLine
			if err := r.Read(func(l LogLine) { lines = append(lines, l) }); err != nil || len(lines) != 0 {
				t.Fatalf("before the file exists: %d lines, err %v; want none", len(lines), err)
			}
			for _, w := range tt.writes {
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.WriteString(w); err != nil {
					t.Fatal(err)
				}
				f.Close()
				if err := r.Read(func(l LogLine) { lines = append(lines, l) }); err != nil {
					t.Fatal(err)
				}
			}
			_, dropped, torn := r.Close()
			var seqs, drops []uint64
			for _, l := range lines {
				seqs, drops = append(seqs, l.Seq), append(drops, l.Dropped)
			}
			if !slices.Equal(seqs, tt.seqs) || !slices.Equal(drops, tt.drops) || dropped != tt.dropped || torn != tt.torn {
				t.Errorf("seqs %v, drops %v, dropped %d, torn %v; want %v, %v, %d, %v",
					seqs, drops, dropped, torn, tt.seqs, tt.drops, tt.dropped, tt.torn)
			}
		})
	}
}
