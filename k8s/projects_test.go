package k8s

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/allot-sched/allot/sched"
)

func TestParseProjects(t *testing.T) {
	tests := []struct {
		name, yaml, err string
	}{
		{"ok", `projects:
- {name: org, quota: 8}
- {name: a, parent: org, quota: 4, namespaces: [a, a-dev]}
- {name: b, parent: org, quota: 4, shares: 3, limit: 6}`, ""},
		{"unknown field", "projects:\n- {name: a, qouta: 4}", "field qouta not found"},
		{"duplicate", "projects:\n- {name: a}\n- {name: a}", "listed twice"},
		{"parent after child", "projects:\n- {name: a, parent: b}\n- {name: b}", "not listed before"},
		{"namespace twice", "projects:\n- {name: a, namespaces: [x]}\n- {name: b, namespaces: [x]}", `namespace "x" is in projects`},
		{"limit below quota", "projects:\n- {name: a, quota: 4, limit: 2}", "below the quota"},
		{"children over parent", "projects:\n- {name: o, quota: 2}\n- {name: a, parent: o, quota: 2}\n- {name: b, parent: o, quota: 1}", "add up to 3"},
		{"reserved name", "projects:\n- {name: \"" + OtherProject + "\"}", "want a name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := ParseProjects([]byte(tc.yaml))
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if ps[1].OverQuotaWeight != 4 || ps[1].Shares != 4 || ps[2].Shares != 3 {
					t.Errorf("defaults not filled: %+v", ps)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("err = %v, want one containing %q", err, tc.err)
			}
		})
	}
}

// TestBuildProjects checks the mapping of pods to projects and the
// fair-share weights.
func TestBuildProjects(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Pool.Policy = sched.PolicyQuota
	cfg.Projects = []Project{{Name: "a", Quota: 4, OverQuotaWeight: 1, Shares: 2, Namespaces: []string{"ns"}},
		{Name: "b", Quota: 4, OverQuotaWeight: 1, Shares: 1}}
	label := func(project string) func(*v1.Pod) {
		return func(p *v1.Pod) { p.Labels = map[string]string{LabelProject: project} }
	}
	other := func(p *v1.Pod) { p.Namespace = "elsewhere" }
	foreign := func(p *v1.Pod) { p.Spec.SchedulerName = "default-scheduler"; p.Spec.NodeName = "n" }
	pods := []*v1.Pod{pod("a1", 1, nil), pod("a2", 1, nil), pod("b1", 1, label("b")), pod("d1", 1, other),
		pod("x", 1, foreign), pod("bad", 1, label("nope"))}
	p := Build(&cfg, Cluster{Nodes: []*v1.Node{node("n", 8, nil)}, Pods: pods}, InFlight{}, time.Unix(1000, 0))
	names := map[string]string{}
	weights := map[string]float64{}
	for _, j := range p.Snap.Jobs {
		names[j.ID] = p.Snap.Projects[j.Project].Name
		weights[j.ID] = j.Weight
	}
	want := map[string]string{"ns/a1": "a", "ns/a2": "a", "ns/b1": "b", "elsewhere/d1": DefaultProject, "bound:ns/x": OtherProject}
	for id, pr := range want {
		if names[id] != pr {
			t.Errorf("job %s in project %q, want %q", id, names[id], pr)
		}
	}
	if weights["ns/a1"] != 1 || weights["ns/b1"] != 1 {
		t.Errorf("weights %v: want a's 2 shares split over its 2 pods, b's 1 share on its one", weights)
	}
	if len(p.Waits) != 1 || !strings.Contains(p.Waits[0].Message, `names no project`) {
		t.Errorf("waits %+v, want the pod of an unknown project", p.Waits)
	}
	if _, err := sched.Schedule(&p.Snap); err != nil {
		t.Errorf("the core refused the snapshot: %v", err)
	}
}

// TestDocsProjectsExample parses the projects file shown in
// docs/kubernetes.md, so the example stays valid.
func TestDocsProjectsExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/kubernetes.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(\\s*projects:.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("no projects example in docs/kubernetes.md")
	}
	ps, err := ParseProjects([]byte(dedent(string(m[1]))))
	if err != nil {
		t.Fatalf("the documented example: %v", err)
	}
	if len(ps) != 3 || ps[1].Namespaces[0] != "vision" {
		t.Errorf("parsed %+v", ps)
	}
}

// dedent removes the indentation of the first line from every line.
func dedent(s string) string {
	indent := len(s) - len(strings.TrimLeft(s, " "))
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = l[min(indent, len(l)-len(strings.TrimLeft(l, " "))):]
	}
	return strings.Join(lines, "\n")
}
