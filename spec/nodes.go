package spec

import (
	"github.com/allot-sched/allot/yamlfield"
)

// SwitchLabel is the node label that names a node's network switch, in
// both formats and on live nodes: gangs prefer (or, with topology:
// required, need) nodes under one switch.
const SwitchLabel = "switch"

// Node is what both formats say about a node: its name and its labels,
// the switch label among them. The master's node rules add the pool a
// registering node joins; a scenario's nodes add their slots and GPU
// type, which live nodes report themselves when they register.
type Node struct {
	Name   string
	Labels map[string]string // nil when the file gives none
}

// NodeName reads the required name of a node entry into n, and reports
// whether it is valid; f.Path then names the node. Each format checks
// that names are unique its own way (a scenario's after expanding
// count).
func (p *Parser) NodeName(f *yamlfield.Fields, path string, n *Node) bool {
	if !f.Required("name") || !yamlfield.Field(f, "name", &n.Name, p.Name) {
		return false
	}
	f.Path = path + " " + yamlfield.Quote(n.Name)
	return true
}

// NodeLabels reads a node entry's labels into n.
func (p *Parser) NodeLabels(f *yamlfield.Fields, n *Node) {
	yamlfield.Field(f, "labels", &n.Labels, p.Labels)
}
