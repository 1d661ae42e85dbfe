package store

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/lifecycle"
)

// TestStatesMatchSchema checks that the job, task and attempt end states
// (the shared vocabulary's, lifecycle's) are exactly what the schema's
// CHECK constraints allow (and the empty string, an open attempt's end
// state), in both dialects: the values persist, so a state renamed or
// added there without a migration fails here.
func TestStatesMatchSchema(t *testing.T) {
	jobs := []JobState{JobQueued, JobRunning, JobCompleted, JobFailed, JobKilled}
	tasks := []TaskState{TaskQueued, TaskStarting, TaskRunning, TaskPreempting, TaskKilling,
		TaskPreempted, TaskCompleted, TaskFailed, TaskKilled}
	attempts := []AttemptState{AttemptCompleted, AttemptFailed, AttemptKilled, AttemptPreempted, AttemptLost}
	want := map[string][]string{"jobs": {}, "tasks": {}, "attempts": {""}}
	for _, s := range jobs {
		want["jobs"] = append(want["jobs"], string(s))
	}
	for _, s := range tasks {
		want["tasks"] = append(want["tasks"], string(s))
	}
	for _, s := range attempts {
		want["attempts"] = append(want["attempts"], string(s))
	}
	table := regexp.MustCompile(`(?s)CREATE TABLE (\w+) \((.*?)\n\)[^;]*;`)
	check := regexp.MustCompile(`(?s)\n\s+(?:end_)?state\s+TEXT\s+NOT NULL\s+(?:DEFAULT ''\s+)?CHECK \((?:end_)?state IN \((.*?)\)\)`)
	for _, dialect := range []string{"sqlite", "postgres"} {
		data, err := migrationFiles.ReadFile("migrations/" + dialect + "/0001_init.sql")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]string{}
		for _, m := range table.FindAllStringSubmatch(string(data), -1) {
			if c := check.FindStringSubmatch(m[2]); c != nil && want[m[1]] != nil {
				for _, v := range strings.Split(c[1], ",") {
					got[m[1]] = append(got[m[1]], strings.Trim(strings.TrimSpace(v), "'"))
				}
			}
		}
		for _, name := range []string{"jobs", "tasks", "attempts"} {
			t.Run(dialect+" "+name, func(t *testing.T) {
				if !slices.Equal(got[name], want[name]) {
					t.Errorf("schema allows %q, the states are %q", got[name], want[name])
				}
			})
		}
	}
	t.Run("valid", func(t *testing.T) {
		for _, s := range jobs {
			if !s.Valid() {
				t.Errorf("job state %q not valid", s)
			}
		}
		for _, s := range tasks {
			if !s.Valid() {
				t.Errorf("task state %q not valid", s)
			}
		}
		if !slices.Equal(attempts, lifecycle.AttemptStates()) {
			t.Errorf("store's attempt end states %q, lifecycle's %q", attempts, lifecycle.AttemptStates())
		}
		for _, s := range attempts {
			if !s.Valid() {
				t.Errorf("attempt end state %q not valid", s)
			}
		}
	})
}
