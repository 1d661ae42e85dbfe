package master

import (
	"cmp"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// metrics are the master's Prometheus metrics, in a registry of its own so
// that several masters (in tests) do not collide.
type metrics struct {
	// reg is what every reader of /metrics gets; usage, the series that
	// name projects' and users' usage, only a caller who may read every
	// project's usage (metricsHandler), as GET /usage redacts them.
	reg                *prometheus.Registry
	usage              *prometheus.Registry
	passSeconds        prometheus.Histogram
	submissions        prometheus.Counter
	agentSyncs         prometheus.Counter
	agentRegistrations prometheus.Counter
	jobsEnded          *prometheus.CounterVec
	storeUp            prometheus.Gauge
	gpuSeconds         *prometheus.CounterVec
	poolGPUSeconds     *prometheus.CounterVec
	syncBatch          prometheus.Histogram
	syncBatchRetries   prometheus.Counter
	reloads            *prometheus.CounterVec
	reloadOK           prometheus.Gauge
	passFailures       prometheus.Counter
}

func newMetrics(m *Master) *metrics {
	x := &metrics{
		reg:   prometheus.NewRegistry(),
		usage: prometheus.NewRegistry(),
		passSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "allot_scheduling_pass_seconds",
			Help:    "Duration of one scheduling pass: snapshot, core, and no I/O.",
			Buckets: prometheus.ExponentialBuckets(0.00005, 4, 10),
		}),
		submissions: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "allot_submissions_total", Help: "Jobs submitted."}),
		agentSyncs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "allot_agent_syncs_total", Help: "Agent syncs received."}),
		agentRegistrations: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "allot_agent_registrations_total", Help: "Agent registrations received."}),
		jobsEnded: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "allot_jobs_ended_total", Help: "Jobs that reached a terminal state, by state."}, []string{"state"}),
		gpuSeconds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "allot_gpu_seconds_total",
			Help: "GPU-seconds used, as recorded in the store's usage records (GET /api/v1/usage), by pool, project and user " +
				"(served to admins and to roles in every project only)."},
			[]string{"pool", "project", "user"}),
		poolGPUSeconds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "allot_pool_gpu_seconds_total",
			Help: "GPU-seconds used, as recorded in the store's usage records, by pool: allot_gpu_seconds_total summed over projects and users."},
			[]string{"pool"}),
		syncBatch: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "allot_sync_batch_syncs",
			Help:    "Agent syncs whose reports were stored in one transaction.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 11),
		}),
		syncBatchRetries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "allot_sync_batch_retries_total",
			Help: "Batches of agent syncs that failed and were tried again one sync at a time."}),
		storeUp: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "allot_store_up", Help: "1 while the store takes writes, 0 while it fails (see /readyz)."}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "allot_config_reloads_total",
			Help: "Configuration reloads (SIGHUP or POST /api/v1/config/reload), by result: ok or failed."}, []string{"result"}),
		reloadOK: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "allot_config_last_reload_ok",
			Help: "0 while the last configuration reload failed (the file on disk is not the one in force), else 1."}),
	}
	x.passFailures = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "allot_scheduling_pass_failures_total",
		Help: "Scheduling passes that failed: while they fail no pool schedules (see /healthz and the master's log)."})
	x.storeUp.Set(1)
	x.reloadOK.Set(1)
	x.reloads.WithLabelValues("ok")
	x.reloads.WithLabelValues("failed")
	x.usage.MustRegister(x.gpuSeconds)
	x.reg.MustRegister(x.passSeconds, x.submissions, x.agentSyncs, x.agentRegistrations, x.jobsEnded, x.storeUp, x.poolGPUSeconds,
		x.syncBatch, x.syncBatchRetries, x.reloads, x.reloadOK, x.passFailures, &mirrorCollector{m: m})
	return x
}

// chargeGPU counts gpuSeconds of usage of user in project and pool.
func (x *metrics) chargeGPU(pool, project, user string, gpuSeconds float64) {
	x.gpuSeconds.WithLabelValues(pool, project, cmp.Or(user, noUser)).Add(gpuSeconds)
	x.poolGPUSeconds.WithLabelValues(pool).Add(gpuSeconds)
}

// handler serves /metrics: the usage series by project and user only to
// a caller who may read every project's usage (an admin, or a role in
// all projects), as GET /api/v1/usage shows a member only the rows of
// its own projects; everyone else, anonymous callers of an open
// /metrics included, gets the rest, usage by pool among it.
func (x *metrics) handler() http.Handler {
	all := promhttp.HandlerFor(prometheus.Gatherers{x.reg, x.usage}, promhttp.HandlerOpts{})
	some := promhttp.HandlerFor(x.reg, promhttp.HandlerOpts{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, every := principalOf(r).Projects(); every {
			all.ServeHTTP(w, r)
			return
		}
		some.ServeHTTP(w, r)
	})
}

// jobEnded counts a job reaching a terminal state.
func (x *metrics) jobEnded(from, to store.JobState) {
	if !from.Terminal() && to.Terminal() {
		x.jobsEnded.WithLabelValues(string(to)).Inc()
	}
}

// reloaded counts a configuration reload and its result.
func (x *metrics) reloaded(err error) {
	if err != nil {
		x.reloads.WithLabelValues("failed").Inc()
		x.reloadOK.Set(0)
		return
	}
	x.reloads.WithLabelValues("ok").Inc()
	x.reloadOK.Set(1)
}

// mirrorCollector reports gauges computed from the read view at scrape time.
type mirrorCollector struct{ m *Master }

var (
	descJobs    = prometheus.NewDesc("allot_jobs", "Live jobs by state (queued, running).", []string{"state"}, nil)
	descRunning = prometheus.NewDesc("allot_tasks_running",
		"Tasks holding slots (starting, running, preempting or killing), by pool.", []string{"pool"}, nil)
	descSlots = prometheus.NewDesc("allot_pool_slots", "Slots of the nodes up in the pool.", []string{"pool"}, nil)
	descUsed  = prometheus.NewDesc("allot_pool_slots_used", "Slots held by tasks in the pool.", []string{"pool"}, nil)
	descPend  = prometheus.NewDesc("allot_jobs_pending",
		"Jobs with waiting tasks, by pool and the last pass's reason.", []string{"pool", "reason"}, nil)
	descNodes = prometheus.NewDesc("allot_nodes", "Registered nodes by state (up, lost, left).", []string{"state"}, nil)
	descDrain = prometheus.NewDesc("allot_nodes_drained",
		"Nodes an admin drained, by drain: draining (tasks still run there) or drained (none left).", []string{"drain"}, nil)
)

func (c *mirrorCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descJobs, descRunning, descSlots, descUsed, descPend, descNodes, descDrain} {
		ch <- d
	}
}

func (c *mirrorCollector) Collect(ch chan<- prometheus.Metric) {
	v := c.m.pub.reads()
	states := map[store.JobState]int{store.JobQueued: 0, store.JobRunning: 0}
	pending := map[[2]string]int{}
	for j := range v.jobs.all() {
		if _, ok := states[j.rec.State]; ok {
			states[j.rec.State]++
		}
		if j.waiting() {
			reason := "none"
			if j.pending != nil {
				reason = j.pending.view().Reason
			}
			pending[[2]string{j.rec.Pool, reason}]++
		}
	}
	for s, n := range states {
		ch <- prometheus.MustNewConstMetric(descJobs, prometheus.GaugeValue, float64(n), string(s))
	}
	for k, n := range pending {
		ch <- prometheus.MustNewConstMetric(descPend, prometheus.GaugeValue, float64(n), k[0], k[1])
	}
	loads := v.loads(func(j *jobRead) string { return j.rec.Pool })
	nodes := map[string]int{string(store.NodeUp): 0, string(store.NodeLost): 0, string(store.NodeLeft): 0}
	drains := map[string]int{api.NodeDraining: 0, api.NodeDrained: 0}
	slots := map[string]int{}
	for _, n := range v.nodes {
		nodes[string(n.state)]++
		if d := n.view.Drain; d != "" {
			drains[d]++
		}
		if n.up {
			slots[n.pool] += n.slots
		}
	}
	for s, n := range nodes {
		ch <- prometheus.MustNewConstMetric(descNodes, prometheus.GaugeValue, float64(n), s)
	}
	for d, n := range drains {
		ch <- prometheus.MustNewConstMetric(descDrain, prometheus.GaugeValue, float64(n), d)
	}
	for _, p := range v.cfg.Pools {
		l := loads[p.Name]
		if l == nil {
			l = &load{}
		}
		ch <- prometheus.MustNewConstMetric(descRunning, prometheus.GaugeValue, float64(l.runningTasks), p.Name)
		ch <- prometheus.MustNewConstMetric(descSlots, prometheus.GaugeValue, float64(slots[p.Name]), p.Name)
		ch <- prometheus.MustNewConstMetric(descUsed, prometheus.GaugeValue, float64(l.used), p.Name)
	}
}
