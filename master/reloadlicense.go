package master

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/plural"
)

// licenseUser is a live job that holds a license or waits for it: held
// is what its tasks with attempts hold, perTask what each task takes.
type licenseUser struct {
	j             *mjob
	perTask, held int
	waiting       bool
}

// say words the user for a warning or refusal: "job 18 (running,
// holds 1)", "job 19 (queued, waits for 1 per task)".
func (u licenseUser) say() string {
	var how []string
	if u.held > 0 {
		how = append(how, fmt.Sprintf("holds %d", u.held))
	}
	if u.waiting {
		how = append(how, fmt.Sprintf("waits for %d per task", u.perTask))
	}
	return "job " + u.j.idString() + " (" + string(u.j.rec.State) + ", " + strings.Join(how, ", ") + ")"
}

// licenseUsers lists, for each license that want keeps, the live jobs
// that hold or wait for it, in id order.
func licenseUsers(jobs map[int64]*mjob, want func(name string) bool) map[string][]licenseUser {
	out := map[string][]licenseUser{}
	for _, j := range jobs {
		if j.gone || !j.live() {
			continue
		}
		waiting := !j.rec.State.Terminal() && j.count.Queued() > 0
		for _, l := range j.spec.licenses {
			u := licenseUser{j: j, perTask: l.count, held: l.count * j.active(), waiting: waiting}
			if want(l.name) && (u.held > 0 || u.waiting) {
				out[l.name] = append(out[l.name], u)
			}
		}
	}
	for _, us := range out {
		slices.SortFunc(us, func(a, b licenseUser) int { return cmp.Compare(a.j.rec.ID, b.j.rec.ID) })
	}
	return out
}

// sayLicenseUsers names a license's users, the first five and how many
// more: "jobs 18 (running, holds 1), 19 (queued, waits for 1 per task)".
func sayLicenseUsers(us []licenseUser) string {
	return plural.Noun(len(us), "job") + " " + firstFive(us, func(u licenseUser) string {
		return strings.TrimPrefix(u.say(), "job ")
	})
}

// checkJobLicenses refuses a reload that drops a license that live jobs
// hold or wait for, as checkJobProjects refuses one that drops their
// project: the running ones would hold what no total bounds any more,
// and the waiting ones wait for it for ever (unknown_license), while
// the admin who reloaded was told nothing (trial 29g G1). Lowering the
// total, to 0 too, is the way to let the running ones finish and start
// nothing new: that is taken, with a warning (licenseWarnings). A
// license the configuration in force lacks already is not counted
// again. Callers hold mu.
func (rl reloader) checkJobLicenses(cfg *config.Config) error {
	m := rl.m
	users := licenseUsers(m.jobs, func(name string) bool {
		return cfg.LicenseIndex(name) < 0 && m.cfg.LicenseIndex(name) >= 0
	})
	if len(users) == 0 {
		return nil
	}
	var named []string
	for _, name := range slices.Sorted(maps.Keys(users)) {
		named = append(named, "license "+name+": "+sayLicenseUsers(users[name]))
	}
	return badRequest("", "reload %s: the new configuration drops the %s that live jobs hold or wait for: %s: "+
		"keep the license until they end (a total of 0 lets the running ones finish and starts nothing new), "+
		"or kill them (allot job kill ID); the configuration in force is unchanged",
		m.opt.ConfigPath, plural.Noun(len(users), "license"), strings.Join(named, "; "))
}

// licenseWarnings says, under cfg, of the licenses that live jobs hold
// or wait for and that cfg gives less of than was did (a reload lowered
// the total, to 0 too), which jobs use them and what becomes of them:
// running tasks keep what they hold and finish, as Slurm lets running
// jobs keep a lowered license, and waiting ones start only when enough
// are free under the new total; one whose task takes more than the
// total can never start until it is raised. With was nil (the master's
// start, when what the total was is not known), it says the same of a
// license too small for a waiting task, and of one cfg lacks (the jobs
// are kept: unknown_license), which a reload refuses (checkJobLicenses).
func (u jobsUnder) licenseWarnings(was *config.Config) []string {
	cfg := u.cfg
	users := licenseUsers(u.jobs, func(string) bool { return true })
	var out []string
	for _, name := range slices.Sorted(maps.Keys(users)) {
		us := users[name]
		i := cfg.LicenseIndex(name)
		if i < 0 {
			if was == nil {
				out = append(out, fmt.Sprintf("license %s is not configured, but %s %s it: the running ones go on; "+
					"the waiting ones wait (unknown_license) until it is back (add it to the configuration and reload), "+
					"or kill them (allot job kill ID)", name, sayLicenseUsers(us), useVerb(len(us))))
			}
			continue
		}
		total := cfg.Licenses[i].Total
		never := neverLicensed(us, total)
		if was != nil {
			wi := was.LicenseIndex(name)
			if wi < 0 || was.Licenses[wi].Total <= total {
				continue
			}
			out = append(out, fmt.Sprintf("license %s: total lowered from %d to %d, but %s %s it: running tasks keep what they hold "+
				"and finish; waiting ones start only when enough are free under the new total%s",
				name, was.Licenses[wi].Total, total, sayLicenseUsers(us), useVerb(len(us)), never))
			continue
		}
		if never != "" {
			out = append(out, fmt.Sprintf("license %s has a total of %d, but %s %s it%s", name, total, sayLicenseUsers(us), useVerb(len(us)), never))
		}
	}
	return out
}

// neverLicensed says which waiting users need more of a license per task
// than its total, "; job 19 needs more per task than the total: it can
// never start until the total is raised again (or kill it: allot job
// kill 19)", or "".
func neverLicensed(us []licenseUser, total int) string {
	var ids []string
	for _, u := range us {
		if u.waiting && u.perTask > total {
			ids = append(ids, u.j.idString())
		}
	}
	if len(ids) == 0 {
		return ""
	}
	shown := firstFive(ids, func(id string) string { return id })
	if len(ids) == 1 {
		return fmt.Sprintf("; job %s needs more per task than the total: it can never start until the total is raised again "+
			"(or kill it: allot job kill %s)", ids[0], ids[0])
	}
	return fmt.Sprintf("; jobs %s need more per task than the total: they can never start until the total is raised again "+
		"(or kill them: allot job kill ID)", shown)
}

// useVerb is "uses" for one job, "use" for more.
func useVerb(n int) string {
	if n == 1 {
		return "uses"
	}
	return "use"
}
