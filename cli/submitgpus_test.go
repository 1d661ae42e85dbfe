package cli

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/jobfile"
)

// TestSubmitGPUOverride: --gpus (-G) replaces a one-task job's
// resources.slots, as sbatch -G sets a job's GPUs; an experiment refuses
// it, pointing at --gpus-per-task, which any job takes; a count outside
// the file's min_slots..max_slots, below 0, or both flags, are refused
// naming the flag before anything is sent (trial o F11).
func TestSubmitGPUOverride(t *testing.T) {
	command := writeTestFile(t, "one.yaml", "name: one\nentrypoint: python train.py\nresources: {slots: 2}\n")
	elastic := writeTestFile(t, "elastic.yaml", "name: el\nentrypoint: python train.py\nresources: {slots: 4, min_slots: 2, max_slots: 8}\n")
	sweep := writeTestFile(t, "sweep.yaml", `name: sweep
kind: experiment
entrypoint: python train.py
resources: {slots: 1}
hyperparameters:
  lr: [0.1, 0.01]
searcher: {name: grid, max_concurrent_trials: 2}
`)
	cases := []struct {
		name string
		args []string
		want int    // the slots sent
		err  string // else the usage error
	}{
		{name: "no flag: the file's slots", args: []string{command}, want: 2},
		{name: "-G", args: []string{"-G", "8", command}, want: 8},
		{name: "--gpus", args: []string{"--gpus", "1", command}, want: 1},
		{name: "zero: a zero-slot task", args: []string{"--gpus", "0", command}, want: 0},
		{name: "--gpus-per-task", args: []string{"--gpus-per-task", "3", command}, want: 3},
		{name: "an experiment per trial", args: []string{"--gpus-per-task", "2", sweep}, want: 2},
		{name: "an experiment in all", args: []string{"-G", "4", sweep}, err: "--gpus: an experiment runs several trials at once"},
		{name: "both", args: []string{"-G", "4", "--gpus-per-task", "2", command}, err: "--gpus and --gpus-per-task: give one"},
		{name: "negative", args: []string{"--gpus=-1", command}, err: "--gpus: expected an integer >= 0, got -1"},
		{name: "within min and max slots", args: []string{"-G", "2", elastic}, want: 2},
		{name: "below min_slots", args: []string{"-G", "1", elastic}, err: "--gpus 1: fewer than the job file's resources.min_slots 2"},
		{name: "above max_slots", args: []string{"--gpus-per-task", "16", elastic}, err: "--gpus-per-task 16: more than the job file's resources.max_slots 8"},
	}
	// The master refuses 32 GPUs as it would the file's slots: the
	// refusal names the flag, not the file's line.
	t.Run("a count the pool could never run", func(t *testing.T) {
		f := newFakeMaster(t)
		_, _, err := runAt(t, f, "submit", "-G", "32", command)
		if err == nil || !strings.HasPrefix(err.Error(), `--gpus: job "one" can never run: `) {
			t.Fatalf("submit -G 32: %v, want the master's refusal naming the flag", err)
		}
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeMaster(t)
			_, _, err := runAt(t, f, append([]string{"submit"}, c.args...)...)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("submit %v: %v, want an error with %q", c.args, err, c.err)
				}
				var ue *usageError
				if !errors.As(err, &ue) {
					t.Errorf("%v is no usage error (exit 2)", err)
				}
				if slices.Contains(f.requests, "POST /api/v1/jobs") {
					t.Fatal("a refused flag still submitted the job")
				}
				return
			}
			if err != nil {
				t.Fatalf("submit %v: %v", c.args, err)
			}
			i := slices.Index(f.requests, "POST /api/v1/jobs")
			if i < 0 {
				t.Fatal("nothing submitted")
			}
			j, err := jobfile.ParseJSON("sent", []byte(f.bodies[i]))
			if err != nil {
				t.Fatal(err)
			}
			if j.Resources.Slots != c.want {
				t.Fatalf("slots sent %d, want %d", j.Resources.Slots, c.want)
			}
		})
	}
}
