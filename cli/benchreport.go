package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/store"
)

// benchReport is what allot bench live measured. Latencies are in
// milliseconds; the master's figures are absent when its process is not
// known.
type benchReport struct {
	Backend    string  `json:"backend"`
	Agents     int     `json:"agents"`
	GPUs       int     `json:"gpus_per_agent"`
	Slots      int     `json:"slots_per_job"`
	Jobs       int     `json:"jobs"`
	Rate       float64 `json:"rate"`
	Submitters int     `json:"submitters"`
	TaskTime   string  `json:"task_time"`
	AgentsUpS  float64 `json:"agents_up_s"`

	Accepted          int     `json:"accepted"`
	Rejected          int     `json:"rejected"`
	SubmitS           float64 `json:"submit_s"`
	SubmitPerS        float64 `json:"submit_per_s"`
	SubmitLatency     latency `json:"submit_latency_ms"`
	SubmitBusyLatency latency `json:"submit_busy_latency_ms"`
	StartLatency      latency `json:"start_latency_ms"`

	Started           int     `json:"started"`
	Exited            int     `json:"exited"`
	DupStarts         int     `json:"duplicate_starts"`
	CompletedAtMaster int     `json:"completed_at_master"`
	PeakRunning       int     `json:"peak_running"`
	DrainS            float64 `json:"drain_s"`
	DrainPerS         float64 `json:"drain_per_s"`
	WallS             float64 `json:"wall_s"`

	MasterCPUS       *float64 `json:"master_cpu_s,omitempty"`
	MasterPeakRSSMiB *float64 `json:"master_peak_rss_mib,omitempty"`
	MasterEndRSSMiB  *float64 `json:"master_end_rss_mib,omitempty"`
	// MasterRSS is the master's resident memory sampled during the run,
	// so that a reader can tell memory that grows with the finished jobs
	// from a peak that the queue and the running tasks explain.
	MasterRSS  []rssSample `json:"master_rss,omitempty"`
	StoreBytes int64       `json:"store_bytes,omitempty"`
}

// latency holds percentiles of a sample, in milliseconds.
type latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

func percentiles(d []time.Duration) latency {
	if len(d) == 0 {
		return latency{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	at := func(p float64) float64 {
		i := int(float64(len(s))*p+0.999999) - 1
		return float64(s[max(0, min(i, len(s)-1))]) / float64(time.Millisecond)
	}
	return latency{N: len(s), P50: at(0.50), P90: at(0.90), P99: at(0.99), Max: at(1)}
}

// check returns errIncomplete unless every accepted job started once and
// ended, and the master says it completed.
func (r *benchReport) check() error {
	switch {
	case r.Accepted+r.Rejected != r.Jobs:
		return fmt.Errorf("%w: %d accepted and %d rejected of %d jobs", errIncomplete, r.Accepted, r.Rejected, r.Jobs)
	case r.Started != r.Accepted || r.Exited != r.Accepted || r.CompletedAtMaster != r.Accepted:
		return fmt.Errorf("%w: %d accepted, %d started, %d exited, %d completed at the master",
			errIncomplete, r.Accepted, r.Started, r.Exited, r.CompletedAtMaster)
	case r.DupStarts != 0:
		return fmt.Errorf("%w: %d duplicate starts", errIncomplete, r.DupStarts)
	}
	return nil
}

func (r *benchReport) print(w io.Writer, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	ms := func(l latency) string {
		return fmt.Sprintf("p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms (n=%d)", l.P50, l.P90, l.P99, l.Max, l.N)
	}
	rate := "as fast as possible"
	if r.Rate > 0 {
		rate = fmt.Sprintf("%g/s", r.Rate)
	}
	fmt.Fprintf(w, "master      %s; %d agents × %d GPUs up in %.1f s\n", r.Backend, r.Agents, r.GPUs, r.AgentsUpS)
	fmt.Fprintf(w, "load        %d jobs of %d GPU(s), %s each, %d submitters, %s\n", r.Jobs, r.Slots, r.TaskTime, r.Submitters, rate)
	fmt.Fprintf(w, "submitted   %d accepted, %d rejected in %.2f s: %.0f/s\n", r.Accepted, r.Rejected, r.SubmitS, r.SubmitPerS)
	fmt.Fprintf(w, "  latency   %s\n", ms(r.SubmitLatency))
	fmt.Fprintf(w, "  busy      %s (sent while tasks ran)\n", ms(r.SubmitBusyLatency))
	fmt.Fprintf(w, "to start    %s\n", ms(r.StartLatency))
	fmt.Fprintf(w, "drained     %d starts + %d exits in %.2f s: %.0f/s; peak %d running\n",
		r.Started, r.Exited, r.DrainS, r.DrainPerS, r.PeakRunning)
	fmt.Fprintf(w, "completed   %d at the master; duplicate starts %d; wall %.2f s\n", r.CompletedAtMaster, r.DupStarts, r.WallS)
	if r.MasterCPUS != nil {
		fmt.Fprintf(w, "master CPU  %.2f s (%.0f µs per job)\n", *r.MasterCPUS, *r.MasterCPUS*1e6/float64(max(r.Accepted, 1)))
	}
	if r.MasterPeakRSSMiB != nil {
		fmt.Fprintf(w, "master RSS  %.0f MiB at peak", *r.MasterPeakRSSMiB)
		if r.MasterEndRSSMiB != nil {
			fmt.Fprintf(w, ", %.0f MiB at the end", *r.MasterEndRSSMiB)
		}
		fmt.Fprintln(w)
	}
	if len(r.MasterRSS) > 0 {
		fmt.Fprintf(w, "  sampled   %s\n", rssSummary(r.MasterRSS, 10))
	}
	if r.StoreBytes > 0 {
		fmt.Fprintf(w, "store       %.1f MiB\n", float64(r.StoreBytes)/(1<<20))
	}
	return nil
}

// procCPU is the user and system CPU time of process pid, from /proc.
func procCPU(pid int) (float64, bool) {
	if pid <= 0 {
		return 0, false
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from the last ')'.
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseFloat(fields[11], 64)
	stime, err2 := strconv.ParseFloat(fields[12], 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	// USER_HZ is 100 on every Linux configuration Go supports.
	return (utime + stime) / 100, true
}

// procRSS is the resident memory (VmRSS) of process pid in bytes, from
// /proc.
func procRSS(pid int) (int64, bool) { return procStatusKB(pid, "VmRSS:") }

// procPeakRSS is the peak resident memory (VmHWM) of process pid in
// bytes, from /proc.
func procPeakRSS(pid int) (int64, bool) { return procStatusKB(pid, "VmHWM:") }

// procStatusKB reads one kB field of /proc/PID/status, in bytes.
func procStatusKB(pid int, field string) (int64, bool) {
	if pid <= 0 {
		return 0, false
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// storeSize is the size of the master's store: the SQLite files (the
// database, its WAL and shared memory), or the PostgreSQL tables of the
// store's schema with their indexes.
func storeSize(ctx context.Context, dsn, data string) (int64, error) {
	if strings.HasPrefix(dsn, "postgres") {
		return postgresSize(ctx, dsn)
	}
	path := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "//")
	path, _, _ = strings.Cut(path, "?")
	if path == "" {
		path = store.DefaultSQLiteFile
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(data, path)
	}
	var total int64
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if fi, err := os.Stat(path + suffix); err == nil {
			total += fi.Size()
		}
	}
	return total, nil
}

func postgresSize(ctx context.Context, dsn string) (int64, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return 0, fmt.Errorf("postgres store size: %w", err)
	}
	defer db.Close()
	var n int64
	err = db.QueryRowContext(ctx, `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint
		FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
		WHERE s.nspname = current_schema() AND c.relkind = 'r'`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("postgres store size: %w", err)
	}
	return n, nil
}
