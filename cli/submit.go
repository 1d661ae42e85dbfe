package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/jobfile"
)

// submitFlags are allot submit's flags.
type submitFlags struct {
	allow, dry, hold bool
	out              outputFlag
	// pool, project, name and qos override the job file's (sbatch's -p,
	// -A, -J and -q), so that one file serves several of each.
	pool, project, name, qos string
	// timeLimit overrides the file's resources.time_limit (sbatch -t).
	timeLimit string
	// gpus overrides its resources.slots (sbatch -G, submitgpus.go).
	gpus gpuFlags
	// wrap is sbatch's --wrap: a job of this command, no job file.
	wrap string
	// priorityClass overrides the file's priority (submitprio.go).
	priorityClass string
}

// override puts the flags given over the job's fields, and returns the
// fields they set, by the name the master gives a refused field.
func (f *submitFlags) override(cmd *cobra.Command, job *jobfile.Job) map[string]string {
	set := map[string]string{}
	for _, o := range []struct {
		flag, field string
		to          *string
		v           string
	}{
		{"pool", "pool", &job.Pool, f.pool},
		{"project", "project", &job.Project, f.project},
		{"name", "name", &job.Name, f.name},
		{"qos", "resources.qos", &job.Resources.QOS, f.qos},
	} {
		if cmd.Flags().Changed(o.flag) {
			*o.to = o.v
			set[o.field] = "--" + o.flag
		}
	}
	return set
}

func newSubmitCmd() *cobra.Command {
	var f submitFlags
	cmd := &cobra.Command{
		Use:   "submit [FILE]",
		Short: "Submit a job file (or a command: --wrap) and print the new job's ID",
		Long: `Check a job file (docs/jobfile.md) locally, so that mistakes are reported
with their line before anything is sent, then submit it to the master and
print the new job's ID alone on stdout, for scripts to capture. FILE "-"
reads the job file from stdin.

A job that no node of its pool could ever run (a task larger than the
pool's nodes hold together, a GPU type no node has, more of a license than
exist) is refused, naming the field and the most that could fit;
--allow-infeasible queues it anyway, to wait for nodes or a configuration
that does not exist yet.

--dry-run (or --test-only, Slurm's name) submits nothing: the master judges
the job exactly as a submission, settles its scheduling as the master
would live, and says whether it would start now, or the reason it would
wait, what would let it start, its place in the pool's queue and its
estimated start, as if submitted now. A job a submission would refuse gets the same
error and exit code; one that would be accepted exits 0.

--pool (-p), --project (-A), --name (-J) and --qos (-q), as sbatch's,
replace the job file's pool, project, name and resources.qos, so that one
file serves several. The master checks --qos as it checks the file's qos
(a level the configuration defines, and one the job's project may use),
and names the flag when it refuses it. --time (-t), as sbatch's, replaces
resources.time_limit: with its unit (90m, 2h, 1d12h) or Slurm's form
(1-00:00:00, 1:30:00), 0 for none; a bare number is refused, since sbatch
reads it as minutes and a job file as seconds.

--gpus (-G), as sbatch's, is the job's GPUs in all: it replaces
resources.slots, the GPUs of the job's one task (a task larger than a
node runs as a gang across nodes; 0 makes a zero-slot task). An
experiment runs several trials at once, so --gpus is refused for it:
--gpus-per-task (sbatch's name too) sets each trial's, resources.slots,
for any job. Either is refused below the file's min_slots or above its
max_slots.

--wrap COMMAND, as sbatch's, submits a job of that command without a job
file: a command job named wrap, on 1 GPU, in the default pool and project,
its output kept by the master (allot job logs ID); -G, -t, -J, -p, -A,
-q and --priority-class set the rest, as over a file's.

--priority-class HIGH, NORMAL or LOW replaces the file's resources.priority
and priority_class with the class's priority. A job that names none is
NORMAL (42), or, for a member of a project whose max_priority_class is
LOW, LOW.`,
		Example: `  allot submit train.yaml
  id=$(allot submit sweep.yaml) && allot job logs "$id" -f
  allot submit --allow-infeasible big.yaml   # waits for nodes yet to join
  allot submit --hold train.yaml             # held until allot job release ID
  allot submit --dry-run train.yaml          # would it start, and when?
  allot submit -p batch -A nlp train.yaml    # another pool and project than the file's
  allot submit -q high --dry-run train.yaml  # would it start sooner at QOS high?
  allot submit -t 2h train.yaml              # the file's job with a 2-hour limit
  allot submit -G 8 train.yaml               # on 8 GPUs, whatever the file's slots
  allot submit --gpus-per-task 2 sweep.yaml  # each trial of an experiment on 2 GPUs
  allot submit --test-only train.yaml -o json
  allot submit -G 1 -t 2h --wrap "python train.py --lr 3e-4"   # sbatch --wrap: no job file`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := f.jobFile(cmd, args)
			if err != nil {
				return err
			}
			return runSubmit(cmd, path, &f)
		},
	}
	f.register(cmd)
	return cmd
}

// register declares submit's flags on cmd.
func (f *submitFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.allow, "allow-infeasible", false,
		"queue the job even if no node registered now could ever run it")
	cmd.Flags().BoolVarP(&f.hold, "hold", "H", false,
		"submit the job held: it keeps its place by age but does not start until allot job release ID (sbatch -H)")
	cmd.Flags().BoolVar(&f.dry, "dry-run", false,
		"judge the job as a submission and say when it would start, without submitting it")
	cmd.Flags().BoolVar(&f.dry, "test-only", false, "the same as --dry-run (Slurm's sbatch --test-only)")
	cmd.Flags().StringVarP(&f.pool, "pool", "p", "", "the pool to submit to, over the job file's pool: (sbatch -p)")
	cmd.Flags().StringVarP(&f.project, "project", "A", "", "the project to submit to, over the job file's project: (sbatch -A)")
	cmd.Flags().StringVarP(&f.name, "name", "J", "", "the job's name, over the job file's name: (sbatch -J)")
	cmd.Flags().StringVarP(&f.qos, "qos", "q", "", "the job's QOS level, over the job file's resources.qos: (sbatch -q)")
	cmd.Flags().StringVar(&f.wrap, "wrap", "",
		"submit a job of this command, without a job file (sbatch --wrap); -G, -t, -J, -p, -A, -q and --priority-class set the rest")
	cmd.Flags().StringVarP(&f.timeLimit, "time", "t", "",
		"the time limit per task, over the job file's resources.time_limit, with its unit (90m, 2h) or Slurm's form (1-00:00:00); 0 for none (sbatch -t)")
	f.registerPriorityClass(cmd)
	f.gpus.register(cmd)
	f.out.register(cmd)
}

func runSubmit(cmd *cobra.Command, path string, f *submitFlags) error {
	if err := f.out.check(); err != nil {
		return err
	}
	name, data, err := f.readJob(cmd, path)
	if err != nil {
		return err
	}
	job, err := jobfile.Parse(name, data)
	if err != nil {
		return err
	}
	flags := f.override(cmd, job)
	if cmd.Flags().Changed("time") {
		secs, err := timeLimitFlag("--time", f.timeLimit)
		if err != nil {
			return err
		}
		job.Resources.TimeLimit = secs
		flags["resources.time_limit"] = "--time"
	}
	if err := f.gpus.override(cmd, job, flags); err != nil {
		return err
	}
	if err := f.overridePriority(cmd, job, flags); err != nil {
		return err
	}
	if n, ok := flags["name"]; ok && strings.TrimSpace(job.Name) == "" {
		return usageErrorf("%s: expected a name, got %q", n, job.Name)
	}
	if q, ok := flags["resources.qos"]; ok && job.Resources.QOS == "" {
		return usageErrorf("%s: expected a QOS name, got %q (leave the flag out for the job file's or the default QOS)", q, job.Resources.QOS)
	}
	spec, err := json.Marshal(job)
	if err != nil {
		return fmt.Errorf("encode the job spec: %w", err)
	}
	if spec, err = leaveDefaults(spec, data, flags); err != nil {
		return err
	}
	c, err := newClient(cmd)
	if err != nil {
		return err
	}
	ctx, cancel := requestContext(cmd)
	defer cancel()
	opt := client.SubmitOptions{AllowInfeasible: f.allow, Hold: f.hold}
	w := cmd.OutOrStdout()
	if f.dry {
		d, err := c.DryRun(ctx, spec, opt)
		if err != nil {
			return submitError("dry run", path, name, data, flags, err)
		}
		if done, err := f.out.structured(w, d); done {
			return err
		}
		return printDryRun(w, d)
	}
	r, err := c.SubmitWith(ctx, spec, opt)
	if err != nil {
		return submitError("submit", path, name, data, flags, err)
	}
	if done, err := f.out.structured(w, r); done {
		return err
	}
	_, err = fmt.Fprintln(w, r.ID)
	return err
}

// wrapPath stands for the job --wrap makes, in place of a file's path.
const wrapPath = "--wrap"

// jobFile is the job file args name, or wrapPath for --wrap, which takes
// none (trial 2026-11-29b B10: sbatch's one-line jobs).
func (f *submitFlags) jobFile(cmd *cobra.Command, args []string) (string, error) {
	wrap := cmd.Flags().Changed("wrap")
	switch {
	case wrap && len(args) > 0:
		return "", usageErrorf("--wrap: give a job file or --wrap COMMAND, not both (got %q too)", args[0])
	case wrap && strings.TrimSpace(f.wrap) == "":
		return "", usageErrorf("--wrap: expected a command, got %q", f.wrap)
	case wrap:
		return wrapPath, nil
	case len(args) == 0:
		return "", &usageError{cmd: cmd.CommandPath(), err: fmt.Errorf("expected a file (allot submit FILE), or a command (allot submit --wrap COMMAND)")}
	}
	return args[0], nil
}

// readJob reads the job file at path, or, for wrapPath, makes the job
// --wrap asks for: a command job named wrap, the rest the defaults and
// the flags'.
func (f *submitFlags) readJob(cmd *cobra.Command, path string) (string, []byte, error) {
	if path != wrapPath {
		return readJobFile(cmd, path)
	}
	data, err := json.Marshal(map[string]string{"name": "wrap", "entrypoint": f.wrap})
	if err != nil {
		return "", nil, fmt.Errorf("encode the --wrap job: %w", err)
	}
	return wrapPath, data, nil
}
