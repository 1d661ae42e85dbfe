package store

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestStatesMatchSchema checks that the job and task states (the shared
// vocabulary's, lifecycle's) are exactly what the schema's CHECK
// constraints allow, in both dialects: the values persist, so a state
// renamed or added there without a migration fails here.
func TestStatesMatchSchema(t *testing.T) {
	jobs := []JobState{JobQueued, JobRunning, JobCompleted, JobFailed, JobKilled}
	tasks := []TaskState{TaskQueued, TaskStarting, TaskRunning, TaskPreempting, TaskKilling,
		TaskPreempted, TaskCompleted, TaskFailed, TaskKilled}
	want := map[string][]string{"jobs": {}, "tasks": {}}
	for _, s := range jobs {
		want["jobs"] = append(want["jobs"], string(s))
	}
	for _, s := range tasks {
		want["tasks"] = append(want["tasks"], string(s))
	}
	table := regexp.MustCompile(`(?s)CREATE TABLE (\w+) \((.*?)\n\);`)
	check := regexp.MustCompile(`(?s)\n\s+state\s+TEXT\s+NOT NULL CHECK \(state IN \((.*?)\)\)`)
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
		for _, name := range []string{"jobs", "tasks"} {
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
	})
}
