package k8s

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"

	"go.yaml.in/yaml/v3"
	v1 "k8s.io/api/core/v1"

	"github.com/allot-sched/allot/sched"
)

// LabelProject names the project of a pod, overriding its namespace's.
const LabelProject = "allot.dev/project"

// OtherProject holds the GPUs of pods other schedulers bound: they count
// as used in quota pools without being charged to a project of Allot's.
const OtherProject = "(other schedulers)"

// Project is a quota and fair-share entity, with the master
// configuration's field names (docs/config.md), and the
// namespaces whose pods belong to it.
type Project struct {
	Name string `yaml:"name"`
	// Parent is a project listed earlier; a parent's quota is divided
	// among its children.
	Parent string `yaml:"parent"`
	// Quota is the GPUs the project is guaranteed when it asks (quota
	// policy).
	Quota int `yaml:"quota"`
	// OverQuotaWeight divides spare GPUs among projects wanting more than
	// their quota; default max(quota, 1).
	OverQuotaWeight float64 `yaml:"over_quota_weight"`
	// Limit caps the GPUs the project may hold; 0 is no cap.
	Limit int `yaml:"limit"`
	// Shares is the project's weight under the fair_share policy; default
	// max(quota, 1).
	Shares float64 `yaml:"shares"`
	// Namespaces are the namespaces whose pods are the project's.
	Namespaces []string `yaml:"namespaces"`
}

// projectsFile is the layout of --projects.
type projectsFile struct {
	Projects []Project `yaml:"projects"`
}

// LoadProjects reads a projects file.
func LoadProjects(path string) ([]Project, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("projects file: %w", err)
	}
	ps, err := ParseProjects(data)
	if err != nil {
		return nil, fmt.Errorf("projects file %s: %w", path, err)
	}
	return ps, nil
}

// ParseProjects parses and checks a projects file, filling defaults.
func ParseProjects(data []byte) ([]Project, error) {
	var f projectsFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	seen, owner := map[string]int{}, map[string]string{}
	var errs []error
	for i := range f.Projects {
		p := &f.Projects[i]
		if p.OverQuotaWeight == 0 {
			p.OverQuotaWeight = float64(max(p.Quota, 1))
		}
		if p.Shares == 0 {
			p.Shares = float64(max(p.Quota, 1))
		}
		errs = append(errs, checkProject(p, seen))
		seen[p.Name] = i
		for _, ns := range p.Namespaces {
			if o, dup := owner[ns]; dup {
				errs = append(errs, fmt.Errorf("namespace %q is in projects %q and %q", ns, o, p.Name))
			}
			owner[ns] = p.Name
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return f.Projects, checkChildQuotas(f.Projects)
}

// checkProject checks one project against those listed before it.
// Parents must come first, so the tree cannot have a cycle.
func checkProject(p *Project, before map[string]int) error {
	_, dup := before[p.Name]
	_, parent := before[p.Parent]
	switch {
	case p.Name == "" || p.Name == OtherProject:
		return fmt.Errorf("project name %q: want a name, not empty or %q", p.Name, OtherProject)
	case dup:
		return fmt.Errorf("project %q: listed twice", p.Name)
	case p.Parent != "" && !parent:
		return fmt.Errorf("project %q: parent %q is not listed before it", p.Name, p.Parent)
	case p.Quota < 0 || p.Limit < 0 || p.OverQuotaWeight < 0 || p.Shares < 0:
		return fmt.Errorf("project %q: quota, limit, over_quota_weight and shares must not be negative", p.Name)
	case p.Limit > 0 && p.Limit < p.Quota:
		return fmt.Errorf("project %q: limit %d is below the quota %d (0 means no limit)", p.Name, p.Limit, p.Quota)
	}
	return nil
}

// checkChildQuotas refuses children whose quotas add up to more than
// their parent's.
func checkChildQuotas(ps []Project) error {
	sum := map[string]int{}
	for _, p := range ps {
		if p.Parent != "" {
			sum[p.Parent] += p.Quota
		}
	}
	for _, p := range ps {
		if sum[p.Name] > p.Quota {
			return fmt.Errorf("project %q: its children's quotas add up to %d, more than its quota %d", p.Name, sum[p.Name], p.Quota)
		}
	}
	return nil
}

// projectIndex maps pods to indices of the snapshot's projects: the
// configured ones, then DefaultProject (unless configured) for pods of
// namespaces no project lists, then OtherProject.
type projectIndex struct {
	byName map[string]int
	byNS   map[string]int
	def    int
	other  int
	shares []float64
}

// addProjects puts the configured projects into the snapshot.
func (b *builder) addProjects() {
	ix := projectIndex{byName: map[string]int{}, byNS: map[string]int{}}
	s := &b.pass.Snap
	add := func(p Project) {
		ix.byName[p.Name] = len(s.Projects)
		parent := -1
		if p.Parent != "" {
			parent = ix.byName[p.Parent]
		}
		s.Projects = append(s.Projects, sched.Project{Name: p.Name, Parent: parent, Quota: p.Quota,
			OverQuotaWeight: p.OverQuotaWeight, Limit: p.Limit})
		ix.shares = append(ix.shares, p.Shares)
		for _, ns := range p.Namespaces {
			ix.byNS[ns] = ix.byName[p.Name]
		}
	}
	for _, p := range b.cfg.Projects {
		add(p)
	}
	if _, ok := ix.byName[DefaultProject]; !ok {
		add(Project{Name: DefaultProject, OverQuotaWeight: 1, Shares: 1})
	}
	add(Project{Name: OtherProject, OverQuotaWeight: 1, Shares: 1})
	ix.def, ix.other = ix.byName[DefaultProject], ix.byName[OtherProject]
	b.projects = ix
}

// projectOf is the pod's project: its allot.dev/project label, else its
// namespace's project, else the default one.
func (ix *projectIndex) projectOf(p *v1.Pod) (int, error) {
	if name, ok := p.Labels[LabelProject]; ok {
		if i, ok := ix.byName[name]; ok && i != ix.other {
			return i, nil
		}
		return 0, fmt.Errorf("label %s=%q names no project (projects: %v)", LabelProject, name, ix.names())
	}
	if i, ok := ix.byNS[p.Namespace]; ok {
		return i, nil
	}
	return ix.def, nil
}

func (ix *projectIndex) names() []string {
	var out []string
	for name, i := range ix.byName {
		if i != ix.other {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// weigh sets each job's fair-share weight to its project's shares divided
// among the project's jobs, so that a project's weight does not grow with
// the number of pods it submits. Pods bound by other schedulers keep 1.
func (b *builder) weigh() {
	s := &b.pass.Snap
	count := make([]int, len(s.Projects))
	for i := range s.Jobs {
		if b.pass.Jobs[i].Pending != nil || b.pass.Jobs[i].Bound > 0 {
			count[s.Jobs[i].Project]++
		}
	}
	for i := range s.Jobs {
		if pr := s.Jobs[i].Project; count[pr] > 0 && pr != b.projects.other {
			s.Jobs[i].Weight = b.projects.shares[pr] / float64(count[pr])
		}
	}
}
