package master

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// The fairness audit compares, for a window, each project's entitlement
// (its share of the cluster by the configuration's project shares, which
// default to the quota, or 1 without quota) with the share of the cluster's GPU-hours it got,
// and with how long its jobs waited. A project that got clearly less than
// it was entitled to while it had work waiting was deprived: the audit
// flags it. A project that got less but had nothing waiting was not, nor
// was one whose waits were negligible (negligibleWait, minDeprivingWait).

// deprivedBelow is the fraction of its entitlement under which a project
// with waiting work is flagged.
const deprivedBelow = 0.9

// negligibleWait is the fraction of a project's entitled GPU-time in the
// window (its entitlement times the capacity) that its jobs' waits, in
// GPU-time, must reach for it to be flagged. A wait counts the GPUs of
// one task (at least 1): it lasts until the job's first task starts, and
// a job that never started has no record of its tasks. A job that waited
// a few seconds for its turn is how a queue works, not a sign that the
// project was kept out. On a 7-day
// window of 64 GPUs, a project entitled to a tenth is flagged once its
// jobs waited about 10.8 GPU-hours, a 1-GPU job half a day.
const negligibleWait = 0.01

// minDeprivingWait is how long a project's longest wait must last, in
// seconds, for it to be flagged, whatever the window: on a cluster hours
// old, 1% of the entitled GPU-time is a few GPU-seconds, and a job that
// waited a minute for a running one to end was queued, not kept out.
const minDeprivingWait = 600

func (ca *clusterAPI) handleFairness(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if err := onlyParams(q, "since", "until"); err != nil {
		ca.fail(w, err)
		return
	}
	since, until, err := ca.window(q.Get("since"), q.Get("until"), defaultUsageWindow)
	if err != nil {
		ca.fail(w, err)
		return
	}
	usage, err := ca.usageIn(r.Context(), since, until)
	if err != nil {
		ca.fail(w, err)
		return
	}
	jobs, err := ca.history(r.Context(), store.JobFilter{}, since, until)
	if err != nil {
		ca.fail(w, err)
		return
	}
	born, err := ca.clusterStart(r.Context())
	if err != nil {
		ca.fail(w, err)
		return
	}
	v := ca.m.pub.reads()
	cfg, gpus := v.cfg, 0
	noNode := map[string]bool{}
	for _, p := range cfg.Pools {
		noNode[p.Name] = true
	}
	for _, n := range v.nodes {
		if n.up {
			gpus += n.slots
			delete(noNode, n.pool)
		}
	}
	out := audit(cfg, gpus, since, until, born, usage, jobs, noNode, ca.m.waits.splits(jobs, v, ca.m.now().Unix()))
	p := principalOf(r)
	rows := out.Projects[:0]
	for _, row := range out.Projects {
		if p.CanRead(row.Project, "") == nil {
			rows = append(rows, row)
		}
	}
	out.Projects = rows
	writeJSON(w, http.StatusOK, out)
}

// clusterStart is when the cluster began, as far as the store can say
// cheaply: the earliest of its nodes' first registrations, its first job's
// submission and its first usage record's start (usage records outlive
// pruned jobs and deleted nodes). Zero when the store holds none of them.
func (ca *clusterAPI) clusterStart(ctx context.Context) (time.Time, error) {
	var born time.Time
	earlier := func(t time.Time) {
		if !t.IsZero() && (born.IsZero() || t.Before(born)) {
			born = t
		}
	}
	nodes, err := ca.m.st.Nodes(ctx)
	if err != nil {
		return born, fmt.Errorf("cluster start: %w", err)
	}
	for _, n := range nodes {
		earlier(n.RegisteredAt)
	}
	jobs, err := ca.m.st.Jobs(ctx, store.JobFilter{Limit: 1})
	if err != nil {
		return born, fmt.Errorf("cluster start: %w", err)
	}
	for _, j := range jobs {
		earlier(j.SubmittedAt)
	}
	usage, err := ca.m.st.Usage(ctx, store.UsageFilter{Limit: 1})
	if err != nil {
		return born, fmt.Errorf("cluster start: %w", err)
	}
	for _, u := range usage {
		earlier(u.Start)
	}
	return born, nil
}

// audit computes the fairness rows of the configuration's projects. The
// capacity counts from the later of since and born, the cluster's start:
// a cluster younger than the window did not have the GPUs before it
// existed, and every project would seem to have got almost nothing.
// noNode are the pools with no node up now: a job still waiting in one
// waits for a node to join it, which no share of the cluster could have
// served, so its wait is shown but not counted toward Deprived (the row
// notes it instead, NoNode). split is what the wait ledger knows of the
// jobs' waits by kind (waitledger.go): the parts of the project's own
// making and on nodes down are shown but not counted either.
func audit(cfg *config.Config, gpus int, since, until, born time.Time, usage []store.Usage, jobs []api.HistoryRecord,
	noNode map[string]bool, split map[int64]waitSplit) api.Fairness {
	out := api.Fairness{Since: since, Until: until, Projects: []api.FairnessRow{}}
	from := since
	if born.After(since) {
		from = born
		if from.After(until) {
			from = until // a window that ended before the cluster began
		}
		out.MeasuredSince = &from
	}
	out.CapacityGPUHours = float64(gpus) * until.Sub(from).Hours()
	// up maps each project to itself and its ancestors, so that a parent
	// counts its sub-projects' use and waits.
	up := map[string][]string{}
	for _, p := range cfg.Projects {
		for a, seen := p.Name, 0; a != "" && seen <= len(cfg.Projects); seen++ {
			up[p.Name] = append(up[p.Name], a)
			parent, _ := cfg.Project(a)
			a = parent.Parent
		}
	}
	rows := map[string]*api.FairnessRow{}
	w := map[string]*waited{}
	for i, p := range cfg.Projects {
		rows[p.Name] = &api.FairnessRow{Project: p.Name, Parent: p.Parent, Entitled: entitlement(cfg, i)}
		w[p.Name] = &waited{}
	}
	for _, u := range usage {
		for _, a := range up[u.Project] {
			rows[a].GPUHours += u.GPUSeconds / 3600
		}
	}
	for _, j := range jobs {
		countWait(rows, w, up[j.Project], j, waitIn(j, since, until), noNode, split[j.ID])
	}
	for _, p := range cfg.Projects {
		row := rows[p.Name]
		if out.CapacityGPUHours > 0 {
			row.Got = row.GPUHours / out.CapacityGPUHours
		}
		if row.Waited > 0 {
			row.MeanWaitS = w[p.Name].all / int64(row.Waited)
		}
		judge(row, w[p.Name], out.CapacityGPUHours)
		out.Projects = append(out.Projects, *row)
	}
	return out
}

// waited is what a project's jobs waited in the window: all their waits
// (seconds), and of those that count toward deprivation (not in a pool
// with no node, nor of its own making or on nodes down) how many, their
// GPU-hours and the longest; and the parts left out (own, down) of how
// many jobs (excluded).
type waited struct {
	all, longest int64
	counted      int
	gpuHours     float64
	own, down    int64
	excluded     int
	held         int64 // seconds on hold, of heldJobs jobs
	heldJobs     int
}

// countWait counts job j's wait in the window toward each of projects
// (its project and the parents) in rows and w: all of it shown, the part
// of its own making or on nodes down (split) and a wait in a pool with no
// node up (noNode) left out of what counts toward Deprived.
func countWait(rows map[string]*api.FairnessRow, w map[string]*waited, projects []string, j api.HistoryRecord, wait int64,
	noNode map[string]bool, split waitSplit) {
	stranded := wait > 0 && j.StartedAt == nil && (j.State == string(store.JobQueued) || j.State == api.JobStateHeld) && noNode[j.Pool]
	held, own, down := excluded(j, wait, split)
	wait -= held // shown apart: a hold is no wait (HeldWaitS)
	counted := wait - own - down
	for _, a := range projects {
		row := rows[a]
		row.Jobs++
		if wait > 0 {
			row.Waited++
			w[a].all += wait
			row.MaxWaitS = max(row.MaxWaitS, wait)
		}
		switch {
		case stranded:
			row.NoNode++
			if !slices.Contains(row.NoNodePools, j.Pool) {
				row.NoNodePools = append(row.NoNodePools, j.Pool)
			}
			continue
		case counted > 0:
			w[a].counted++
			w[a].gpuHours += float64(counted) * float64(max(j.Slots, 1)) / 3600
			w[a].longest = max(w[a].longest, counted)
		}
		if held > 0 {
			w[a].held, w[a].heldJobs = w[a].held+held, w[a].heldJobs+1
			row.HeldWaitS += held
		}
		if own+down > 0 {
			w[a].own, w[a].down, w[a].excluded = w[a].own+own, w[a].down+down, w[a].excluded+1
			row.OwnWaitS, row.DownWaitS = row.OwnWaitS+own, row.DownWaitS+down
		}
	}
}

// judge flags row deprived when it got less than deprivedBelow of its
// entitlement while its counted waits were not negligible, and notes the
// jobs that wait in a pool with no node, whose waits it does not count.
func judge(row *api.FairnessRow, w *waited, capacity float64) {
	slices.Sort(row.NoNodePools)
	waitedEnough := w.gpuHours >= negligibleWait*row.Entitled*capacity && w.longest >= minDeprivingWait
	var notes []string
	if w.counted > 0 && waitedEnough && row.Got < deprivedBelow*row.Entitled {
		row.Deprived = true
		notes = append(notes, fmt.Sprintf("got %.1f%% of the cluster against an entitlement of %.1f%% while %s waited (mean %s, longest %s)",
			100*row.Got, 100*row.Entitled, plural.Count(row.Waited, "job"),
			sched.HumanDuration(row.MeanWaitS), sched.HumanDuration(row.MaxWaitS)))
	}
	if note := excludedNote(w.own, w.down, w.excluded); note != "" {
		notes = append(notes, note)
	}
	if note := heldWaitNote(w.held, w.heldJobs); note != "" {
		notes = append(notes, note)
	}
	if row.NoNode > 0 {
		pools := "pool " + row.NoNodePools[0] + ", which has"
		if len(row.NoNodePools) > 1 {
			pools = "pools " + andList(row.NoNodePools) + ", which have"
		}
		notes = append(notes, fmt.Sprintf("%s %s in %s no node up: no share of the cluster could serve %s, "+
			"so %s not counted as deprivation", plural.Count(row.NoNode, "job"), map[bool]string{true: "waits", false: "wait"}[row.NoNode == 1],
			pools, map[bool]string{true: "it", false: "them"}[row.NoNode == 1],
			map[bool]string{true: "its wait is", false: "their waits are"}[row.NoNode == 1]))
	}
	row.Note = strings.Join(notes, "; ")
}

// entitlement is project i's share of the cluster: its shares among its
// siblings, times its parent's entitlement.
func entitlement(cfg *config.Config, i int) float64 {
	p := cfg.Projects[i]
	total := 0.0
	for _, q := range cfg.Projects {
		if q.Parent == p.Parent {
			total += q.Shares
		}
	}
	if total <= 0 {
		return 0
	}
	share := p.Shares / total
	if p.Parent == "" {
		return share
	}
	if pi := cfg.ProjectIndex(p.Parent); pi >= 0 && pi != i {
		return share * entitlement(cfg, pi)
	}
	return share
}

// waitIn is how long a job waited within [since, until): its history
// wait (historyOf: to its first start, and each requeue's wait since, as
// allot history's WAIT), clipped to the window as one span from its
// submission. The record keeps the total, not each requeue's span, so a
// requeue's wait in a job submitted before the window counts as if it came
// first; over a window that holds the whole job the total is exact.
func waitIn(j api.HistoryRecord, since, until time.Time) int64 {
	from := j.SubmittedAt
	to := j.SubmittedAt.Add(time.Duration(j.WaitS) * time.Second)
	if from.Before(since) {
		from = since
	}
	if to.After(until) {
		to = until
	}
	if !to.After(from) {
		return 0
	}
	return int64(to.Sub(from).Seconds())
}
