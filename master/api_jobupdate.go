package master

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/jobfile"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/yamlfield"
)

// A live job's changes (PATCH /jobs/{id}, allot job update): its
// priority, class and weight, and, as Slurm's scontrol update job, its
// time limit, QOS and nice. Who may change the last three follows
// Slurm: a job's owner may lower its time limit and raise its nice
// (lowering its own priority); raising or removing a time limit, or
// lowering a nice, needs an admin, or the lead of the job's project (as
// Slurm's operators and account coordinators). A QOS must be one the
// job's project may use, as at submission. Each change is stored, with
// its event, before it takes effect; a lowered time limit kills the
// attempts already past it at once (checkTimeLimits), and the what-if
// export replays each as a set_ event at its second (whatif_changes.go).

// patchFieldHint adds to the refusal of a PATCH naming a field it does
// not take (and that is no likely typo of one, which the refusal already
// names) the fields it does take, and, for a field of the job file that
// PATCH does not take (slots, gpu, ...), that it is fixed at submission:
// the bare `unknown field "slots"` left the caller guessing whether PATCH
// can change it at all.
func patchFieldHint(err error) error {
	var he *httpError
	if !errors.As(err, &he) || !strings.HasPrefix(he.msg, "unknown field ") || strings.Contains(he.msg, "did you mean") {
		return err
	}
	takes := jsonFieldNames(reflect.TypeOf(api.JobUpdate{}), nil, 0)
	list := strings.Join(takes[:len(takes)-1], ", ") + " and " + takes[len(takes)-1]
	msg := fmt.Sprintf("%s: PATCH changes a job's %s only", he.msg, list)
	if slices.Contains(jsonFieldNames(reflect.TypeOf(jobfile.Job{}), nil, 0), he.field) {
		msg = fmt.Sprintf("%s: a job's %s is fixed when it is submitted (kill the job and submit it again to change it); PATCH changes its %s only",
			he.msg, he.field, list)
	}
	return &httpError{status: he.status, field: he.field, msg: msg}
}

// checkUpdate validates a PATCH's values and makes priority and class
// agree: a class alone sets its canonical number, a number alone sets its
// class. Who may make a change, and whether the job's project allows a
// QOS, are checked against the job (checkLimits).
func checkUpdate(id int64, u api.JobUpdate) (store.JobUpdate, error) {
	su := store.JobUpdate{ID: id, Weight: u.Weight, QOS: u.QOS, Reason: "changed through the API"}
	if u.Priority != nil && (*u.Priority < jobfile.MinPriority || *u.Priority > jobfile.MaxPriority) {
		return su, badRequest("priority", "priority %d: expected 1..99 (lower is more important)", *u.Priority)
	}
	if u.PriorityClass != nil {
		c := jobfile.PriorityClass(*u.PriorityClass)
		if c.Priority() == 0 {
			return su, badRequest("priority_class", "priority class %q: expected HIGH, NORMAL or LOW", *u.PriorityClass)
		}
		if u.Priority != nil && jobfile.ClassOf(*u.Priority) != c {
			return su, badRequest("priority_class", "priority %d is in class %s, not %s", *u.Priority, jobfile.ClassOf(*u.Priority), c)
		}
		if u.Priority == nil {
			p := c.Priority()
			u.Priority = &p
		}
	}
	if u.Priority != nil {
		c := string(jobfile.ClassOf(*u.Priority))
		su.Priority, su.PriorityClass = u.Priority, &c
	}
	if u.Weight != nil && (!(*u.Weight > 0) || math.IsInf(*u.Weight, 0)) {
		return su, badRequest("weight", "weight %v: expected a positive number", *u.Weight)
	}
	limit, err := updateTimeLimit(u)
	if err != nil {
		return su, err
	}
	su.TimeLimit = limit
	if u.QOS != nil && *u.QOS == "" {
		return su, badRequest("qos", "qos: expected the name of a QOS level")
	}
	if u.Nice != nil && (*u.Nice < 0 || *u.Nice > jobfile.MaxNice) {
		return su, badRequest("nice", "nice %d: expected 0..%d, as in a job file (a larger nice is a lower priority)", *u.Nice, jobfile.MaxNice)
	}
	su.Nice = u.Nice
	return su, nil
}

// updateTimeLimit reads a PATCH's time limit: time_limit in the job
// file's forms, or time_limit_s in seconds; nil for neither.
func updateTimeLimit(u api.JobUpdate) (*time.Duration, error) {
	if string(bytes.TrimSpace(u.TimeLimit)) == "null" {
		u.TimeLimit = nil // kept, as a null of any other field
	}
	var secs int64
	switch {
	case len(u.TimeLimit) > 0 && u.TimeLimitS != nil:
		return nil, badRequest("time_limit", "time_limit and time_limit_s are the same limit: give one of them")
	case u.TimeLimitS != nil:
		if *u.TimeLimitS < 0 || *u.TimeLimitS > int64(math.MaxInt64/time.Second) {
			return nil, badRequest("time_limit_s", "time_limit_s %d: expected whole seconds >= 0 (0 removes the limit)", *u.TimeLimitS)
		}
		secs = *u.TimeLimitS
	case len(u.TimeLimit) > 0:
		text := string(bytes.TrimSpace(u.TimeLimit))
		if strings.HasPrefix(text, `"`) {
			if err := json.Unmarshal(u.TimeLimit, &text); err != nil {
				return nil, badRequest("time_limit", "time_limit: %v", err)
			}
		}
		v, err := yamlfield.DurationText(text)
		if err != nil {
			return nil, badRequest("time_limit", "time_limit: %v (0 removes the limit)", err)
		}
		secs = v
	default:
		return nil, nil
	}
	d := time.Duration(secs) * time.Second
	return &d, nil
}

// updateJob changes a live job as p asks and triggers a pass.
func (ja *jobsAPI) updateJob(ctx context.Context, p auth.Principal, u store.JobUpdate) (api.Job, error) {
	v, err := ja.changeJob(ctx, p, u)
	if err != nil {
		return api.Job{}, err
	}
	view := ja.jobView(v, v.job(u.ID), ja.asOf())
	// The reply shows the job as GET /jobs/{id} does, its QOS and nice
	// (the spec's, as changed) included, which the change may be of.
	if err := ja.specView(ctx, &view); err != nil {
		return api.Job{}, err
	}
	return view, nil
}

// changeJob makes updateJob's change and returns the view that shows it.
func (ja *jobsAPI) changeJob(ctx context.Context, p auth.Principal, u store.JobUpdate) (*readView, error) {
	ja.m.lock()
	defer ja.m.unlock()
	j, ok := ja.m.jobs[u.ID]
	if !ok || j.rec.State.Terminal() {
		return nil, endedJob(ja.notLive(ctx, u.ID))
	}
	if err := ja.checkLimits(p, j, u); err != nil {
		return nil, err
	}
	u.At = ja.m.now()
	if u.PriorityClass != nil {
		// LOW work is always preemptible; outside LOW a job is what its
		// file said explicitly, else its kind's default, whatever class
		// it was filed in (specHints.preemptible): the simulator's rule
		// too (lifecycle.PreemptibleIn).
		p := j.spec.preemptible
		if len(j.rec.Spec) == 0 {
			p = j.rec.Preemptible // no job file to go back to
		}
		p = lifecycle.PreemptibleIn(jobfile.PriorityClass(*u.PriorityClass) == jobfile.ClassLow, p)
		u.Preemptible = &p
	}
	lowered := u.TimeLimit != nil && *u.TimeLimit > 0 && (j.rec.TimeLimit == 0 || *u.TimeLimit < j.rec.TimeLimit)
	rec, err := ja.m.st.UpdateJob(ctx, u)
	if err != nil {
		return nil, err
	}
	noteAudit(ctx, "%s", jobChangeDetail(j.rec, rec, ja.m.Config().DefaultQOS))
	setJob(ja.m, j, rec)
	j.spec.changed(rec)
	j.entryGen = 0
	ja.m.planner.roster.touch(j)
	ja.m.pub.markJob(j)
	if lowered {
		// Its attempts already past the new limit are killed now, by the
		// time limit's rule, not on the next tick: the replay ends them
		// at the change's second too (set_time_limit).
		ja.m.planner.limits.checkTimeLimits(ctx)
	}
	ja.m.kick()
	ja.m.pub.publish()
	return ja.m.pub.read.Load(), nil
}

// endedJob adds to the refusal of a change of a job that ended (409)
// that only a live job changes.
func endedJob(err error) error {
	var he *httpError
	if errors.As(err, &he) && he.status == http.StatusConflict {
		return &httpError{status: he.status, field: he.field, msg: he.msg + ": only a job that has not ended can change"}
	}
	return err
}

// checkLimits checks a change of job j's time limit, QOS or nice
// against who asks (p) and the job. Callers hold mu.
func (ja *jobsAPI) checkLimits(p auth.Principal, j *mjob, u store.JobUpdate) error {
	project := j.rec.Project
	if u.Priority != nil && *u.Priority < j.rec.Priority {
		if err := checkPriorityCap(ja.m.Config(), p, project, *u.Priority, "priority"); err != nil {
			return err
		}
	}
	if u.TimeLimit != nil {
		from, to := j.rec.TimeLimit, *u.TimeLimit
		if to != from && (to == 0 || from > 0 && to > from) {
			what := fmt.Sprintf("raising job %d's time_limit from %s to %s", j.rec.ID, limitWords(from), limitWords(to))
			if to == 0 {
				what = fmt.Sprintf("removing job %d's time_limit of %s", j.rec.ID, shortLimit(from))
			}
			if err := p.CanRaise(project, what+" (its owner may lower it)"); err != nil {
				return err
			}
		}
	}
	// A nice lowered down to the one the job was submitted with undoes
	// its owner's own raise (a typo of --nice for --priority); only below
	// that does it take priority from others, which needs a lead, as
	// Slurm's negative nice needs an operator (trial 2026-11-29i I20).
	if floor := submittedNice(j.rec); u.Nice != nil && *u.Nice < j.spec.nice && *u.Nice < floor {
		what := fmt.Sprintf("lowering job %d's nice from %d to %d, below the %d it was submitted with, which raises its priority "+
			"(its owner may only raise a nice, or lower it back to %d)", j.rec.ID, j.spec.nice, *u.Nice, floor, floor)
		if err := p.CanRaise(project, what); err != nil {
			return err
		}
	}
	if u.QOS != nil {
		cfg := ja.m.Config()
		if _, err := cfg.ResolveQOS(*u.QOS); err != nil {
			return badRequest("qos", "qos: %v", err)
		}
		if err := checkProjectQOS(cfg, project, *u.QOS, "qos"); err != nil {
			return err
		}
	}
	return nil
}

// submittedNice is the nice job rec was submitted with: its job file's,
// whatever a change set since.
func submittedNice(rec store.Job) int {
	_, nice := store.Job{Spec: rec.Spec}.QOSNice()
	return nice
}

// limitWords is a time limit in a message: its duration, or none.
func limitWords(d time.Duration) string {
	return shortLimit(d)
}
