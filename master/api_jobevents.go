package master

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// A job's event log: GET /jobs/{id}/events (allot job events). The store
// keeps every transition of a job and of its tasks, and every change of
// it, with the reason; explain reads them for its preemptions, and the
// docs promised that a job's updates are "logged in the job's events",
// but nothing showed them. Whoever may read the job (GET /jobs/{id}'s
// rule) may read them; their reasons name other jobs by number only.

// maxJobEvents caps one answer; more are paged with after.
const maxJobEvents = 10000

func (ja *jobsAPI) handleJobEvents(w http.ResponseWriter, r *http.Request) {
	id, ok := ja.m.access.readableJob(w, r)
	if !ok {
		return
	}
	f, err := jobEventsFilter(id, r.URL.Query())
	if err != nil {
		ja.fail(w, err)
		return
	}
	// The job must exist; a job with no events yet answers an empty log.
	if _, err := ja.job(r.Context(), id, ja.asOf()); err != nil {
		ja.fail(w, err)
		return
	}
	limit := f.Limit
	f.Limit++ // one more, to tell whether there are more
	evs, err := ja.m.st.Events(r.Context(), f)
	if err != nil {
		ja.fail(w, err)
		return
	}
	out := api.JobEvents{Job: id, Events: make([]api.JobEvent, 0, min(len(evs), limit))}
	if len(evs) > limit {
		evs, out.More = evs[:limit], true
	}
	for _, e := range evs {
		out.Events = append(out.Events, jobEventView(e))
	}
	writeJSON(w, http.StatusOK, out)
}

// jobEventsFilter reads GET /jobs/{id}/events's query: after (a Seq) and
// limit (1000 unless given).
func jobEventsFilter(id int64, q url.Values) (store.EventFilter, error) {
	f := store.EventFilter{JobID: id, Limit: 1000, Notes: true}
	if err := onlyParams(q, "after", "limit"); err != nil {
		return f, err
	}
	if s := q.Get("after"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return f, badRequest("after", "after %q: expected an event's seq, an integer >= 0", s)
		}
		f.AfterSeq = n
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxJobEvents {
			return f, badRequest("limit", "limit %q: expected 1..%d", s, maxJobEvents)
		}
		f.Limit = n
	}
	return f, nil
}

func jobEventView(e store.Event) api.JobEvent {
	v := api.JobEvent{Seq: e.Seq, At: e.At, Attempt: e.Attempt, From: e.From, To: e.To, Reason: e.Reason,
		Cause: string(e.Cause), Why: e.Why, ForJob: e.ForJob, PartRan: e.PartRan}
	if e.Index >= 0 {
		v.Task = &e.Index
	}
	return v
}
