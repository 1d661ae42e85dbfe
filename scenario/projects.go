package scenario

import (
	"fmt"

	"github.com/allot-sched/allot/yamlfield"
)

// The projects section is the cluster spec's (package spec); what a
// scenario adds is the pools with a quota of their own, each a project
// named after it.

// checkProjectNames rejects a project named like a pool with a quota: that
// pool's jobs form a project of that name already.
func (p *parser) checkProjectNames(projects []Project) {
	for i, pr := range projects {
		if info := p.pools[pr.Name]; info != nil && info.quota >= 0 {
			p.ErrorAt(pr.Line, fmt.Sprintf("projects[%d] %s: name", i, yamlfield.Quote(pr.Name)), nil,
				"pool %s has a quota, which makes it a project of that name already (line %d)",
				yamlfield.Quote(pr.Name), info.line)
		}
	}
}
