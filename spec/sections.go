package spec

import (
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/yamlfield"
)

// Licenses reads the licenses section: a mapping of names to totals,
// kept in file order. A total that is broken is -1, so that jobs are not
// checked against it.
func (p *Parser) Licenses(raw *yaml.Node) []License {
	if raw == nil || yamlfield.IsNull(raw) {
		return nil
	}
	prs, ok := p.Pairs(raw, "licenses")
	if !ok {
		p.LicensesKnown = false
		return nil
	}
	out := make([]License, 0, len(prs))
	for _, pr := range prs {
		name, ok := p.licenseName(pr.Key)
		if !ok {
			p.LicensesKnown = false
			continue
		}
		l := License{Name: name, Total: -1, Line: pr.Key.Line}
		if n, ok := yamlfield.IntAtLeast(0)(p.Parser, pr.Val, p.Join("licenses", name)); ok {
			l.Total = n
		}
		p.licenses[name] = l.Total
		p.LicenseOrder = append(p.LicenseOrder, name)
		out = append(out, l)
	}
	return out
}

// licenseName checks a key of the licenses section.
func (p *Parser) licenseName(key *yaml.Node) (string, bool) {
	if !p.Scenario {
		return p.Name(p.Parser, key, "licenses")
	}
	// Scenario files have always taken any key but null and "" (true
	// included) as a license name; every file that parsed still does.
	if key.ShortTag() == "!!null" || key.Value == "" {
		p.Errorf(key, "licenses", "expected a license name, got %s", p.Describe(key))
		return "", false
	}
	return key.Value, true
}

// License returns the total of a license read so far: -1 when its entry
// is broken.
func (p *Parser) License(name string) (total int, ok bool) {
	total, ok = p.licenses[name]
	return total, ok
}

// QOSList reads the qos section: a list of {name, priority, preempt}.
// Without one it is sched.DefaultQOS in dialects with DefaultQOS, else
// empty.
func (p *Parser) QOSList(raw *yaml.Node) []QOS {
	if raw == nil {
		var out []QOS
		if p.DefaultQOS {
			out = DefaultQOS()
			for _, q := range out {
				p.addQOS(q.Name, 0, q.Preempt)
			}
		}
		return out
	}
	items, ok := p.List(raw, "qos", "QOS levels")
	p.QOSKnown = ok
	out := make([]QOS, 0, len(items))
	for i, item := range items {
		q := QOS{Line: item.Line}
		path := yamlfield.Index("qos", i)
		f, ok := p.Fields(item, path)
		if !ok {
			p.QOSKnown = false
			continue
		}
		named := f.Required("name") && yamlfield.Field(f, "name", &q.Name, p.Name)
		if named {
			f.Path = path + " " + yamlfield.Quote(q.Name)
			if first, dup := p.qos[q.Name]; dup {
				f.Errorf("name", "duplicate QOS name %s (first at line %d)", yamlfield.Quote(q.Name), first)
				named = false
			}
		} else {
			p.QOSKnown = false
		}
		yamlfield.Field(f, "priority", &q.Priority, yamlfield.IntAtLeast(0))
		yamlfield.Field(f, "preempt", &q.Preempt, yamlfield.Boolean)
		f.Done()
		if named {
			p.addQOS(q.Name, item.Line, q.Preempt)
		}
		out = append(out, q)
	}
	return out
}

func (p *Parser) addQOS(name string, line int, preempt bool) {
	p.qos[name] = line
	p.QOSOrder = append(p.QOSOrder, name)
	p.QOSPreempt = p.QOSPreempt || preempt
}

// HasQOS reports whether a QOS level of that name was read.
func (p *Parser) HasQOS(name string) bool {
	_, ok := p.qos[name]
	return ok
}

// Decay reads a decay section that is present: a period (default a day)
// and either a per-period factor or a half-life. ok is false after an
// error.
func (p *Parser) Decay(raw *yaml.Node) (d Decay, ok bool) {
	f, ok := p.Fields(raw, "decay")
	if !ok {
		return DefaultDecay, false
	}
	errs := p.Count()
	d = Decay{Period: DefaultDecay.Period, Line: raw.Line}
	yamlfield.Field(f, "period", &d.Period, yamlfield.PositiveDuration)
	yamlfield.Field(f, "per_period", &d.PerPeriod, Fraction)
	yamlfield.Field(f, "half_life", &d.HalfLife, yamlfield.PositiveDuration)
	hasPer, hasHalf := f.Node("per_period") != nil, f.Node("half_life") != nil
	f.Done()
	switch {
	case hasPer && hasHalf:
		f.Errorf("half_life", "give either per_period or half_life, not both")
	case !hasPer && !hasHalf:
		p.ErrorAt(raw.Line, "decay", nil, "needs per_period (a factor in (0, 1] applied once per period) or half_life (a duration)")
	}
	return d, p.Count() == errs
}

// Multifactor reads the multifactor block of a pool whose fields are f
// and whose policy is policy ("" when broken). Only multifactor pools
// take one. Without a block a multifactor pool gets
// sched.DefaultMultifactor, except in scenario files, which require it.
// ok is false after an error.
func (p *Parser) Multifactor(f *yamlfield.Fields, policy sched.Policy) (mf sched.Multifactor, ok bool) {
	raw := f.Lookup("multifactor")
	switch {
	case raw == nil && policy == sched.PolicyMultifactor && p.Scenario:
		f.Required("multifactor")
		return mf, false
	case raw == nil:
		return sched.DefaultMultifactor(), true
	case policy != "" && policy != sched.PolicyMultifactor:
		f.Errorf("multifactor", "only multifactor pools take multifactor weights, and this pool's policy is %s", policy)
		return mf, false
	}
	if !p.Scenario {
		mf = sched.Multifactor{MaxAge: int64(DefaultMaxAge / time.Second), FairShareMode: sched.FairShareTree}
	}
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
		yamlfield.Field(g, w.key, w.dst, NonNegative)
	}
	yamlfield.Field(g, "max_age", &mf.MaxAge, yamlfield.PositiveDuration)
	yamlfield.Field(g, "favor_small", &mf.FavorSmall, yamlfield.Boolean)
	yamlfield.Field(g, "fair_share_mode", &mf.FairShareMode, yamlfield.Enum("fair_share_mode", FairShareModes...))
	yamlfield.Field(g, "pool_priority", &mf.PoolPriority, NonNegative)
	g.Done()
	if p.Count() != errs {
		return mf, false
	}
	if mf.Age == 0 && mf.FairShare == 0 && mf.JobSize == 0 && mf.QOS == 0 && mf.Pool == 0 {
		hint := "; leave the block out for the defaults"
		if p.Scenario {
			hint = ""
		}
		p.ErrorAt(raw.Line, path, nil, "needs at least one positive weight (age, fair_share, job_size, qos, pool)%s", hint)
		return mf, false
	}
	if p.Scenario {
		p.checkSettings(g, &mf)
	}
	return mf, p.Count() == errs
}

// checkSettings applies the core's rules with the file's lines, for
// scenario files, which give no defaults: a weight that is set needs its
// setting, and a setting without its weight would do nothing.
func (p *Parser) checkSettings(g *yamlfield.Fields, mf *sched.Multifactor) {
	pairs := []struct {
		weight   string
		w        float64
		key      string
		required bool
		why      string
	}{
		{"age", mf.Age, "max_age", true, "max_age gives the wait at which the age factor reaches 1"},
		{"fair_share", mf.FairShare, "fair_share_mode", true, "fair_share_mode says how fair share is computed (classic or fair_tree)"},
		{"job_size", mf.JobSize, "favor_small", false, ""},
	}
	for _, x := range pairs {
		switch given := g.Node(x.key) != nil; {
		case x.w > 0 && x.required && !given:
			p.ErrorAt(g.Line, g.Path, nil, "missing %s: the %s weight is set, and %s", x.key, x.weight, x.why)
		case x.w == 0 && given:
			g.Errorf(x.key, "the %s weight is 0, so %s would never apply", x.weight, x.key)
		}
	}
}
