package cli

import (
	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/jobfile"
)

// GPU-count overrides for allot submit. A job file gives GPUs per task
// (resources.slots). sbatch's -G/--gpus is the job's GPUs in all, which
// for a job of one task (a command, notebook, shell or TensorBoard, a
// gang across nodes included) is that task's slots; an experiment runs
// many trials at once, so there "in all" is no one field to set, and
// --gpus is refused, pointing at --gpus-per-task (sbatch's own name for
// GPUs per task) and max_slots. Both are checked against the file's
// other slot fields here, naming the flag, before anything is sent.

// gpuFlags are allot submit's GPU-count flags, read only where given
// (Changed): 0 is a zero-slot task, and a sentinel default would show in
// --help as "(default -1)".
type gpuFlags struct {
	gpus, perTask int
}

func (g *gpuFlags) register(cmd *cobra.Command) {
	cmd.Flags().IntVarP(&g.gpus, "gpus", "G", 0,
		"the job's GPUs in all, over the job file's resources.slots (one task's GPUs; a gang spans nodes when one has too few); not for an experiment (sbatch -G)")
	cmd.Flags().IntVar(&g.perTask, "gpus-per-task", 0,
		"GPUs per task (each trial of an experiment), over the job file's resources.slots (sbatch --gpus-per-task)")
	expectFlag(cmd, "gpus", "a whole number >= 0")
	expectFlag(cmd, "gpus-per-task", "a whole number >= 0")
}

// override sets job's resources.slots from the flag given, recording it
// in flags (field → flag), or refuses the flag with a usage error.
func (g *gpuFlags) override(cmd *cobra.Command, job *jobfile.Job, flags map[string]string) error {
	all, per := cmd.Flags().Changed("gpus"), cmd.Flags().Changed("gpus-per-task")
	flag, n := "--gpus", g.gpus
	switch {
	case all && per:
		return usageErrorf("--gpus and --gpus-per-task: give one (a job file's resources.slots is GPUs per task)")
	case !all && !per:
		return nil
	case per:
		flag, n = "--gpus-per-task", g.perTask
	case job.Kind == jobfile.KindExperiment:
		return usageErrorf("--gpus: an experiment runs several trials at once, so its GPUs in all are no one number to set; " +
			"give --gpus-per-task N (each trial's GPUs, resources.slots) or set resources.max_slots (the most it holds in all) in the job file")
	}
	r := &job.Resources
	switch {
	case n < 0:
		return usageErrorf("%s: expected an integer >= 0, got %d", flag, n)
	case r.MinSlots > 0 && n < r.MinSlots:
		return usageErrorf("%s %d: fewer than the job file's resources.min_slots %d, the fewest an elastic task starts on; lower min_slots in the file too",
			flag, n, r.MinSlots)
	case r.MaxSlots > 0 && n > r.MaxSlots:
		return usageErrorf("%s %d: more than the job file's resources.max_slots %d, the most the job may hold at once; raise max_slots in the file too",
			flag, n, r.MaxSlots)
	}
	r.Slots = n
	flags["resources.slots"] = flag
	return nil
}
