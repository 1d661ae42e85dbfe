package scenario

import (
	"strings"
	"testing"
)

// TestKeepQOS: a job whose QOS (named, or the first level it takes) its
// project's qos list does not allow is an error, at its qos field or its
// line, unless it says keep_qos, as the live master keeps a job accepted
// before a reload took its level off the list; keep_qos is itself an
// error where it would never apply. Pools that do not read a job's QOS
// check nothing (the format takes no qos there). DisallowedQOS judges as
// Parse does, for the history export.
func TestKeepQOS(t *testing.T) {
	cases := []struct {
		name, job, err string
		disallowed     bool // what DisallowedQOS says of the job
	}{
		{"a level off the list", "{name: j, project: lab, qos: emergency}", `jobs[0] "j": qos: project lab may not use QOS "emergency" (its qos: normal)`, true},
		{"a level off the list, kept", "{name: j, project: lab, qos: emergency, keep_qos: true}", "", true},
		{"the first level, off the parent's list, kept", "{name: j, project: sub, keep_qos: true}", "", true},
		{"a level on the list", "{name: j, project: lab, qos: normal, keep_qos: true}",
			`jobs[0] "j": keep_qos: project lab may use QOS "normal", so keep_qos would never apply`, false},
		{"a fifo pool, naming none", "{name: j, pool: cpu, project: sub}", "", false},
		{"a fifo pool, kept", "{name: j, pool: cpu, project: sub, keep_qos: true}",
			`jobs[0] "j": keep_qos: only priority and multifactor pools use a job's QOS, and pool "cpu"'s policy is fifo, so keep_qos would never apply`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("f.yaml", []byte(projectQOS+"  - "+c.job+"\n"))
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), "f.yaml:12: "+c.err)):
				t.Fatalf("error %v, want one containing %q", err, c.err)
			case c.err != "":
				return
			}
			if got := DisallowedQOS(s, &s.Jobs[0]) != nil; got != c.disallowed {
				t.Errorf("DisallowedQOS: %v, want %v", got, c.disallowed)
			}
			out, err := Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Parse("back.yaml", out)
			if err != nil {
				t.Fatalf("Marshal's output does not parse: %v\n%s", err, out)
			}
			if back.Jobs[0].KeepQOS != s.Jobs[0].KeepQOS {
				t.Errorf("keep_qos %v after Marshal and Parse, want %v", back.Jobs[0].KeepQOS, s.Jobs[0].KeepQOS)
			}
		})
	}
}
