package master

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/spec"
)

// qosKept is a group of live jobs of one project at one QOS level that
// the project's qos list does not allow: named is whether they name the
// level (else they name none and take the default).
type qosKept struct {
	project, qos string
	named        bool
	refused      error // spec.CheckQOSAllowed's words
	jobs         []*mjob
}

// disallowedQOS says, under cfg, of the live jobs whose QOS their
// project's qos list does not allow (a reload took the level off the
// list, or the master started with such a configuration), which they
// are and what becomes of them: nothing. A list is checked at
// submission only, as Slurm's AllowQOS is: a job keeps the QOS it was
// accepted with, waits, starts and runs at it, and only new submissions
// are refused. Without the warning the admin would not learn that a
// level the reload meant to take away is still in use.
func (u jobsUnder) disallowedQOS() []string {
	cfg := u.cfg
	groups := map[[2]string]*qosKept{}
	var order []*qosKept
	for _, j := range u.jobs {
		if !j.live() {
			continue
		}
		qos, named := j.spec.qos, j.spec.qos != ""
		if !named {
			qos = cfg.DefaultQOS
		}
		if qos == "" {
			continue
		}
		key := [2]string{j.rec.Project, strconv.Quote(qos) + strconv.FormatBool(named)}
		g := groups[key]
		if g == nil {
			err := spec.CheckQOSAllowed(cfg.Projects, j.rec.Project, qos)
			if err == nil {
				groups[key] = &qosKept{}
				continue
			}
			g = &qosKept{project: j.rec.Project, qos: qos, named: named, refused: err}
			groups[key], order = g, append(order, g)
		}
		if g.refused != nil {
			g.jobs = append(g.jobs, j)
		}
	}
	for _, g := range order {
		slices.SortFunc(g.jobs, func(a, b *mjob) int { return cmp.Compare(a.rec.ID, b.rec.ID) })
	}
	slices.SortFunc(order, func(a, b *qosKept) int { return cmp.Compare(a.jobs[0].rec.ID, b.jobs[0].rec.ID) })
	out := make([]string, 0, len(order))
	for _, g := range order {
		out = append(out, g.warning())
	}
	return out
}

// warning words one group: `project rl may not use QOS "high" (the qos
// of its parent research: normal), but job 19 (queued) has it: ...`.
func (g *qosKept) warning() string {
	named := make([]string, 0, maxEmptyPoolJobs+1)
	for _, j := range g.jobs[:min(len(g.jobs), maxEmptyPoolJobs)] {
		named = append(named, j.idString()+" ("+string(j.rec.State)+")")
	}
	if len(g.jobs) > maxEmptyPoolJobs {
		named = append(named, fmt.Sprintf("%d more", len(g.jobs)-maxEmptyPoolJobs))
	}
	verb := func(one, many string) string {
		if len(g.jobs) == 1 {
			return one
		}
		return many
	}
	has := verb("has", "have") + " it"
	if !g.named {
		has = verb("names", "name") + " no QOS and so " + verb("takes", "take") + " it, the default"
	}
	return fmt.Sprintf("%v, but %s %s %s: jobs keep the QOS they were accepted with, and wait, start and run at it; only new submissions with it are refused",
		g.refused, plural.Noun(len(g.jobs), "job"), andList(named), has)
}

// checkJobQOS refuses a reload that drops a QOS level that live jobs
// name, as checkJobLicenses refuses one that drops their license: the
// queued ones would wait for ever (unknown_qos) and the running ones
// run at a level nothing defines, while the admin who reloaded was told
// nothing (trial 29h H1). Jobs that name no level take default_qos,
// which the new configuration must define, so they are not counted; nor
// is a level the configuration in force lacks already. Callers hold mu.
func (rl reloader) checkJobQOS(cfg *config.Config) error {
	m := rl.m
	users := qosUsers(m.jobs, cfg, func(q string) bool { return m.cfg.QOSIndex(q) >= 0 })
	if len(users) == 0 {
		return nil
	}
	return badRequest("", "reload %s: the new configuration drops the %s that live jobs have: %s: "+
		"keep the level until they end, move them to a level it keeps (allot job update ID --qos LEVEL), "+
		"or kill them (allot job kill ID); the configuration in force is unchanged",
		m.opt.ConfigPath, plural.Noun(len(users), "QOS level"), sayQOSUsers(users))
}

// unknownQOS says, at the master's start, of the live jobs that name a
// QOS level cfg lacks (it was dropped from the file while the master was
// down), what becomes of them, as a reload would have refused to drop it
// (checkJobQOS) and licenseWarnings says of a license.
func (u jobsUnder) unknownQOS() []string {
	users := qosUsers(u.jobs, u.cfg, func(string) bool { return true })
	if len(users) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("the configuration lacks the %s that live jobs have: %s: the running ones go on; "+
		"the waiting ones wait (unknown_qos) until it is back (add it to the configuration and reload), "+
		"or move them to a level it has (allot job update ID --qos LEVEL), or kill them (allot job kill ID)",
		plural.Noun(len(users), "QOS level"), sayQOSUsers(users))}
}

// qosUsers is, by level, the live jobs that name a QOS level cfg lacks,
// of the levels counts says count. Jobs that name no level take
// default_qos, which cfg must define, so they are not counted. Callers
// hold mu.
func qosUsers(jobs map[int64]*mjob, cfg *config.Config, counts func(qos string) bool) map[string][]*mjob {
	users := map[string][]*mjob{}
	for _, j := range jobs {
		q := j.spec.qos
		if q == "" || j.gone || !j.live() || cfg.QOSIndex(q) >= 0 || !counts(q) {
			continue
		}
		users[q] = append(users[q], j)
	}
	return users
}

// sayQOSUsers names qosUsers' levels and jobs: "qos high: jobs 7
// (queued), 8 (running)".
func sayQOSUsers(users map[string][]*mjob) string {
	var named []string
	for _, q := range slices.Sorted(maps.Keys(users)) {
		js := users[q]
		slices.SortFunc(js, func(a, b *mjob) int { return cmp.Compare(a.rec.ID, b.rec.ID) })
		named = append(named, "qos "+q+": "+plural.Noun(len(js), "job")+" "+
			firstFive(js, func(j *mjob) string { return j.idString() + " (" + string(j.rec.State) + ")" }))
	}
	return strings.Join(named, "; ")
}
