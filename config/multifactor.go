package config

import (
	"math"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/yamlfield"
)

// The sections of multifactor pools: the pool's multifactor block, the
// QOS list, licenses and the usage decay.

var fairShareModes = []sched.FairShareMode{sched.FairShareClassic, sched.FairShareTree}

// nonNegative accepts a finite number >= 0.
func nonNegative(p *yamlfield.Parser, raw *yaml.Node, path string) (float64, bool) {
	n, ok := yamlfield.Scalar(raw, "!!int", "!!float")
	var v float64
	if !ok || !yamlfield.DecodeScalar(n, &v) || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		p.Errorf(raw, path, "expected a number >= 0, got %s", p.Describe(n))
		return 0, false
	}
	return v, true
}

// fraction accepts a number in (0, 1].
func fraction(p *yamlfield.Parser, raw *yaml.Node, path string) (float64, bool) {
	n, ok := yamlfield.Scalar(raw, "!!int", "!!float")
	var v float64
	if !ok || !yamlfield.DecodeScalar(n, &v) || !(v > 0 && v <= 1) {
		p.Errorf(raw, path, "expected a number greater than 0 and at most 1, got %s", p.Describe(n))
		return 0, false
	}
	return v, true
}

// multifactor reads a pool's multifactor block. Weights left out are 0;
// max_age defaults to 7 days and fair_share_mode to fair_tree. Without a
// block, multifactor pools get sched.DefaultMultifactor.
func (p *parser) multifactor(f *yamlfield.Fields) (sched.Multifactor, bool) {
	raw := f.Lookup("multifactor")
	if raw == nil {
		return sched.DefaultMultifactor(), true
	}
	mf := sched.Multifactor{MaxAge: int64(DefaultMaxAge / time.Second), FairShareMode: sched.FairShareTree}
	path := p.Join(f.Path, "multifactor")
	g, ok := p.Fields(raw, path)
	if !ok {
		return mf, false
	}
	errs := p.Count()
	weights := []struct {
		key string
		dst *float64
	}{{"age", &mf.Age}, {"fair_share", &mf.FairShare}, {"job_size", &mf.JobSize}, {"qos", &mf.QOS}, {"pool", &mf.Pool}}
	for _, w := range weights {
		yamlfield.Field(g, w.key, w.dst, nonNegative)
	}
	yamlfield.Field(g, "max_age", &mf.MaxAge, yamlfield.PositiveDuration)
	yamlfield.Field(g, "favor_small", &mf.FavorSmall, yamlfield.Boolean)
	yamlfield.Field(g, "fair_share_mode", &mf.FairShareMode, yamlfield.Enum("fair-share mode", fairShareModes...))
	yamlfield.Field(g, "pool_priority", &mf.PoolPriority, nonNegative)
	g.Done()
	if p.Count() != errs {
		return mf, false
	}
	if mf.Age == 0 && mf.FairShare == 0 && mf.JobSize == 0 && mf.QOS == 0 && mf.Pool == 0 {
		p.ErrorAt(raw.Line, path, nil, "needs at least one positive weight (age, fair_share, job_size, qos, pool); "+
			"leave the block out for the defaults")
		return mf, false
	}
	return mf, true
}

// decay reads the usage decay: a period (default a day) and either a
// per-period factor or a half-life.
func (p *parser) decay(raw *yaml.Node) sched.Decay {
	d := DefaultDecay()
	if raw == nil {
		return d
	}
	f, ok := p.Fields(raw, "decay")
	if !ok {
		return d
	}
	out := sched.Decay{Period: d.Period}
	yamlfield.Field(f, "period", &out.Period, yamlfield.PositiveDuration)
	perOK := yamlfield.Field(f, "per_period", &out.PerPeriod, fraction)
	halfOK := yamlfield.Field(f, "half_life", &out.HalfLife, yamlfield.PositiveDuration)
	hasPer, hasHalf := f.Node("per_period") != nil, f.Node("half_life") != nil
	f.Done()
	switch {
	case hasPer && hasHalf:
		f.Errorf("half_life", "give either per_period or half_life, not both")
	case !hasPer && !hasHalf:
		p.ErrorAt(raw.Line, "decay", nil, "needs per_period (a factor in (0, 1] applied once per period) or half_life (a duration)")
	case perOK || halfOK:
		return out
	}
	return d
}

// licenses reads the mapping of license names to totals.
func (p *parser) licenses(raw *yaml.Node) []License {
	if raw == nil || yamlfield.IsNull(raw) {
		return nil
	}
	prs, ok := p.Pairs(raw, "licenses")
	if !ok {
		return nil
	}
	var out []License
	for _, pr := range prs {
		lname, ok := name(p.Parser, pr.Key, "licenses")
		if !ok {
			continue
		}
		total, ok := yamlfield.IntAtLeast(0)(p.Parser, pr.Val, p.Join("licenses", lname))
		if ok {
			out = append(out, License{Name: lname, Total: total})
		}
	}
	return out
}

// qosList reads the QOS levels; without a qos section the list is
// sched.DefaultQOS. known reports that every entry has a valid name.
func (p *parser) qosList(raw *yaml.Node) (list []sched.QOS, known bool) {
	if raw == nil {
		return sched.DefaultQOS(), true
	}
	items, known := p.list(raw, "qos", "QOS levels")
	seen := map[string]int{}
	for i, item := range items {
		path := yamlfield.Index("qos", i)
		f, ok := p.Fields(item, path)
		if !ok {
			known = false
			continue
		}
		var q sched.QOS
		if f.Required("name") && yamlfield.Field(f, "name", &q.Name, name) {
			f.Path = path + " " + yamlfield.Quote(q.Name)
			if first, dup := seen[q.Name]; dup {
				f.Errorf("name", "duplicate QOS name %s (first at line %d)", yamlfield.Quote(q.Name), first)
			} else {
				seen[q.Name] = item.Line
			}
		} else {
			known = false
		}
		yamlfield.Field(f, "priority", &q.Priority, yamlfield.IntAtLeast(0))
		yamlfield.Field(f, "preempt", &q.Preempt, yamlfield.Boolean)
		f.Done()
		list = append(list, q)
	}
	return list, known
}

// defaultQOS checks the file's default_qos against the list, or picks the
// first QOS.
func (p *parser) defaultQOS(f *yamlfield.Fields, list []sched.QOS, known bool) string {
	var def string
	if !yamlfield.Field(f, "default_qos", &def, name) {
		if len(list) == 0 || f.Node("default_qos") != nil {
			return ""
		}
		return list[0].Name
	}
	if !known {
		return def
	}
	names := qosNames(list)
	for _, q := range list {
		if q.Name == def {
			return def
		}
	}
	f.Errorf("default_qos", "%s is not a QOS%s (qos: %s)", yamlfield.Quote(def), yamlfield.Suggest(def, names),
		strings.Join(names, ", "))
	return ""
}

func qosNames(list []sched.QOS) []string {
	out := make([]string, len(list))
	for i, q := range list {
		out[i] = q.Name
	}
	return out
}
