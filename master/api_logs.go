package master

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// Log reading limits.
const (
	logPage    = 1000             // lines per answer
	maxLogWait = 60 * time.Second // longest long poll
)

// jobLogs serves a job's logs (GET /jobs/{id}/logs), read from the store
// with a long poll that the agents' lines wake: a part of jobsAPI (logs),
// not embedded, so that its methods are not jobsAPI's.
type jobLogs struct {
	server
}

func (l jobLogs) handleLogs(w http.ResponseWriter, r *http.Request) {
	id, ok := l.m.access.readableJob(w, r)
	if !ok {
		return
	}
	q, err := logQuery(id, r.URL.Query())
	if err != nil {
		l.fail(w, err)
		return
	}
	wait, err := waitParam(r.URL.Query())
	if err != nil {
		l.fail(w, err)
		return
	}
	logs, err := l.read(r.Context(), q, wait)
	if err != nil {
		l.readUnavailable(w, err, "a job's logs") // outageread.go
		return
	}
	writeJSON(w, http.StatusOK, logs)
}

func logQuery(id int64, v url.Values) (store.LogQuery, error) {
	if err := onlyParams(v, "task", "after", "wait"); err != nil {
		return store.LogQuery{}, err
	}
	q := store.LogQuery{JobID: id, Limit: logPage}
	if s := v.Get("task"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return q, badRequest("task", "task %q: expected a task index >= 0", s)
		}
		q.Index = n
	}
	if s := v.Get("after"); s != "" {
		pos, err := parseCursor(s)
		if err != nil {
			return q, badRequest("after", "after %q: %v", s, err)
		}
		q.After = pos
	}
	return q, nil
}

func waitParam(v url.Values) (time.Duration, error) {
	s := v.Get("wait")
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, badRequest("wait", "wait %q: expected whole seconds >= 0", s)
	}
	return min(time.Duration(n)*time.Second, maxLogWait), nil
}

// parseCursor reads a log cursor, ATTEMPT.SEQ.
func parseCursor(s string) (store.LogPos, error) {
	a, b, ok := strings.Cut(s, ".")
	attempt, err1 := strconv.Atoi(a)
	seq, err2 := strconv.ParseInt(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || attempt < 0 || seq < 0 {
		return store.LogPos{}, fmt.Errorf("expected a cursor ATTEMPT.SEQ from an earlier answer's next")
	}
	return store.LogPos{Attempt: attempt, Seq: seq}, nil
}

func formatCursor(p store.LogPos) string {
	return strconv.Itoa(p.Attempt) + "." + strconv.FormatInt(p.Seq, 10)
}

// read reads a task's lines after the cursor, waiting up to wait for some
// when there are none yet and the job may still write.
func (l jobLogs) read(ctx context.Context, q store.LogQuery, wait time.Duration) (api.Logs, error) {
	var deadline <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		deadline = t.C
	}
	for {
		l.m.lock()
		j, live := l.m.jobs[q.JobID]
		tasks := 0
		if live {
			tasks = len(j.tasks)
		}
		wake := l.wake(q.JobID, live)
		l.m.unlock()
		if !live {
			n, err := l.m.st.Tasks(ctx, store.TaskFilter{JobID: q.JobID})
			if err != nil {
				return api.Logs{}, err
			}
			if len(n) == 0 {
				return api.Logs{}, l.notLive(ctx, q.JobID)
			}
			tasks = len(n)
		}
		if q.Index >= tasks {
			return api.Logs{}, badRequest("task", "task %d: job %d has %d tasks", q.Index, q.JobID, tasks)
		}
		lines, err := l.m.st.Logs(ctx, q)
		if err != nil {
			return api.Logs{}, err
		}
		out := api.Logs{Lines: make([]api.LogLine, len(lines)), Next: formatCursor(q.After)}
		for i, l := range lines {
			out.Lines[i] = api.LogLine{Task: l.Index, Attempt: l.Attempt, Seq: l.Seq, Time: l.Time,
				Stream: string(l.Stream), Text: l.Text}
			out.Next = formatCursor(store.LogPos{Attempt: l.Attempt, Seq: l.Seq})
		}
		if err := l.ranks(ctx, q, out.Lines); err != nil {
			return api.Logs{}, err
		}
		out.Done = !live && len(lines) < logPage
		if len(lines) > 0 || out.Done || deadline == nil {
			return out, nil
		}
		select {
		case <-wake:
		case <-deadline:
			deadline = nil // one last read, then answer
		case <-ctx.Done():
			return out, nil
		}
	}
}

// ranks says, of each line of an attempt across several nodes, which
// part printed it: the master numbered the part of rank k of n's line s
// as s*n+k (gangSeq), and the attempt's placement lists the parts in rank
// order. Lines of single-node attempts are left as they are.
func (l jobLogs) ranks(ctx context.Context, q store.LogQuery, lines []api.LogLine) error {
	if len(lines) == 0 {
		return nil
	}
	atts, err := l.m.st.Attempts(ctx, store.AttemptFilter{JobID: q.JobID})
	if err != nil {
		return fmt.Errorf("attempts for the logs' ranks: %w", err)
	}
	placed := map[int][]store.Placement{}
	for _, a := range atts {
		if a.Index == q.Index && len(a.Placement) > 1 {
			placed[a.Number] = a.Placement
		}
	}
	for i := range lines {
		ps := placed[lines[i].Attempt]
		if len(ps) < 2 {
			continue
		}
		rank := int(lines[i].Seq % int64(len(ps)))
		lines[i].Rank, lines[i].Node = &rank, ps[rank].Node
	}
	return nil
}

// wake returns a channel closed when lines arrive for the job or it
// ends; nil for a job that has ended. Callers hold mu.
func (l jobLogs) wake(id int64, live bool) chan struct{} {
	if !live {
		return nil
	}
	c, ok := l.m.logc[id]
	if !ok {
		c = make(chan struct{})
		l.m.logc[id] = c
	}
	return c
}

// onlyParams refuses query parameters other than the named ones.
func onlyParams(v url.Values, names ...string) error {
	for _, k := range slices.Sorted(maps.Keys(v)) {
		known := false
		for _, n := range names {
			known = known || k == n
		}
		if !known {
			return badRequest(k, "unknown query parameter %q (known: %s)", k, strings.Join(names, ", "))
		}
	}
	return nil
}

// parseJobID reads a job id as agents send it.
func parseJobID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("job id %q: expected a positive integer", s)
	}
	return id, nil
}
