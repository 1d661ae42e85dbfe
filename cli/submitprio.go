package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/jobfile"
)

// priorityClasses are --priority-class's values, most important first.
var priorityClasses = []string{string(jobfile.ClassHigh), string(jobfile.ClassNormal), string(jobfile.ClassLow)}

// registerPriorityClass declares submit's --priority-class on cmd.
func (f *submitFlags) registerPriorityClass(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.priorityClass, "priority-class", "",
		"the job's priority class, HIGH, NORMAL or LOW, over the job file's resources.priority and priority_class")
	_ = cmd.RegisterFlagCompletionFunc("priority-class",
		cobra.FixedCompletions(priorityClasses, cobra.ShellCompDirectiveNoFileComp))
}

// overridePriority puts --priority-class over the job's priority, and
// says in flags that it set resources.priority_class.
func (f *submitFlags) overridePriority(cmd *cobra.Command, job *jobfile.Job, flags map[string]string) error {
	if !cmd.Flags().Changed("priority-class") {
		return nil
	}
	class := jobfile.PriorityClass(strings.ToUpper(strings.TrimSpace(f.priorityClass)))
	if class.Priority() == 0 {
		return usageErrorf("--priority-class: expected one of %s, got %q", strings.Join(priorityClasses, ", "), f.priorityClass)
	}
	job.Resources.Priority, job.Resources.PriorityClass = class.Priority(), class
	if class == jobfile.ClassLow {
		job.Resources.Preemptible = true // LOW work always is
	}
	// The master names either field, as the job sent has both.
	flags["resources.priority_class"] = "--priority-class"
	flags["resources.priority"] = "--priority-class"
	return nil
}

// leaveDefaults drops from spec, the job as sent, the defaults that
// neither the job file (data) nor a flag named: its priority, so that
// the master knows that the job names none and gives it its project's
// max_priority_class when that is below the default (trial 2026-11-29c
// C9), and its preemptible, so that the master reads an explicit
// preemptible: false as the user's (it refuses it on a job its LOW cap
// applies to, rather than drop it) and not as the kind's default filled
// in here. A master that does not know this gives both their defaults,
// the ones the CLI sent before: priority 42, and the kind's preemptible.
func leaveDefaults(spec, data []byte, flags map[string]string) ([]byte, error) {
	var drop []string
	if _, ok := flags["resources.priority_class"]; !ok && !jobfile.HasField(data, "resources.priority") && !jobfile.HasField(data, "resources.priority_class") {
		drop = append(drop, "priority", "priority_class")
	}
	if !jobfile.HasField(data, "resources.preemptible") {
		drop = append(drop, "preemptible")
	}
	if len(drop) == 0 {
		return spec, nil
	}
	var file map[string]json.RawMessage
	if err := json.Unmarshal(spec, &file); err != nil {
		return nil, fmt.Errorf("encode the job spec: %w", err)
	}
	var res map[string]json.RawMessage
	if err := json.Unmarshal(file["resources"], &res); err != nil {
		return nil, fmt.Errorf("encode the job spec: %w", err)
	}
	for _, k := range drop {
		delete(res, k)
	}
	var err error
	if file["resources"], err = json.Marshal(res); err != nil {
		return nil, fmt.Errorf("encode the job spec: %w", err)
	}
	return json.Marshal(file)
}
