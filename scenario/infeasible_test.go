package scenario

import (
	"strings"
	"testing"
)

// TestAllowInfeasible: a task that can never run within its project's or
// pool's quota, or under a limit, is an error unless the job says
// allow_infeasible, as the live master keeps such a job waiting; the
// field is itself an error where it would never apply.
func TestAllowInfeasible(t *testing.T) {
	cases := []struct {
		name, file, err string
	}{
		{"over project quota", quotaPools + "jobs:\n  - {name: j, slots: 3, project: nlp, preemptible: false}\n",
			`jobs[0] "j": slots: a task of 3 slots can never run within project "nlp"'s quota of 2`},
		{"over project quota, allowed", quotaPools + "jobs:\n  - {name: j, slots: 3, project: nlp, preemptible: false, allow_infeasible: true}\n", ""},
		{"zero quota, allowed", quotaPools + "jobs:\n  - {name: j, slots: 1, project: solo, allow_infeasible: true}\n", ""},
		{"over a limit, allowed", quotaPools + "jobs:\n  - {name: j, slots: 3, project: cap, preemptible: true, allow_infeasible: true}\n", ""},
		{"over a pool quota, allowed", osmoPools + "jobs:\n  - {name: j, pool: pool2, slots: 3, allow_infeasible: true}\n", ""},
		{"fits", quotaPools + "jobs:\n  - {name: j, slots: 2, project: nlp, allow_infeasible: true}\n",
			`jobs[0] "j": allow_infeasible: the job's tasks fit its quota and limits, so allow_infeasible would never apply`},
		{"not a quota pool", osmoPools + "jobs:\n  - {name: j, pool: prio, slots: 3, allow_infeasible: true}\n",
			`allow_infeasible: only quota pools refuse work that can never run within quota, and pool "prio"'s policy is priority`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("f.yaml", []byte(c.file))
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("error %v, want one containing %q", err, c.err)
			case c.err == "":
				if !s.Jobs[0].AllowInfeasible {
					t.Errorf("AllowInfeasible not set: %+v", s.Jobs[0])
				}
				out, err := Marshal(s)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := Parse("back.yaml", out); err != nil {
					t.Errorf("Marshal's output does not parse: %v\n%s", err, out)
				}
			}
		})
	}
}
