package master

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// What-if on the cluster's own history. GET /history/scenario exports the
// jobs submitted in a window, with the pools, projects and nodes of the
// cluster now, as a scenario (docs/scenario.md) that `allot sim` and
// `allot sim compare` replay under the current configuration and others.
// A job's tasks run for what its completed attempts ran (their mean), or,
// for a job that never completed a task, for the longest attempt seen or
// its time limit; a job killed by a user is killed at the same offset in
// the replay (one killed before it ran runs until then, if it starts). What cannot be carried over is said in the file's comments.

func (m *Master) handleHistoryScenario(w http.ResponseWriter, r *http.Request) {
	if !m.adminOnly(w, r, "exporting the cluster's history") {
		return
	}
	q := r.URL.Query()
	if err := onlyParams(q, "since", "until"); err != nil {
		m.fail(w, err)
		return
	}
	since, until, err := m.window(q.Get("since"), q.Get("until"), defaultUsageWindow)
	if err != nil {
		m.fail(w, err)
		return
	}
	out, err := m.historyScenario(r.Context(), since, until)
	if err != nil {
		m.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/yaml")
	w.Write(out)
}

// scenario file types, in the scenario format's field names.
type (
	scnFile struct {
		Pools    []scnPool    `yaml:"pools"`
		Projects []scnProject `yaml:"projects,omitempty"`
		Accounts []scnAccount `yaml:"accounts,omitempty"`
		Jobs     []scnJob     `yaml:"jobs"`
		Events   []scnEvent   `yaml:"events,omitempty"`
	}
	scnPool struct {
		Name         string         `yaml:"name"`
		Policy       string         `yaml:"policy"`
		Preemption   bool           `yaml:"preemption,omitempty"`
		Backfill     bool           `yaml:"backfill,omitempty"`
		Reservations string         `yaml:"reservations,omitempty"`
		Placement    string         `yaml:"placement,omitempty"`
		MinRunTime   string         `yaml:"min_run_time,omitempty"`
		Multifactor  map[string]any `yaml:"multifactor,omitempty"`
		Nodes        []scnNode      `yaml:"nodes"`
	}
	scnNode struct {
		Name   string            `yaml:"name"`
		Slots  int               `yaml:"slots"`
		GPU    string            `yaml:"gpu,omitempty"`
		Labels map[string]string `yaml:"labels,omitempty"`
	}
	scnProject struct {
		Name            string  `yaml:"name"`
		Parent          string  `yaml:"parent,omitempty"`
		Quota           int     `yaml:"quota"`
		OverQuotaWeight float64 `yaml:"over_quota_weight"`
		Limit           int     `yaml:"limit,omitempty"`
	}
	scnAccount struct {
		Name   string  `yaml:"name"`
		Parent string  `yaml:"parent,omitempty"`
		Shares float64 `yaml:"shares"`
	}
	scnJob struct {
		Name          string `yaml:"name"`
		Kind          string `yaml:"kind,omitempty"`
		Submit        int64  `yaml:"submit"`
		Pool          string `yaml:"pool"`
		Tasks         int    `yaml:"tasks,omitempty"`
		MaxConcurrent int    `yaml:"max_concurrent,omitempty"`
		Slots         int    `yaml:"slots"`
		Duration      int64  `yaml:"duration,omitempty"` // 0: runs until killed
		TimeLimit     int64  `yaml:"time_limit,omitempty"`
		Priority      int    `yaml:"priority,omitempty"`
		Preemptible   *bool  `yaml:"preemptible,omitempty"`
		Project       string `yaml:"project,omitempty"`
		User          string `yaml:"user,omitempty"`
		Account       string `yaml:"account,omitempty"`
	}
	scnEvent struct {
		At   int64  `yaml:"at"`
		Kill string `yaml:"kill"`
	}
)

// historyScenario builds the scenario of the jobs submitted in [since,
// until), times counted from since.
func (m *Master) historyScenario(ctx context.Context, since, until time.Time) ([]byte, error) {
	jobs, err := m.st.Jobs(ctx, store.JobFilter{})
	if err != nil {
		return nil, err
	}
	atts, err := m.st.Attempts(ctx, store.AttemptFilter{})
	if err != nil {
		return nil, err
	}
	tasks, err := m.st.Tasks(ctx, store.TaskFilter{})
	if err != nil {
		return nil, err
	}
	byJob := map[int64][]store.Attempt{}
	for _, a := range atts {
		byJob[a.JobID] = append(byJob[a.JobID], a)
	}
	ntasks := map[int64]int{}
	for _, t := range tasks {
		ntasks[t.JobID]++
	}
	m.lock()
	cfg := m.cfg
	f, notes := m.scenarioCluster(cfg)
	m.mu.Unlock()
	pools := map[string]*scnPool{}
	for i := range f.Pools {
		pools[f.Pools[i].Name] = &f.Pools[i]
	}
	now := m.now()
	for _, j := range jobs {
		if j.SubmittedAt.Before(since) || !j.SubmittedAt.Before(until) {
			continue
		}
		p := pools[j.Pool]
		if p == nil {
			notes = append(notes, fmt.Sprintf("job %d left out: its pool %s has no node now", j.ID, j.Pool))
			continue
		}
		if total := poolSlots(p); j.Slots > total {
			notes = append(notes, fmt.Sprintf("job %d left out: a task of %d slots is larger than pool %s now (%d)", j.ID, j.Slots, j.Pool, total))
			continue
		}
		if cfg.ProjectIndex(j.Project) < 0 {
			j.Project = "" // a project the configuration no longer has
		}
		sj, ok := scenarioJob(j, byJob[j.ID], max(ntasks[j.ID], 1), since, now, p, cfg)
		if !ok {
			notes = append(notes, fmt.Sprintf("job %d left out: it never ran and has no time limit, so its run time is unknown", j.ID))
			continue
		}
		f.Jobs = append(f.Jobs, sj)
		if j.State == store.JobKilled && !j.EndedAt.IsZero() {
			f.Events = append(f.Events, scnEvent{At: int64(j.EndedAt.Sub(since).Seconds()), Kill: sj.Name})
		}
	}
	slices.SortStableFunc(f.Events, func(a, b scnEvent) int { return cmp.Compare(a.At, b.At) })
	body, err := yaml.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("encode the scenario: %w", err)
	}
	var head strings.Builder
	fmt.Fprintf(&head, "# The jobs submitted to this cluster from %s to %s, with its pools,\n# projects and nodes as of %s. Replay it with:\n#   allot sim FILE\n#   allot sim compare FILE --policy easy --set name=current\n",
		since.Format(time.RFC3339), until.Format(time.RFC3339), now.Format(time.RFC3339))
	for _, n := range notes {
		fmt.Fprintf(&head, "# Note: %s\n", n)
	}
	return append([]byte(head.String()), body...), nil
}

// scenarioCluster is the scenario's pools (with the nodes registered now),
// projects and fair-share accounts. Callers hold mu.
func (m *Master) scenarioCluster(cfg *config.Config) (scnFile, []string) {
	var f scnFile
	var notes []string
	for _, p := range cfg.Pools {
		sp := scnPool{Name: p.Name, Policy: string(p.Policy), Placement: string(p.Placement)}
		switch p.Policy {
		case sched.PolicyPriority, sched.PolicyFairShare, sched.PolicyMultifactor:
			sp.Preemption = p.Preemption
		}
		if p.Policy == sched.PolicyPriority || p.Policy == sched.PolicyMultifactor {
			sp.Backfill = p.Backfill
		}
		if p.Policy == sched.PolicyBackfill || (p.Policy == sched.PolicyMultifactor && p.Backfill) {
			sp.Reservations = string(p.Reservations)
		}
		if p.MinRunTime > 0 {
			sp.MinRunTime = p.MinRunTime.String()
		}
		if p.Policy == sched.PolicyMultifactor {
			sp.Multifactor = multifactorOf(p.Multifactor)
		}
		for _, n := range m.nodes {
			if n.pool != p.Name {
				continue
			}
			sn := scnNode{Name: n.rec.Name, Slots: len(n.rec.GPUs), Labels: m.nodeLabels(n)}
			if len(n.rec.GPUs) > 0 {
				sn.GPU = n.rec.GPUs[0].Type
			}
			if sn.Slots > 0 {
				sp.Nodes = append(sp.Nodes, sn)
			}
		}
		slices.SortFunc(sp.Nodes, func(a, b scnNode) int { return cmp.Compare(a.Name, b.Name) })
		if len(sp.Nodes) == 0 {
			notes = append(notes, "pool "+p.Name+" left out: no node with GPUs is registered in it")
			continue
		}
		f.Pools = append(f.Pools, sp)
	}
	for _, p := range cfg.Projects {
		f.Projects = append(f.Projects, scnProject{Name: p.Name, Parent: p.Parent, Quota: p.Quota,
			OverQuotaWeight: p.OverQuotaWeight, Limit: p.Limit})
		f.Accounts = append(f.Accounts, scnAccount{Name: p.Name, Parent: p.Parent, Shares: p.Shares})
	}
	if !usesFairShareAccounts(cfg) {
		f.Accounts = nil
	}
	return f, notes
}

func poolSlots(p *scnPool) int {
	n := 0
	for _, nd := range p.Nodes {
		n += nd.Slots
	}
	return n
}

func usesFairShareAccounts(cfg *config.Config) bool {
	for _, p := range cfg.Pools {
		if p.Policy == sched.PolicyMultifactor && p.Multifactor.FairShare > 0 {
			return true
		}
	}
	return false
}

// multifactorOf is a pool's multifactor block in the scenario format.
func multifactorOf(mf sched.Multifactor) map[string]any {
	out := map[string]any{}
	for k, v := range map[string]float64{"age": mf.Age, "fair_share": mf.FairShare, "job_size": mf.JobSize,
		"qos": mf.QOS, "pool": mf.Pool, "pool_priority": mf.PoolPriority} {
		if v > 0 {
			out[k] = v
		}
	}
	if mf.Age > 0 {
		out["max_age"] = strconv.FormatInt(mf.MaxAge, 10) + "s"
	}
	if mf.FairShare > 0 {
		out["fair_share_mode"] = string(cmp.Or(mf.FairShareMode, sched.FairShareClassic))
	}
	if mf.FavorSmall {
		out["favor_small"] = true
	}
	return out
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// scenarioJob is one job in the scenario, or false when its run time
// cannot be known.
func scenarioJob(j store.Job, atts []store.Attempt, tasks int, since, now time.Time, p *scnPool, cfg *config.Config) (scnJob, bool) {
	sj := scnJob{Name: fmt.Sprintf("j%d-%s", j.ID, strings.Trim(unsafeName.ReplaceAllString(j.Name, "-"), "-")),
		Kind: string(j.Kind), Submit: int64(j.SubmittedAt.Sub(since).Seconds()), Pool: j.Pool,
		Slots: j.Slots, TimeLimit: int64(j.TimeLimit.Seconds()), User: j.User, Project: j.Project}
	if tasks > 1 {
		sj.Tasks = tasks
	}
	if j.MaxConcurrent > 0 && j.MaxConcurrent < tasks {
		sj.MaxConcurrent = j.MaxConcurrent
	}
	if j.Priority >= 1 && j.Priority <= 99 {
		sj.Priority = j.Priority
	}
	pre := j.Preemptible
	sj.Preemptible = &pre
	if p.Policy == string(sched.PolicyMultifactor) && usesFairShareAccounts(cfg) {
		sj.Account = j.Project
	}
	var done, longest, n int64
	for _, a := range atts {
		end := a.EndedAt
		if end.IsZero() {
			end = now
		}
		d := int64(end.Sub(a.StartedAt).Seconds())
		longest = max(longest, d)
		if a.EndState == store.AttemptCompleted {
			done += d
			n++
		}
	}
	switch {
	case n > 0:
		sj.Duration = max(done/n, 1)
	case longest > 0:
		sj.Duration = longest
	case j.State == store.JobKilled:
		// Killed before it ran: in the replay it runs until the kill
		// event, at the offset a user killed it.
	case sj.TimeLimit > 0:
		sj.Duration = sj.TimeLimit
	default:
		return sj, false
	}
	return sj, true
}
