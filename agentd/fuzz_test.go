package agentd

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// FuzzMasterReply feeds the agent arbitrary replies from the master (any
// status, any body) and runs every command it decodes through the checks
// a start or stop goes through before anything runs: nothing panics, a
// reply is either decoded or an error, and every start that passes the
// checks names this node's GPUs and an absolute working directory.
// Nothing is executed: the commands come from the fuzzer.
func FuzzMasterReply(f *testing.F) {
	f.Add(200, []byte(`{"commands": [{"type": "start", "task": {"job_id": "1", "task_index": 0, "attempt": 1},
		"start": {"job_id": "1", "task_index": 0, "attempt": 1, "entrypoint": "true", "gpus": [0, 1]}}]}`))
	f.Add(200, []byte(`{"commands": [{"type": "kill", "task": {"job_id": "1", "task_index": 0, "attempt": 1}, "grace_s": 5}]}`))
	f.Add(200, []byte(`{"commands": [{"type": "start", "start": {"job_id": "..", "work_dir": "rel", "gpus": [9]}}]}`))
	f.Add(200, []byte(`{"acked": -1, "commands": null}`))
	f.Add(404, []byte(`{"error": "node is not registered"}`))
	f.Add(503, []byte("<html>"))
	f.Add(200, []byte(`{"commands": [{"type": "start", "start": {"job_id": "1", "entrypoint": "x", "hyperparameters": [1]}}]}`))
	var status int
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		w.Write(body)
	}))
	f.Cleanup(srv.Close)
	dir := f.TempDir()
	a, err := New(Config{Master: srv.URL, Name: "node-1", Pool: "default", GPUs: agent.Fake(2, "h100"), WorkDir: dir})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, st int, data []byte) {
		if st < 200 || st > 599 { // 1xx are interim answers, not replies
			st = 200 + (st%400+400)%400
		}
		status, body = st, data
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var reply api.SyncReply
		err := a.conn.post(ctx, "/agents/node-1/sync", 5*time.Second, api.Sync{}, &reply)
		if st < 200 || st > 299 {
			if err == nil {
				t.Fatalf("status %d accepted", st)
			}
			return
		}
		if err != nil {
			return
		}
		for _, c := range reply.Commands {
			if c.Type != api.CommandStart || c.Start == nil {
				continue
			}
			spec := *c.Start
			if a.prepare(&spec) != nil || spec.Validate() != nil {
				continue
			}
			if !filepath.IsAbs(spec.WorkDir) {
				t.Fatalf("accepted a start with work dir %q", spec.WorkDir)
			}
			if spec.WorkDir == filepath.Join(dir, JobsDirName) || strings.Contains(spec.JobID, "/") && strings.HasPrefix(spec.WorkDir, dir) {
				t.Fatalf("job id %q escapes to work dir %q", spec.JobID, spec.WorkDir)
			}
			for _, g := range spec.GPUs {
				if g < 0 || g > 1 {
					t.Fatalf("accepted a start on GPU %d of a 2-GPU node", g)
				}
			}
		}
	})
}

// FuzzLocalFiles feeds the agent's own files (the state file, the report
// journal, and a task shim's exit file and output file) arbitrary bytes,
// as a crash, a full disk or a hand edit could leave them: each is read
// or refused with an error naming the file, never a panic, and what is
// accepted is sound.
func FuzzLocalFiles(f *testing.F) {
	f.Add(0, []byte(`{"version":1,"agent_pid":7,"attempts":[{"task":{"job_id":"1","task_index":0,"attempt":1},"pgid":42,"work_dir":"/w"}]}`))
	f.Add(1, []byte(`{"version":1,"reports":[{"seq":1,"task":{"job_id":"1","task_index":0,"attempt":1},"event":"exited","outcome":"completed"}]}`))
	f.Add(2, []byte(`{"exit_code":0,"exited_at":"2026-01-01T00:00:00Z"}`))
	f.Add(2, []byte(`{"exit_code":-1,"signal":"SIGKILL"}`))
	f.Add(0, []byte(`{"version":1,"attempts":[{"pgid":1}]}`))
	f.Add(1, []byte(`{"version":9}`))
	f.Add(2, []byte(`{"exit_code":0,"output_dropped":12,"output_error":"the output file reached its cap of 100 bytes"}`))
	f.Add(3, []byte(`{"time":"2026-01-01T00:00:00Z","stream":"stdout","text":"epoch 1"}`+"\n"+
		`{"time":"2026-01-01T00:00:01Z","stream":"stderr","text":"x","partial":true}`+"\n"+`{"stream":"std`))
	f.Add(3, []byte("not json\n{\"stream\":\"stdin\",\"text\":\"\\ud800\"}\n\n"))
	f.Fuzz(func(t *testing.T, which int, data []byte) {
		dir := t.TempDir()
		switch (which%4 + 4) % 4 {
		case 0:
			path := filepath.Join(dir, StateFileName)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			st, err := readState(path)
			if err != nil {
				if !strings.Contains(err.Error(), path) && !strings.Contains(err.Error(), "state file") {
					t.Fatalf("error %q does not name the file", err)
				}
				return
			}
			for _, r := range st.Attempts {
				if r.Pgid <= 1 {
					t.Fatalf("accepted a process group id %d", r.Pgid)
				}
			}
		case 1:
			fm := newFakeMaster(t)
			cfg := testConfig(t, fm, dir)
			a, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(a.journal.path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := a.replayJournal(); err != nil {
				t.Fatalf("a bad journal stopped the agent: %v", err)
			}
			for _, r := range a.reports {
				if r.Event != api.EventExited || checkReplayed(r) != nil {
					t.Fatalf("replayed a report it should have dropped: %+v", r)
				}
			}
		case 2:
			path := filepath.Join(dir, agent.ExitFileName(1, 0))
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			st, ok, err := agent.ReadExitFile(path)
			if ok && (st.ExitCode < -1 || st.ExitCode > 255 || (st.ExitCode == -1) != (st.Signal != "")) {
				t.Fatalf("accepted exit status %+v", st)
			}
			if !ok && err == nil {
				t.Fatal("an existing exit file was neither read nor refused")
			}
		case 3:
			checkOutputFile(t, filepath.Join(dir, agent.OutputFileName(1, 0)), data)
		}
	})
}

// checkOutputFile reads data as a shim's output file, in two parts as a
// reader may find it: every line is a record, delivered with the next
// Seq above its base or dropped and counted, and an unfinished last
// record is reported torn.
func checkOutputFile(t *testing.T, path string, data []byte) {
	const base = adoptOutputSeqBase
	r := agent.NewOutputReader(path, base)
	var lines []agent.LogLine
	deliver := func(l agent.LogLine) { lines = append(lines, l) }
	half := len(data) / 2
	for _, part := range [][]byte{data[:half], data[half:]} {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Write(part)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Read(deliver); err != nil {
			t.Fatalf("reading an output file: %v", err)
		}
	}
	records, dropped, torn := r.Close()
	if want := uint64(bytes.Count(data, []byte("\n"))); records != want || uint64(len(lines))+dropped != records {
		t.Fatalf("%d records, %d delivered, %d dropped; want %d records, each delivered or dropped", records, len(lines), dropped, want)
	}
	if torn != (len(data) > 0 && data[len(data)-1] != '\n') {
		t.Fatalf("torn %v for a file ending in %q", torn, data[max(len(data)-10, 0):])
	}
	seq, drops := uint64(base), uint64(0)
	for _, l := range lines {
		drops += l.Dropped
		if l.Seq <= seq || l.Seq > base+records || l.Seq-seq-1 != l.Dropped ||
			(l.Stream != agent.Stdout && l.Stream != agent.Stderr) || !utf8.ValidString(l.Text) {
			t.Fatalf("line %+v after seq %d of %d records", l, seq, records)
		}
		seq = l.Seq
	}
	if drops > dropped {
		t.Fatalf("lines count %d dropped, the reader %d", drops, dropped)
	}
}
