package storetest

import (
	"math"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testNoteLostExit: a lost attempt's end reported late is noted on it
// (its reported end and reason, its exit), with an event and its usage
// cut at the exit, in one transaction, once; its end and its task stay
// as they were. One that does not match what the store has changes
// nothing.
func testNoteLostExit(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := lostJob(t, s, nil)
	note := func(change func(*store.LostExit)) store.LostExit {
		l := store.LostExit{JobID: job.ID, Attempt: 1, End: store.AttemptPreempted, ExitedAt: at(time.Minute),
			Reason: "stopped by its task shim's fence", At: at(3 * time.Minute), Note: "fenced"}
		if change != nil {
			change(&l)
		}
		return l
	}
	for _, c := range []struct {
		name   string
		change func(*store.LostExit)
		want   error
	}{
		{"another attempt", func(l *store.LostExit) { l.Attempt = 2 }, store.ErrNotFound},
		{"exit at the end", func(l *store.LostExit) { l.ExitedAt = at(2 * time.Minute) }, store.ErrInvalid},
		{"exit before the start", func(l *store.LostExit) { l.ExitedAt = at(-time.Second) }, store.ErrInvalid},
		{"lost is no agent's end", func(l *store.LostExit) { l.End = store.AttemptLost }, store.ErrInvalid},
		{"no exit time", func(l *store.LostExit) { l.ExitedAt = time.Time{} }, store.ErrInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.NoteLostExit(ctx, note(c.change))
			wantErr(t, err, c.want, "note")
		})
	}
	before, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil {
		t.Fatal(err)
	}
	trims, err := s.NoteLostExit(ctx, note(nil))
	if err != nil || len(trims) != 1 || !trims[0].After.End.Equal(at(time.Minute)) ||
		math.Abs(trims[0].After.GPUSeconds-60) > 1e-9 || math.Abs(trims[0].Before.GPUSeconds-180) > 1e-9 {
		t.Fatalf("note: trims %+v, %v; want the second record cut to 30s..1m, 60 GPU-seconds", trims, err)
	}
	atts, err := s.Attempts(ctx, store.AttemptFilter{JobID: job.ID})
	if err != nil || len(atts) != 1 || atts[0].EndState != store.AttemptLost || !atts[0].EndedAt.Equal(at(2*time.Minute)) ||
		!atts[0].ExitedAt.Equal(at(time.Minute)) || atts[0].ReportedEnd != store.AttemptPreempted ||
		atts[0].ReportedReason != "stopped by its task shim's fence" || atts[0].ExitCode != nil {
		t.Fatalf("attempts %+v, %v; want one lost at 2m, exited at 1m, reported preempted", atts, err)
	}
	if tasks, err := s.Tasks(ctx, store.TaskFilter{JobID: job.ID}); err != nil || len(tasks) != 1 || tasks[0].State != store.TaskFailed {
		t.Fatalf("tasks %+v, %v; want one failed as it was", tasks, err)
	}
	after, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil || len(after) != len(before)+1 || after[len(after)-1].From != "lost" || after[len(after)-1].To != "lost" ||
		after[len(after)-1].Reason != "fenced" || after[len(after)-1].Attempt != 1 {
		t.Fatalf("events %+v, %v; want the note's added", after, err)
	}
	_, err = s.NoteLostExit(ctx, note(nil))
	wantErr(t, err, store.ErrConflict, "note again")
}
