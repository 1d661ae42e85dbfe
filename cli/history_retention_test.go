package cli

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/master"
	"github.com/allot-sched/allot/store"
)

// TestHistoryRetentionRefusal (trial 29c C6): against a real master
// whose store forgot a job past history_retention, allot history check
// and allot sim --from-history with a --since before the horizon fail
// with the master's message, which names history_retention, the horizon
// and what to give instead.
func TestHistoryRetentionRefusal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	st, err := store.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now().UTC().Truncate(time.Second)
	token, err := master.BootstrapAdmin(ctx, st, "root", "test", false, now.Add(-4*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	// A job killed while it waited, 3h ago, forgotten by a prune with a
	// retention of 2h.
	job, err := st.CreateJob(ctx, store.Job{Name: "old", Project: "default", User: "root", Pool: "default", Slots: 1, Kind: store.KindExperiment, MaxConcurrent: 1, MaxSlots: 1, Priority: 42, PriorityClass: "NORMAL", Weight: 1,
		Entrypoint: "true", Spec: []byte(`{"name": "old"}`), SubmittedAt: now.Add(-3*time.Hour - time.Minute)}, []store.Task{{}})
	if err != nil {
		t.Fatal(err)
	}
	ended := now.Add(-3 * time.Hour)
	if _, err := st.TransitionJob(ctx, store.JobTransition{ID: job.ID, From: store.JobQueued, To: store.JobKilled, At: ended}); err != nil {
		t.Fatal(err)
	}
	if n, err := st.PruneJobs(ctx, now.Add(-2*time.Hour), 10); err != nil || n != 1 {
		t.Fatalf("prune: %d, %v; want the job forgotten", n, err)
	}
	m, err := master.New(ctx, master.Options{Store: st, DataDir: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	horizon := ended.Format(time.RFC3339)
	want := " is before the history_retention horizon " + horizon + ": the master forgot 1 finished job that ended before " +
		now.Add(-2*time.Hour).Format(time.RFC3339) + " (history_retention), the last at " + horizon +
		", and a replay of a window from before then would lack them (a job that waited for one would start sooner); " +
		"give a since of " + horizon + " or later, or none (the default window starts there)"
	for _, args := range [][]string{
		{"history", "check", "--since", "4h"},
		{"sim", "--from-history", "--since", "4h"},
		{"sim", "compare", "--from-history", "--since", "4h"},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			t.Setenv(TokenEnv, token)
			_, _, err := run(t, append([]string{"--master", srv.URL}, args...)...)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("allot %s: %v\nwant an error containing %q", strings.Join(args, " "), err, want)
			}
		})
	}
}
