package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testUpdateJobLimits: a change of a live job's time limit, QOS and nice
// is stored, read back, and kept in its event with the values it
// changed; a job never changed keeps its job file's QOS and nice.
func testUpdateJobLimits(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := sampleJob("j")
	job.Spec = json.RawMessage(`{"name": "j", "resources": {"slots": 2, "qos": "normal", "nice": 5}}`)
	job = mustCreate(t, s, job, 1)
	if qos, nice := job.QOSNice(); job.QOS != nil || job.Nice != nil || qos != "normal" || nice != 5 {
		t.Fatalf("a new job: QOS %v, nice %v, QOSNice %q %d; want nil, nil and its job file's normal 5", job.QOS, job.Nice, qos, nice)
	}
	limit, qos, nice := 30*time.Minute, "high", 20
	got, err := s.UpdateJob(ctx, store.JobUpdate{ID: job.ID, TimeLimit: &limit, QOS: &qos, Nice: &nice, At: at(time.Minute),
		Reason: "by ada"})
	if err != nil || got.TimeLimit != limit || got.QOS == nil || *got.QOS != "high" || got.Nice == nil || *got.Nice != 20 {
		t.Fatalf("update job: %+v, %v", got, err)
	}
	stored, err := s.Job(ctx, job.ID)
	if err != nil {
		t.Fatalf("read job: %v", err)
	}
	wantEqual(t, "stored job after update", stored, got)
	none := time.Duration(0)
	if _, err := s.UpdateJob(ctx, store.JobUpdate{ID: job.ID, TimeLimit: &none, At: at(2 * time.Minute)}); err != nil {
		t.Fatalf("remove the time limit: %v", err)
	}
	events, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil || len(events) != 3 {
		t.Fatalf("events after updates: %+v, %v; want submit and two updates", events, err)
	}
	wantReason := `time limit 1h30m0s → 30m0s, qos "normal" → "high", nice 5 → 20: by ada`
	if e := events[1]; e.Reason != wantReason || e.Change == nil {
		t.Fatalf("update event %+v, want reason %q with its change", e, wantReason)
	}
	c := events[1].Change
	if *c.FromTimeLimit != 90*time.Minute || *c.ToTimeLimit != limit || *c.FromQOS != "normal" || *c.ToQOS != "high" ||
		*c.FromNice != 5 || *c.ToNice != 20 || c.ToPriority != nil || c.ToWeight != nil {
		t.Fatalf("update event's change %+v: want time limit 90m → 30m, qos normal → high, nice 5 → 20 and nothing else", c)
	}
	if c := events[2].Change; events[2].Reason != "time limit 30m0s → none" || c == nil || *c.ToTimeLimit != 0 || c.ToQOS != nil {
		t.Fatalf("removal event %+v: want the time limit 30m → none alone", events[2])
	}
	bad := -time.Second
	_, err = s.UpdateJob(ctx, store.JobUpdate{ID: job.ID, TimeLimit: &bad})
	wantErr(t, err, store.ErrInvalid, "a negative time limit")
}
