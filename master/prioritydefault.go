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
func capDefaultPriority(cfg *config.Config, p auth.Principal, project string, data []byte) ([]byte, bool) {
	if p.CanRaise(project, "") == nil { // its leads and admins: not capped
		return nil, false
	}
	if spec.AbovePriorityCap(cfg.Projects, project, string(jobfile.ClassNormal)) == nil {
		return nil, false // the default is within the cap
	}
	class, _ := spec.MaxPriorityClass(cfg.Projects, project)
	var file map[string]json.RawMessage
	if json.Unmarshal(data, &file) != nil {
		return nil, false
	}
	res := map[string]json.RawMessage{}
	if raw, ok := file["resources"]; ok && json.Unmarshal(raw, &res) != nil {
		return nil, false
	}
	if res["priority"] != nil || res["priority_class"] != nil {
		return nil, false // named: checked against the cap as given
	}
	if string(res["preemptible"]) == "false" {
		// LOW work is always preemptible: the CLI sends its kind's
		// default (false for a command), which a LOW class overrides.
		delete(res, "preemptible")
	}
	var err error
	if res["priority_class"], err = json.Marshal(class); err != nil {
		return nil, false
	}
	if file["resources"], err = json.Marshal(res); err != nil {
		return nil, false
	}
	out, err := json.Marshal(file)
	if err != nil {
		return nil, false
	}
	return out, true
}
