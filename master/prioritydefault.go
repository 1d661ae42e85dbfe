package master

import (
	"encoding/json"

	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/jobfile"
	"github.com/allot-sched/allot/spec"
)

// capDefaultPriority gives a job that names no priority (its body has
// neither resources.priority nor resources.priority_class) its project's
// max_priority_class when p is capped by it and the cap is below the
// default class: a job of a member of a LOW-capped project is LOW, as
// Slurm applies a partition's or QOS's limits to a job's defaults. Before,
// it was refused for the default priority (42) that the member never
// wrote, and `submit --wrap` could not be used at all (trial 2026-11-29c
// C9). It returns the body naming the class, and whether it changed it;
// the stored job is that body, so its priority and class, its
// preemptibility as LOW and a what-if replay agree with the record.
// An explicit preemptible: false on such a job is refused (lowCapPreemptible),
// not dropped: the job would run preemptible against what its file says.
func capDefaultPriority(cfg *config.Config, p auth.Principal, project string, data []byte) ([]byte, bool, error) {
	if p.CanRaise(project, "") == nil { // its leads and admins: not capped
		return nil, false, nil
	}
	if spec.AbovePriorityCap(cfg.Projects, project, string(jobfile.ClassNormal)) == nil {
		return nil, false, nil // the default is within the cap
	}
	var file map[string]json.RawMessage
	if json.Unmarshal(data, &file) != nil {
		return nil, false, nil
	}
	res := map[string]json.RawMessage{}
	if raw, ok := file["resources"]; ok && json.Unmarshal(raw, &res) != nil {
		return nil, false, nil
	}
	if res["priority"] != nil || res["priority_class"] != nil {
		return nil, false, nil // named: checked against the cap as given
	}
	if string(res["preemptible"]) == "false" {
		return nil, false, lowCapPreemptible(cfg, project)
	}
	class, _ := spec.MaxPriorityClass(cfg.Projects, project)
	var err error
	if res["priority_class"], err = json.Marshal(class); err != nil {
		return nil, false, nil
	}
	if file["resources"], err = json.Marshal(res); err != nil {
		return nil, false, nil
	}
	out, err := json.Marshal(file)
	if err != nil {
		return nil, false, nil
	}
	return out, true, nil
}

// lowCapPreemptible refuses preemptible: false on a member's job that
// names no priority in a project capped below the default class: the job
// takes the cap's class (LOW), which is always preemptible, and dropping
// the field would run it preemptible against what it says. A CLI of
// before this refusal sent preemptible: false for every command job
// (its kind's default), hence the last sentence; the CLI now sends only
// what the file names (cli.leaveDefaults).
func lowCapPreemptible(cfg *config.Config, project string) error {
	class, from := spec.MaxPriorityClass(cfg.Projects, project)
	where := "project " + project
	if from != project {
		where += " (by its parent " + from + ")"
	}
	return badRequest("resources.preemptible", "resources.preemptible: false: %s caps its members' jobs at priority class %s "+
		"(max_priority_class), which this job takes as it names no priority, and %s work is always preemptible: "+
		"leave preemptible out (or set it true) to run it %s and preemptible; work that must not be preempted needs "+
		"a lead of project %s or an admin to submit it. An allot CLI older than this master sends preemptible: false "+
		"for every command job: update it, or submit with --priority-class %s", where, class, class, class, project, class)
}
