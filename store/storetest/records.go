package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

func testListJobs(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	var ids []int64
	for i, spec := range []struct{ pool, project, user string }{
		{"a100", "vision", "ada"}, {"h100", "nlp", "bob"}, {"a100", "nlp", "ada"}, {"h100", "vision", "cy"},
	} {
		j := sampleJob(fmt.Sprintf("job%d", i))
		j.Pool, j.Project, j.User = spec.pool, spec.project, spec.user
		j.SubmittedAt = at(time.Duration(i) * time.Hour)
		ids = append(ids, mustCreate(t, s, j, 1).ID)
	}
	if _, err := s.TransitionJob(ctxOf(t), store.JobTransition{ID: ids[2], From: store.JobQueued, To: store.JobRunning}); err != nil {
		t.Fatalf("start job: %v", err)
	}
	cases := []struct {
		name string
		f    store.JobFilter
		want []int64
	}{
		{"all", store.JobFilter{}, ids},
		{"pool", store.JobFilter{Pool: "a100"}, []int64{ids[0], ids[2]}},
		{"project", store.JobFilter{Project: "nlp"}, []int64{ids[1], ids[2]}},
		{"user", store.JobFilter{User: "ada"}, []int64{ids[0], ids[2]}},
		{"state", store.JobFilter{States: []store.JobState{store.JobRunning}}, []int64{ids[2]}},
		{"states", store.JobFilter{States: []store.JobState{store.JobRunning, store.JobQueued}}, ids},
		{"pool and project", store.JobFilter{Pool: "h100", Project: "vision"}, []int64{ids[3]}},
		{"page 1", store.JobFilter{Limit: 3}, ids[:3]},
		{"page 2", store.JobFilter{AfterID: ids[2], Limit: 3}, ids[3:]},
		{"newest first", store.JobFilter{Desc: true, Limit: 3}, []int64{ids[3], ids[2], ids[1]}},
		{"newest first, page 2", store.JobFilter{Desc: true, BeforeID: ids[1], Limit: 3}, ids[:1]},
		{"before and after", store.JobFilter{AfterID: ids[0], BeforeID: ids[3]}, ids[1:3]},
		{"submitted since", store.JobFilter{SubmittedSince: at(time.Hour)}, ids[1:]},
		{"submitted in a window", store.JobFilter{SubmittedSince: at(time.Hour), SubmittedBefore: at(3 * time.Hour)}, ids[1:3]},
		{"since and a filter", store.JobFilter{SubmittedSince: at(time.Hour), Pool: "a100"}, ids[2:3]},
		{"active since, none ended", store.JobFilter{ActiveSince: at(time.Hour)}, ids},
		{"nothing", store.JobFilter{Pool: "tpu"}, nil},
		{"in projects", store.JobFilter{InProjects: []string{"vision", "nlp"}, Pool: "a100"}, []int64{ids[0], ids[2]}},
		{"in projects and project", store.JobFilter{InProjects: []string{"vision"}, Project: "nlp"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			jobs, err := s.Jobs(ctx, c.f)
			if err != nil {
				t.Fatalf("list jobs: %v", err)
			}
			var got []int64
			for _, j := range jobs {
				got = append(got, j.ID)
			}
			wantEqual(t, "job ids", got, c.want)
		})
	}
	// A job that ended before a window's start was not active in it.
	if _, err := s.TransitionJob(ctx, store.JobTransition{ID: ids[0], From: store.JobQueued, To: store.JobKilled,
		At: at(30 * time.Minute)}); err != nil {
		t.Fatalf("kill job: %v", err)
	}
	jobs, err := s.Jobs(ctx, store.JobFilter{ActiveSince: at(time.Hour)})
	if err != nil || len(jobs) != 3 || jobs[0].ID != ids[1] {
		t.Fatalf("jobs active since 1h: %+v (%v), want all but the one that ended at 30m", jobs, err)
	}
}

func testLogs(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("logger"), 1)
	line := func(attempt int, seq int64, stream store.Stream) store.LogLine {
		return store.LogLine{JobID: job.ID, Attempt: attempt, Seq: seq, Stream: stream,
			Time: at(time.Duration(seq) * time.Millisecond), Text: fmt.Sprintf("a%d line %d ünïcode\ttab", attempt, seq)}
	}
	var want []store.LogLine
	for attempt := 1; attempt <= 2; attempt++ {
		tr := store.TaskTransition{JobID: job.ID, From: store.TaskQueued, To: store.TaskStarting, Placement: placement("n1", 0)}
		move(t, s, tr)
		var batch []store.LogLine
		for seq := int64(1); seq <= 250; seq++ { // more than one multi-row insert
			stream := store.Stdout
			if seq%3 == 0 {
				stream = store.Stderr
			}
			batch = append(batch, line(attempt, seq, stream))
		}
		// Sent in two batches, the second overlapping the first (a resend).
		if err := s.AppendLogs(ctx, batch[:150]); err != nil {
			t.Fatalf("append logs: %v", err)
		}
		if err := s.AppendLogs(ctx, batch[100:]); err != nil {
			t.Fatalf("append overlapping logs: %v", err)
		}
		want = append(want, batch...)
		move(t, s, store.TaskTransition{JobID: job.ID, From: store.TaskStarting, To: store.TaskQueued,
			End: &store.AttemptEnd{State: store.AttemptPreempted}})
	}
	all, err := s.Logs(ctx, store.LogQuery{JobID: job.ID})
	if err != nil {
		t.Fatalf("read logs: %v", err)
	}
	wantEqual(t, "all log lines", all, want)

	// Follow the logs in pages of 70, as `logs -f` would.
	var paged []store.LogLine
	var after store.LogPos
	for pages := 0; ; pages++ {
		page, err := s.Logs(ctx, store.LogQuery{JobID: job.ID, After: after, Limit: 70})
		if err != nil {
			t.Fatalf("read logs page: %v", err)
		}
		if len(page) == 0 {
			if pages != 8 { // ceil(500/70)
				t.Fatalf("%d pages, want 8", pages)
			}
			break
		}
		paged = append(paged, page...)
		last := page[len(page)-1]
		after = store.LogPos{Attempt: last.Attempt, Seq: last.Seq}
	}
	wantEqual(t, "paged log lines", paged, want)

	second, err := s.Logs(ctx, store.LogQuery{JobID: job.ID, Attempt: 2, After: store.LogPos{Attempt: 2, Seq: 245}})
	if err != nil || len(second) != 5 || second[0].Seq != 246 || second[0].Attempt != 2 {
		t.Fatalf("attempt 2 after seq 245: %d lines (error %v), want seq 246..250", len(second), err)
	}
	cases := []struct {
		name string
		line store.LogLine
		want error
	}{
		{"unknown attempt", line(3, 1, store.Stdout), store.ErrNotFound},
		{"unknown job", store.LogLine{JobID: job.ID + 1, Attempt: 1, Seq: 1, Stream: store.Stdout}, store.ErrNotFound},
		{"seq 0", line(1, 0, store.Stdout), store.ErrInvalid},
		{"attempt 0", line(0, 1, store.Stdout), store.ErrInvalid},
		{"unknown stream", line(1, 1, "stdin"), store.ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantErr(t, s.AppendLogs(ctx, []store.LogLine{c.line}), c.want, "append "+c.name)
		})
	}
}

// testNodes runs the node steps in order on one store: each step starts
// from the state the one before left.
func testNodes(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	gpus := []store.GPU{{Index: 0, UUID: "GPU-a", Type: "h100", MemoryMiB: 81559}, {Index: 1, UUID: "GPU-b", Type: "h100", MemoryMiB: 81559}}
	registerNodes(t, ctx, s, gpus)
	reregisterNode(t, ctx, s, gpus)
	evs := checkNodeHistory(t, ctx, s)
	leaveAndReturn(t, ctx, s, evs)
}

// registerNodes registers gpu-1 and cpu-1, loses gpu-1, and checks the
// errors of moves that do not apply.
func registerNodes(t *testing.T, ctx context.Context, s store.Store, gpus []store.GPU) {
	first, err := s.UpsertNode(ctx, store.Node{Name: "gpu-1", Pool: "h100", Labels: map[string]string{"rack": "r1"},
		GPUs: gpus, HeartbeatAt: at(time.Minute)})
	want := store.Node{Name: "gpu-1", Pool: "h100", Labels: map[string]string{"rack": "r1"}, GPUs: gpus,
		State: store.NodeUp, RegisteredAt: at(time.Minute), HeartbeatAt: at(time.Minute)}
	if err != nil {
		t.Fatalf("register node: %v", err)
	}
	wantEqual(t, "registered node", first, want)
	if _, err := s.UpsertNode(ctx, store.Node{Name: "cpu-1", Pool: "cpu", HeartbeatAt: at(time.Minute)}); err != nil {
		t.Fatalf("register node without GPUs: %v", err)
	}
	if err := s.Heartbeat(ctx, "gpu-1", at(2*time.Minute)); err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
	if err := s.SetNodeState(ctx, "gpu-1", store.NodeUp, store.NodeLost, at(150*time.Second)); err != nil {
		t.Fatalf("mark lost: %v", err)
	}
	wantErr(t, s.SetNodeState(ctx, "gpu-1", store.NodeUp, store.NodeLost, at(0)), store.ErrConflict, "mark lost twice")
	wantErr(t, s.SetNodeState(ctx, "gpu-9", store.NodeUp, store.NodeLost, at(0)), store.ErrNotFound, "mark a missing node")
	wantErr(t, s.SetNodeState(ctx, "gpu-1", store.NodeLost, "gone", at(0)), store.ErrInvalid, "unknown node state")
	wantErr(t, s.Heartbeat(ctx, "gpu-9", at(0)), store.ErrNotFound, "heartbeat of a missing node")
	_, err = s.UpsertNode(ctx, store.Node{Name: "gpu-2", GPUs: []store.GPU{{Index: 0}, {Index: 0}}})
	wantErr(t, err, store.ErrInvalid, "register a node with a repeated GPU index")
}

// reregisterNode registers gpu-1 again and lists the nodes.
func reregisterNode(t *testing.T, ctx context.Context, s store.Store, gpus []store.GPU) {
	// Re-registration (the agent restarted) replaces everything but keeps
	// the first registration time, and brings the node back up.
	again, err := s.UpsertNode(ctx, store.Node{Name: "gpu-1", Pool: "h100b", GPUs: gpus[:1], HeartbeatAt: at(3 * time.Minute)})
	if err != nil {
		t.Fatalf("re-register node: %v", err)
	}
	want := store.Node{Name: "gpu-1", Pool: "h100b", GPUs: gpus[:1], State: store.NodeUp,
		RegisteredAt: at(time.Minute), HeartbeatAt: at(3 * time.Minute)}
	wantEqual(t, "re-registered node", again, want)
	if err := s.Heartbeat(ctx, "gpu-1", at(4*time.Minute)); err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
	nodes, err := s.Nodes(ctx)
	if err != nil || len(nodes) != 2 || nodes[0].Name != "cpu-1" {
		t.Fatalf("nodes %+v (error %v), want cpu-1 then gpu-1", nodes, err)
	}
	want.HeartbeatAt = at(4 * time.Minute)
	wantEqual(t, "listed node", nodes[1], want)
}

// checkNodeHistory checks the node events so far and returns them.
func checkNodeHistory(t *testing.T, ctx context.Context, s store.Store) []store.NodeEvent {
	// The history: first registrations, the loss, the return; a
	// heartbeat or a registration of a node that is up adds nothing.
	if _, err := s.UpsertNode(ctx, store.Node{Name: "cpu-1", Pool: "cpu", HeartbeatAt: at(5 * time.Minute)}); err != nil {
		t.Fatalf("register an up node again: %v", err)
	}
	evs, err := s.NodeEvents(ctx, store.NodeEventFilter{})
	if err != nil {
		t.Fatalf("node events: %v", err)
	}
	type ev struct {
		node     string
		from, to store.NodeState
		at       time.Time
	}
	var got []ev
	for i, e := range evs {
		if i > 0 && e.Seq <= evs[i-1].Seq {
			t.Errorf("node event seq %d after %d: want increasing", e.Seq, evs[i-1].Seq)
		}
		got = append(got, ev{e.Node, e.From, e.To, e.At})
	}
	wantEqual(t, "node events", got, []ev{{"gpu-1", "", store.NodeUp, at(time.Minute)}, {"cpu-1", "", store.NodeUp, at(time.Minute)},
		{"gpu-1", store.NodeUp, store.NodeLost, at(150 * time.Second)},
		// Its return in another pool with one GPU changed its inventory.
		{"gpu-1", store.NodeLost, store.NodeReshaped, at(3 * time.Minute)}, {"gpu-1", store.NodeLost, store.NodeUp, at(3 * time.Minute)}})
	since, err := s.NodeEvents(ctx, store.NodeEventFilter{Since: at(150 * time.Second)})
	if err != nil || len(since) != 3 || since[0].To != store.NodeLost {
		t.Errorf("node events since the loss: %+v (error %v), want the loss, the new inventory and the return", since, err)
	}
	after, err := s.NodeEvents(ctx, store.NodeEventFilter{AfterSeq: evs[3].Seq})
	if err != nil || len(after) != 1 || after[0].Seq != evs[4].Seq {
		t.Errorf("node events after the new inventory: %+v (error %v), want the return", after, err)
	}
	return evs
}

// leaveAndReturn marks cpu-1 left and registers it again; evs are the
// events before.
func leaveAndReturn(t *testing.T, ctx context.Context, s store.Store, evs []store.NodeEvent) {
	// A node whose agent said goodbye is left, and a registration brings
	// it back up; both moves are in the history.
	if err := s.SetNodeState(ctx, "cpu-1", store.NodeUp, store.NodeLeft, at(6*time.Minute)); err != nil {
		t.Fatalf("mark left: %v", err)
	}
	if nodes, err := s.Nodes(ctx); err != nil || nodes[0].State != store.NodeLeft {
		t.Fatalf("nodes %+v (error %v), want cpu-1 left", nodes, err)
	}
	if _, err := s.UpsertNode(ctx, store.Node{Name: "cpu-1", Pool: "cpu", HeartbeatAt: at(7 * time.Minute)}); err != nil {
		t.Fatalf("register a node that left: %v", err)
	}
	left, err := s.NodeEvents(ctx, store.NodeEventFilter{AfterSeq: evs[4].Seq})
	if err != nil || len(left) != 2 || left[0].From != store.NodeUp || left[0].To != store.NodeLeft ||
		left[1].From != store.NodeLeft || left[1].To != store.NodeUp {
		t.Errorf("node events after the return: %+v (error %v), want the leave and the return", left, err)
	}
}

func testUsage(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	var recs []store.Usage
	for i, pool := range []string{"a100", "h100", "a100"} {
		u, err := s.RecordUsage(ctx, store.Usage{Project: "vision", User: "ada", Pool: pool, JobID: int64(i + 1),
			Attempt: 1, Start: at(time.Duration(i) * time.Hour), End: at(time.Duration(i)*time.Hour + 30*time.Minute),
			GPUSeconds: 1800 * float64(i+1)})
		if err != nil {
			t.Fatalf("record usage: %v", err)
		}
		if len(recs) > 0 && u.ID <= recs[len(recs)-1].ID {
			t.Fatalf("usage id %d after %d: want increasing", u.ID, recs[len(recs)-1].ID)
		}
		recs = append(recs, u)
	}
	cases := []struct {
		name string
		f    store.UsageFilter
		want []store.Usage
	}{
		{"all", store.UsageFilter{}, recs},
		{"since", store.UsageFilter{Since: at(time.Hour + 30*time.Minute)}, recs[1:]},
		{"pool", store.UsageFilter{Pool: "a100"}, []store.Usage{recs[0], recs[2]}},
		{"page", store.UsageFilter{AfterID: recs[0].ID, Limit: 1}, recs[1:2]},
		{"jobs from 2", store.UsageFilter{FromJobID: 2}, recs[1:]},
		{"jobs 1 to 2", store.UsageFilter{FromJobID: 1, ToJobID: 2}, recs[:2]},
		{"jobs 1 and 3", store.UsageFilter{JobIDs: []int64{3, 1}}, []store.Usage{recs[0], recs[2]}},
		{"no jobs", store.UsageFilter{JobIDs: []int64{}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.Usage(ctx, c.f)
			if err != nil {
				t.Fatalf("list usage: %v", err)
			}
			wantEqual(t, "usage", got, c.want)
		})
	}
	bad := []store.Usage{
		{Pool: "a100", Start: at(time.Hour), End: at(0), GPUSeconds: 1},
		{Pool: "a100", Start: at(0), End: at(time.Hour), GPUSeconds: -1},
		{Pool: "a100", End: at(time.Hour), GPUSeconds: 1},
	}
	for i, u := range bad {
		_, err := s.RecordUsage(ctx, u)
		wantErr(t, err, store.ErrInvalid, fmt.Sprintf("record bad usage %d", i))
	}
}

func testEvents(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	a := mustCreate(t, s, sampleJob("a"), 1)
	b := mustCreate(t, s, sampleJob("b"), 1)
	if _, err := s.TransitionJob(ctx, store.JobTransition{ID: a.ID, From: store.JobQueued, To: store.JobKilled,
		At: at(time.Minute), Reason: "killed by ada"}); err != nil {
		t.Fatalf("kill job: %v", err)
	}
	all, err := s.Events(ctx, store.EventFilter{})
	if err != nil || len(all) != 3 {
		t.Fatalf("%d events (error %v), want 3", len(all), err)
	}
	wantEqual(t, "submit event", all[0], store.Event{Seq: all[0].Seq, JobID: a.ID, Index: -1, To: "queued",
		At: a.SubmittedAt, Reason: "submitted"})
	wantEqual(t, "kill event", all[2], store.Event{Seq: all[2].Seq, JobID: a.ID, Index: -1, From: "queued",
		To: "killed", At: at(time.Minute), Reason: "killed by ada"})
	ofA, err := s.Events(ctx, store.EventFilter{JobID: a.ID})
	if err != nil || len(ofA) != 2 || ofA[1].Seq != all[2].Seq {
		t.Fatalf("events of job a: %+v (error %v)", ofA, err)
	}
	after, err := s.Events(ctx, store.EventFilter{AfterSeq: all[0].Seq, Limit: 1})
	if err != nil || len(after) != 1 || after[0].JobID != b.ID {
		t.Fatalf("one event after the first: %+v (error %v), want job b's submission", after, err)
	}
	testEventsByTime(t, s, b)
}

// testEventsByTime checks the Since and To filters on preemptions, which
// the master reads for preemption budgets.
func testEventsByTime(t *testing.T, s store.Store, job store.Job) {
	ctx := ctxOf(t)
	move(t, s, store.TaskTransition{JobID: job.ID, Index: 0, From: store.TaskQueued, To: store.TaskStarting,
		Placement: placement("n1", 0), At: at(time.Hour)})
	move(t, s, store.TaskTransition{JobID: job.ID, Index: 0, From: store.TaskStarting, To: store.TaskPreempting,
		At: at(2 * time.Hour), Reason: "first"})
	move(t, s, store.TaskTransition{JobID: job.ID, Index: 0, From: store.TaskPreempting, To: store.TaskQueued,
		At: at(3 * time.Hour), End: &store.AttemptEnd{State: store.AttemptPreempted}})
	move(t, s, store.TaskTransition{JobID: job.ID, Index: 0, From: store.TaskQueued, To: store.TaskStarting,
		Placement: placement("n1", 0), At: at(4 * time.Hour)})
	move(t, s, store.TaskTransition{JobID: job.ID, Index: 0, From: store.TaskStarting, To: store.TaskPreempting,
		At: at(5 * time.Hour), Reason: "second"})
	cases := []struct {
		name string
		f    store.EventFilter
		want []string // reasons
	}{
		{"preemptions", store.EventFilter{To: "preempting"}, []string{"first", "second"}},
		{"preemptions since", store.EventFilter{To: "preempting", Since: at(2*time.Hour + 1)}, []string{"second"}},
		{"since is inclusive", store.EventFilter{To: "preempting", Since: at(5 * time.Hour)}, []string{"second"}},
		{"all since", store.EventFilter{Since: at(4 * time.Hour)}, []string{"", "second"}},
		{"none", store.EventFilter{To: "preempting", Since: at(6 * time.Hour)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			events, err := s.Events(ctx, c.f)
			if err != nil {
				t.Fatalf("list events: %v", err)
			}
			var got []string
			for _, e := range events {
				got = append(got, e.Reason)
			}
			wantEqual(t, "events", got, c.want)
		})
	}
}

// testJobsSinceOutOfOrder checks that a since filter finds every job
// submitted since then when ids do not follow submission times: the
// master stamps a job before the store numbers it, so a later stamp can
// get an earlier id, and the index's bound on ids must not skip it.
func testJobsSinceOutOfOrder(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	// Submitted at 0, 3, 1, 2 and 5 hours, in id order.
	var ids []int64
	for i, h := range []time.Duration{0, 3, 1, 2, 5} {
		j := sampleJob(fmt.Sprintf("job%d", i))
		j.SubmittedAt = at(h * time.Hour)
		ids = append(ids, mustCreate(t, s, j, 1).ID)
	}
	cases := []struct {
		name string
		f    store.JobFilter
		want []int64
	}{
		{"since 2h", store.JobFilter{SubmittedSince: at(2 * time.Hour)}, []int64{ids[1], ids[3], ids[4]}},
		{"since 2h, newest first", store.JobFilter{SubmittedSince: at(2 * time.Hour), Desc: true},
			[]int64{ids[4], ids[3], ids[1]}},
		{"since 2h, a page below the last", store.JobFilter{SubmittedSince: at(2 * time.Hour), Desc: true,
			BeforeID: ids[4], Limit: 1}, []int64{ids[3]}},
		{"since 1h", store.JobFilter{SubmittedSince: at(time.Hour)}, ids[1:]},
		{"since 3h30m", store.JobFilter{SubmittedSince: at(3*time.Hour + 30*time.Minute)}, ids[4:]},
		{"since after the last", store.JobFilter{SubmittedSince: at(6 * time.Hour)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			jobs, err := s.Jobs(ctx, c.f)
			if err != nil {
				t.Fatalf("list jobs: %v", err)
			}
			var got []int64
			for _, j := range jobs {
				got = append(got, j.ID)
			}
			wantEqual(t, "job ids", got, c.want)
		})
	}
}

// testEventsOfOneUpdateInOrder: the events of one transaction (which
// PostgreSQL writes in one statement before the commit) come back in the
// order they were recorded, after the events before it, and none of
// them when the transaction fails.
func testEventsOfOneUpdateInOrder(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("many"), 3)
	steps := []struct{ from, to store.TaskState }{
		{store.TaskQueued, store.TaskStarting}, {store.TaskStarting, store.TaskRunning},
	}
	write := func(fail error) error {
		return s.Update(ctx, func(tx store.Tx) error {
			for _, st := range steps {
				for i := range 3 {
					tr := store.TaskTransition{JobID: job.ID, Index: i, From: st.from, To: st.to, Attempt: 1}
					if st.from == store.TaskQueued {
						tr.Attempt, tr.Placement = 0, placement(fmt.Sprintf("n%d", i), 0)
					}
					if _, err := tx.TransitionTask(ctx, tr); err != nil {
						return err
					}
				}
			}
			if _, err := tx.TransitionJob(ctx, store.JobTransition{ID: job.ID, From: store.JobQueued,
				To: store.JobRunning}); err != nil {
				return err
			}
			return fail
		})
	}
	if err := write(errBoom); err != errBoom {
		t.Fatalf("failed update: %v, want %v", err, errBoom)
	}
	if evs, err := s.Events(ctx, store.EventFilter{JobID: job.ID}); err != nil || len(evs) != 1 {
		t.Fatalf("events after a failed update: %d (%v), want the submission's alone", len(evs), err)
	}
	if err := write(nil); err != nil {
		t.Fatalf("update: %v", err)
	}
	evs, err := s.Events(ctx, store.EventFilter{JobID: job.ID})
	if err != nil {
		t.Fatalf("events: %v", err)
	}
	var got []string
	for k, e := range evs {
		if k > 0 && e.Seq <= evs[k-1].Seq {
			t.Fatalf("event %d has sequence %d after %d", k, e.Seq, evs[k-1].Seq)
		}
		got = append(got, fmt.Sprintf("%d:%s", e.Index, e.To))
	}
	want := []string{"-1:queued", "0:starting", "1:starting", "2:starting", "0:running", "1:running", "2:running", "-1:running"}
	wantEqual(t, "events", got, want)
}

var errBoom = fmt.Errorf("boom")

// testAttemptsOfOneUpdate: an Update that opens, runs and ends attempts
// (which PostgreSQL writes together, a run of one kind per statement)
// sees them inside the transaction, may log against an attempt it just
// opened, and commits each with its own times and end.
func testAttemptsOfOneUpdate(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("attempts"), 2)
	at := func(ms int) time.Time { return time.Unix(1_700_000_000, 0).Add(time.Duration(ms) * time.Millisecond) }
	exits := []int{0, 3}
	ends := []store.TaskState{store.TaskCompleted, store.TaskFailed}
	err := s.Update(ctx, func(tx store.Tx) error {
		for i := range 2 {
			if _, err := tx.TransitionTask(ctx, store.TaskTransition{JobID: job.ID, Index: i, From: store.TaskQueued,
				To: store.TaskStarting, Placement: placement(fmt.Sprintf("n%d", i), 0), At: at(10 + i)}); err != nil {
				return err
			}
		}
		if err := tx.AppendLogs(ctx, []store.LogLine{{JobID: job.ID, Index: 0, Attempt: 1, Seq: 1,
			Stream: store.Stdout, Text: "hello"}}); err != nil {
			return err
		}
		for i := range 2 {
			if _, err := tx.TransitionTask(ctx, store.TaskTransition{JobID: job.ID, Index: i, From: store.TaskStarting,
				To: store.TaskRunning, Attempt: 1, At: at(20 + i)}); err != nil {
				return err
			}
		}
		if atts, err := tx.Attempts(ctx, store.AttemptFilter{JobID: job.ID}); err != nil || len(atts) != 2 ||
			atts[1].RunningAt.IsZero() {
			return fmt.Errorf("attempts inside the update: %+v (%v), want 2 running", atts, err)
		}
		for i := range 2 {
			if _, err := tx.TransitionTask(ctx, store.TaskTransition{JobID: job.ID, Index: i, From: store.TaskRunning,
				To: ends[i], Attempt: 1, At: at(30 + i),
				End: &store.AttemptEnd{State: store.AttemptState(ends[i]), ExitCode: &exits[i]}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	atts, err := s.Attempts(ctx, store.AttemptFilter{JobID: job.ID})
	if err != nil || len(atts) != 2 {
		t.Fatalf("attempts: %d (%v), want 2", len(atts), err)
	}
	for i, a := range atts {
		if !a.StartedAt.Equal(at(10+i)) || !a.RunningAt.Equal(at(20+i)) ||
			!a.EndedAt.Equal(at(30+i)) || a.ExitCode == nil || *a.ExitCode != exits[i] ||
			string(a.EndState) != string(ends[i]) {
			t.Errorf("attempt %d: %+v", i, a)
		}
	}
}
