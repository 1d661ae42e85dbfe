package master

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// exportHints sets a scenario job's QOS and licenses from the job file the
// store kept with it (store.Job.Spec), the record the master itself
// restores them from (decodeSpec), so the replay asks for what the live
// job asked for. It returns a note for what the replay cannot carry:
// a QOS or a license the configuration no longer has (the live job waits
// for it as unknown_qos or unknown_license; the replay drops it), and
// false, with why, for a job that needs more of a license than exist,
// which no scenario can hold (the export leaves it out: jobExport.drop).
func exportHints(j store.Job, sj *scenario.Job, p *scenario.Pool, cfg *config.Config) (string, bool) {
	h, err := decodeSpec(j.Spec, j.Kind)
	if err != nil {
		return fmt.Sprintf("job %d replays at the default QOS and with no licenses: %v", j.ID, err), true
	}
	var notes []string
	qos := h.qos
	if qos != "" && cfg.QOSIndex(qos) < 0 {
		notes = append(notes, "its QOS "+strconv.Quote(qos)+" is no longer configured")
		qos = ""
	}
	if qos == "" {
		qos = cfg.DefaultQOS // what the live master resolves "" to
	}
	// Only priority and multifactor pools read a job's QOS; the format
	// takes none elsewhere, and none that is the first listed, its default.
	if (p.Policy == sched.PolicyPriority || p.Policy == sched.PolicyMultifactor) && len(cfg.QOS) > 0 && qos != cfg.QOS[0].Name {
		sj.QOS = qos
	}
	if p.Policy == sched.PolicyMultifactor {
		sj.Nice = h.nice // the job file's; a change is a set_nice (exportLimitChanges)
	}
	for _, u := range h.licenses {
		i := cfg.LicenseIndex(u.name)
		switch {
		case i < 0:
			notes = append(notes, "its license "+strconv.Quote(u.name)+" is no longer configured")
			continue
		case u.count > cfg.Licenses[i].Total:
			return fmt.Sprintf("each task needs %d of license %s, and only %d exist",
				u.count, strconv.Quote(u.name), cfg.Licenses[i].Total), false
		}
		if sj.Licenses == nil {
			sj.Licenses = map[string]int{}
		}
		sj.Licenses[u.name] = u.count
	}
	if len(notes) == 0 {
		return "", true
	}
	note := fmt.Sprintf("job %d replays without what is no longer configured:", j.ID)
	for i, n := range notes {
		if i > 0 {
			note += ";"
		}
		note += " " + n
	}
	return note, true
}

// emptyWindowNote is the export's note for a window in which no job was
// submitted, "" when one was: the scenario then has no job to replay,
// and its report is all zeros, which says nothing of why. It tells a
// window that nothing ran in from one whose jobs were all submitted
// before it (the export holds the jobs submitted in the window only).
func emptyWindowNote(jobs []store.Job, byJob map[int64][]store.Attempt, since, until time.Time) string {
	ran := 0
	for _, j := range jobs {
		if !j.SubmittedAt.Before(since) && j.SubmittedAt.Before(until) {
			return ""
		}
		for _, a := range byJob[j.ID] {
			if a.StartedAt.Before(until) && (a.EndedAt.IsZero() || !a.EndedAt.Before(since)) {
				ran++
				break
			}
		}
	}
	win := fmt.Sprintf("from %s to %s", since.Format(time.RFC3339), until.Format(time.RFC3339))
	if ran == 0 {
		return "no job was submitted or ran in the window, " + win + ": there is nothing to replay; a window that starts earlier (since) may hold some"
	}
	return fmt.Sprintf("no job was submitted in the window, %s: the export holds the jobs submitted in it, and the %s that ran in it %s submitted before it",
		win, plural.Count(ran, "job"), map[bool]string{true: "was", false: "were"}[ran == 1])
}

// carriedInNote is the export's note on the jobs submitted before the
// window that still held GPUs in it, "" when none did or no job was
// submitted in it (emptyWindowNote says it then). The export holds the
// jobs submitted in the window only, so the replay starts with those
// GPUs free: what waited for them live may start earlier in the replay,
// and allot history check then differs though nothing was wrong.
func carriedInNote(jobs []store.Job, byJob map[int64][]store.Attempt, since, until time.Time) string {
	type held struct {
		id   int64
		pool string
		gpus int
		secs float64 // GPU-seconds in the window
	}
	var hs []held
	submitted := false
	for _, j := range jobs {
		if !j.SubmittedAt.Before(since) {
			submitted = submitted || j.SubmittedAt.Before(until)
			continue
		}
		h, overlaps := held{id: j.ID, pool: j.Pool}, false
		for _, a := range byJob[j.ID] {
			if !a.StartedAt.Before(until) || (!a.EndedAt.IsZero() && !a.EndedAt.After(since)) {
				continue
			}
			overlaps = true
			from, to := maxTime(a.StartedAt, since), until
			if !a.EndedAt.IsZero() && a.EndedAt.Before(to) {
				to = a.EndedAt
			}
			gpus := 0
			for _, p := range a.Placement {
				gpus += len(p.GPUs)
			}
			h.gpus = max(h.gpus, gpus)
			h.secs += float64(gpus) * to.Sub(from).Seconds()
		}
		if overlaps {
			hs = append(hs, h)
		}
	}
	if !submitted || len(hs) == 0 {
		return ""
	}
	// The jobs that held most of the window's GPUs first: the ones whose
	// absence most likely made the difference (trial p F7).
	slices.SortStableFunc(hs, func(a, b held) int { return cmp.Compare(b.secs, a.secs) })
	ids := make([]string, len(hs))
	for i, h := range hs {
		ids[i] = fmt.Sprintf("job %d (%s in pool %s)", h.id, plural.Count(h.gpus, "GPU"), h.pool)
	}
	list := strings.Join(ids, ", ")
	if len(ids) > 3 {
		list = strings.Join(ids[:3], ", ") + fmt.Sprintf(" and %d more", len(ids)-3)
	}
	return fmt.Sprintf("%s submitted before the window held GPUs in it (%s, most GPU time first), which the replay leaves free: "+
		"what waited for them may start earlier than live; a window from before their submission (since) includes them",
		plural.Count(len(hs), "job"), list)
}
