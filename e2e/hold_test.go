package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// holdScript is a task that runs until the test releases it, so that a
// task ending is a step the test takes. It prints its attempt; on a
// checkpoint request (the preempt file or SIGTERM) it notes the attempt in
// ALLOT_CHECKPOINT_DIR/checkpoints, prints "checkpoint attempt N" and
// exits 0; once $E2E_RELEASE/JOB-TASK exists it prints "released attempt
// N" and exits 0.
const holdScript = `echo "task $ALLOT_TASK_INDEX attempt $ALLOT_ATTEMPT restart $ALLOT_RESTART_COUNT on [$CUDA_VISIBLE_DEVICES]"
ckpt() { echo "$ALLOT_ATTEMPT" >> "$ALLOT_CHECKPOINT_DIR/checkpoints"; echo "checkpoint attempt $ALLOT_ATTEMPT"; exit 0; }
trap ckpt TERM
while [ ! -f "$E2E_RELEASE/$ALLOT_JOB_ID-$ALLOT_TASK_INDEX" ]; do
  if [ -f "$ALLOT_PREEMPT_FILE" ]; then ckpt; fi
  sleep 0.2
done
echo "released attempt $ALLOT_ATTEMPT"`

// jobSpec is a job file. It is written as JSON, which YAML reads too.
type jobSpec struct {
	Name            string            `json:"name"`
	Kind            string            `json:"kind,omitempty"`
	Pool            string            `json:"pool,omitempty"`
	Entrypoint      string            `json:"entrypoint"`
	Environment     map[string]string `json:"environment,omitempty"`
	Resources       resources         `json:"resources"`
	Hyperparameters map[string]any    `json:"hyperparameters,omitempty"`
	Searcher        map[string]any    `json:"searcher,omitempty"`
}

type resources struct {
	Slots         int    `json:"slots"`
	Priority      int    `json:"priority,omitempty"`
	PriorityClass string `json:"priority_class,omitempty"`
	Preemptible   *bool  `json:"preemptible,omitempty"`
}

// trials makes the job an experiment of n trials, at most concurrent of
// them running at once (0: no cap).
func (s *jobSpec) trials(n, concurrent int) {
	s.Kind = "experiment"
	s.Hyperparameters = map[string]any{"trial": map[string]any{"type": "int", "minval": 0, "maxval": n - 1, "count": n}}
	s.Searcher = map[string]any{"name": "grid"}
	if concurrent > 0 {
		s.Searcher["max_concurrent_trials"] = concurrent
	}
}

func (s jobSpec) file(t *testing.T) string {
	t.Helper()
	b, err := jsonOf(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func jsonOf(s jobSpec) (json.RawMessage, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", s.Name, err)
	}
	return b, nil
}

// holdJob is a job whose tasks run holdScript.
func (c *cluster) holdJob(name string, slots int) jobSpec {
	return jobSpec{Name: name, Entrypoint: holdScript, Environment: map[string]string{"E2E_RELEASE": c.releaseDir()},
		Resources: resources{Slots: slots}}
}

// releaseDir is where release files go.
func (c *cluster) releaseDir() string {
	return filepath.Join(c.dir, "release")
}

// release lets a holdScript task of job id finish, now or when it starts.
func (c *cluster) release(id int64, task int) {
	c.t.Helper()
	if err := os.MkdirAll(c.releaseDir(), 0o755); err != nil {
		c.t.Fatal(err)
	}
	name := filepath.Join(c.releaseDir(), fmt.Sprintf("%d-%d", id, task))
	if err := os.WriteFile(name, nil, 0o644); err != nil {
		c.t.Fatal(err)
	}
}

// attemptText is the stdout of one attempt of a task, line by line.
func (c *cluster) attemptText(id int64, task, attempt int) []string {
	c.t.Helper()
	var out []string
	for _, l := range c.logLines(id, task) {
		if l.Attempt == attempt && l.Stream == "stdout" {
			out = append(out, l.Text)
		}
	}
	return out
}

// checkHeld checks the output of a holdScript attempt: it began once,
// with the right attempt and restart count, and ended as end says
// ("released" or "checkpoint").
func (c *cluster) checkHeld(id int64, task, attempt, restarts int, end string) {
	c.t.Helper()
	text := c.attemptText(id, task, attempt)
	first := fmt.Sprintf("task %d attempt %d restart %d on [", task, attempt, restarts)
	last := end + " attempt " + strconv.Itoa(attempt)
	if len(text) != 2 || !strings.HasPrefix(text[0], first) || text[1] != last {
		c.t.Errorf("job %d task %d attempt %d printed %q; want %q… then %q", id, task, attempt, text, first, last)
	}
}
