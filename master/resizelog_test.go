package master

import (
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/agent"
)

// TestResizeLogsEndedAttempt (trial 2026-11-29f F2): when an elastic
// task's attempt ends checkpointed to resize, the master's log names the
// attempt that ended (1), not the restart it opens (2), which the log
// says starts.
func TestResizeLogsEndedAttempt(t *testing.T) {
	logs := &lockedBuffer{}
	h := newHarness(t, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	a := h.agent("n1", 8)
	other := h.submit(jobSpec("other", 6, ""))
	h.step()
	h.sync(a, a)
	elastic := h.submit(jobSpec("elastic", 8, `, "min_slots": 2, "preemptible": true`))
	h.step()
	h.sync(a, a)
	a.Exit(tid(other, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.step() // the elastic task doubles in place: attempt 1 checkpoints
	for range 2 {
		h.sync(a)
		h.step()
	}
	id := strconv.FormatInt(elastic, 10)
	var ended []string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, `msg="attempt ended" task=`+id+"/") {
			ended = append(ended, line)
		}
	}
	if len(ended) == 0 || !strings.Contains(ended[0], "task="+id+"/0/1 ") || !strings.Contains(ended[0], "checkpointed to resize") {
		t.Fatalf("the log's first end of job %s's attempts %q, want attempt 1 checkpointed to resize; log:\n%s", id, ended, logs.String())
	}
}
