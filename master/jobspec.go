package master

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/allot-sched/allot/agent/gpumodel"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/jobfile"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// specHints holds what the scheduler needs of a job beyond the store's
// columns: the scheduling hints of its job file. The store keeps them in
// the job's spec (store.Job.Spec), so no column is needed; the master reads
// them once, at submission or on restore.
type specHints struct {
	minSlots int
	gpu      string
	topology sched.Topology
	licenses []licenseUse // sorted by name
	qos      string       // "": the configuration's default QOS
	nice     int
	// checkpointEvery (seconds) estimates when a running task last saved
	// a checkpoint (sched.Alloc.Checkpoint); 0: unknown.
	checkpointEvery int64
	// preemptible is the job's preemptibility outside the LOW class, which
	// a priority change out of LOW gives it: the job file's explicit
	// choice, else its kind's default, also for a job filed LOW
	// (lifecycle.PreemptibleOutsideLow).
	preemptible bool
	// onPreempt and maxRetries are the job file's exit actions, ""/nil
	// for its pool's (exitActionsOf).
	onPreempt  string
	maxRetries *int
	// podSpec is the job file's pod_spec, sent with every start for a
	// Kubernetes backend (k8s/podagent); nil: none.
	podSpec json.RawMessage
}

type licenseUse struct {
	name  string
	count int
}

// specOf takes the hints from a parsed job file of kind.
func specOf(kind jobfile.Kind, r jobfile.Resources) specHints {
	filedLow := r.PriorityClass == jobfile.ClassLow || jobfile.ClassOf(r.Priority) == jobfile.ClassLow
	if r.GPU != "" {
		// A spec stored before job files reduced the type, or as its
		// request body said it, is matched by the agents' rule too.
		r.GPU = gpumodel.Type(r.GPU)
	}
	s := specHints{minSlots: r.MinSlots, gpu: r.GPU, topology: sched.Topology(r.Topology), qos: r.QOS,
		nice: r.Nice, checkpointEvery: r.CheckpointEvery, onPreempt: r.OnPreempt, maxRetries: r.MaxRetries,
		preemptible: lifecycle.PreemptibleOutsideLow(filedLow, r.Preemptible, jobfile.DefaultPreemptible(kind))}
	for name, n := range r.Licenses {
		s.licenses = append(s.licenses, licenseUse{name: name, count: n})
	}
	slices.SortFunc(s.licenses, func(a, b licenseUse) int { return cmp.Compare(a.name, b.name) })
	return s
}

// decodeSpec reads the hints from a stored spec of a job of kind (the
// record's: a spec may leave its kind to be inferred). Specs were
// validated when they were submitted, so a plain decode of the resources
// suffices, but for a duration given as a string (time_limit: "2h"),
// which the job file's parser reads, and preemptible, which a spec may
// leave to its kind's default; a job stored without a spec has none.
func decodeSpec(raw json.RawMessage, kind store.Kind) (specHints, error) {
	if len(raw) == 0 {
		return specHints{}, nil
	}
	var doc struct {
		Resources jobfile.Resources `json:"resources"`
		PodSpec   json.RawMessage   `json:"pod_spec"`
	}
	var said struct {
		Resources struct {
			Preemptible *bool `json:"preemptible"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		// The job file as submitted: a duration may be a string ("2h"),
		// which only the job file's parser reads.
		parsed, perr := jobfile.ParseJSON("stored job file", raw)
		if perr != nil {
			return specHints{}, fmt.Errorf("decode job spec: %w", err)
		}
		doc.Resources = parsed.Resources
	}
	if json.Unmarshal(raw, &said) == nil {
		if said.Resources.Preemptible == nil {
			doc.Resources.Preemptible = jobfile.DefaultPreemptible(jobfile.Kind(kind))
		} else {
			doc.Resources.Preemptible = *said.Resources.Preemptible
		}
	}
	s := specOf(jobfile.Kind(kind), doc.Resources)
	if string(doc.PodSpec) != "null" {
		s.podSpec = doc.PodSpec
	}
	return s, nil
}

// checkSpecAgainst refuses a job file that names a QOS or a license the
// configuration does not define, naming the field. Exit actions are
// taken in every pool: one that never preempts still requeues lost
// attempts and owners' requeues, which they govern; the pool is no
// longer read (kept for the callers).
func checkSpecAgainst(cfg *config.Config, _ string, r jobfile.Resources) error {
	var fe fieldErrors // each error, not the first alone (fielderrors.go)
	if _, err := cfg.ResolveQOS(r.QOS); err != nil {
		fe.add(badRequest("resources.qos", "resources.qos: %v", err))
	}
	names := make([]string, 0, len(r.Licenses))
	for name := range r.Licenses {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := cfg.CheckLicense(name); err != nil {
			fe.add(badRequest("resources.licenses."+name, "resources.licenses.%s: %v", name, err))
		}
	}
	return fe.err()
}

// checkProjectQOS refuses a job whose QOS (named, or the configuration's
// default) its project's qos list does not allow (Slurm's AllowQOS),
// naming field: the job file's resources.qos, or a change's qos.
func checkProjectQOS(cfg *config.Config, project, qos, field string) error {
	named := qos != ""
	if !named {
		qos = cfg.DefaultQOS
	}
	err := spec.CheckQOSAllowed(cfg.Projects, project, qos)
	if err == nil {
		return nil
	}
	if !named {
		return badRequest(field, "%s: %v; the job names none, so it would take the default QOS: name one the project may use", field, err)
	}
	return badRequest(field, "%s: %v", field, err)
}

// checkPriorityCap refuses a member's job of project at priority
// priority whose class is more important than the project's
// max_priority_class allows (spec.AbovePriorityCap; trial 2026-11-29a A9:
// any member filed HIGH and preempted other projects' work), naming
// field; its leads and admins are not capped, as only Slurm's operators
// raise a priority.
func checkPriorityCap(cfg *config.Config, p auth.Principal, project string, priority int, field string) error {
	if p.CanRaise(project, "") == nil { // its leads and admins
		return nil
	}
	err := spec.AbovePriorityCap(cfg.Projects, project, string(jobfile.ClassOf(priority)))
	if err == nil {
		return nil
	}
	return &httpError{status: http.StatusForbidden, field: field,
		msg: fmt.Sprintf("%s %d: %v", field, priority, err)}
}

// checkFilePriorityCap is checkPriorityCap for a submitted job file
// (data): the refusal names the field the file gave, priority or
// priority_class, with its value as written ("resources.priority_class:
// HIGH: project nlp caps ..."), so that the CLI points at that line. It
// named resources.priority, which a file of priority_class does not
// have: the CLI pointed at resources: and printed the path twice (trial
// 2026-11-29b B21).
func checkFilePriorityCap(cfg *config.Config, p auth.Principal, project string, job *jobfile.Job, data []byte) error {
	err := checkPriorityCap(cfg, p, project, job.Resources.Priority, "resources.priority")
	var he *httpError
	if !errors.As(err, &he) {
		return err
	}
	field, value := "resources.priority", strconv.Itoa(job.Resources.Priority)
	var file struct {
		Resources map[string]json.RawMessage `json:"resources"`
	}
	if json.Unmarshal(data, &file) == nil && file.Resources["priority"] == nil && file.Resources["priority_class"] != nil {
		field, value = "resources.priority_class", string(job.Resources.PriorityClass)
	}
	_, why, _ := strings.Cut(he.msg, ": ")
	he.field, he.msg = field, field+": "+value+": "+why
	return he
}

// changed gives the hints a change of the job (store.Job's QOS and
// Nice, set by UpdateJob) has overridden since its submission.
func (s *specHints) changed(rec store.Job) {
	if rec.QOS != nil {
		s.qos = *rec.QOS
	}
	if rec.Nice != nil {
		s.nice = *rec.Nice
	}
}

// schedHints fills in job j's facts for its snapshot entry
// (lifecycle.JobFacts) from its hints: QOS and license indexes against
// configuration cfg (the one in force, for the snapshot). It returns a
// pending explanation instead when a reload dropped a QOS or a license
// the job names.
func schedHints(cfg *config.Config, j *mjob, f *lifecycle.JobFacts) *pendingInfo {
	s := &j.spec
	f.MinSlots, f.GPU, f.Topology, f.Nice = s.minSlots, s.gpu, s.topology, s.nice
	qos := s.qos
	if qos == "" {
		qos = cfg.DefaultQOS
	}
	if qos != "" {
		i := cfg.QOSIndex(qos)
		if i < 0 {
			return &pendingInfo{code: "unknown_qos", msg: "QOS " + strconv.Quote(qos) + " is not configured"}
		}
		f.QOS = i
	}
	for _, u := range s.licenses {
		i := cfg.LicenseIndex(u.name)
		if i < 0 {
			return &pendingInfo{code: "unknown_license", msg: "license " + strconv.Quote(u.name) + " is not configured"}
		}
		f.Licenses = append(f.Licenses, sched.LicenseUse{License: i, Count: u.count})
	}
	// In the snapshot's order, as the simulator lists them: the core
	// names the first a job is short of.
	slices.SortFunc(f.Licenses, func(a, b sched.LicenseUse) int { return cmp.Compare(a.License, b.License) })
	return nil
}
