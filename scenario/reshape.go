package scenario

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Jobs are checked against their pool's nodes (checkJobPool) before the
// events are parsed, as events name jobs. A node_reshape gives a node
// other slots or another GPU type from its time on, so a job the file
// submits may fit only a node's later shape: reshapeCapacity widens each
// pool's capacity and GPU types by each node's largest shape, read
// leniently from the raw events section (what is wrong there is
// reported when it is parsed).

// reshapeCapacity adds to the pools' infos what node_reshape events in
// events give their nodes beyond their shapes in the file: each node
// counts at its largest, overall and in each GPU type. Call it before
// resolveSharing, which copies an owner's capacity to the pools that
// share its nodes.
func (p *parser) reshapeCapacity(pools []Pool, events *yaml.Node) {
	shapes := reshapesIn(events)
	if len(shapes) == 0 {
		return
	}
	for _, pl := range pools {
		info := p.pools[pl.Name]
		if info == nil {
			continue
		}
		for _, n := range pl.Nodes {
			best, bestOf := n.Slots, map[string]int{n.GPU: n.Slots}
			for _, sh := range shapes[n.Name] {
				best = max(best, sh.Slots)
				bestOf[sh.GPU] = max(bestOf[sh.GPU], sh.Slots)
			}
			info.capacity = addSaturating(info.capacity, best-n.Slots)
			info.largest = max(info.largest, best)
			for g, slots := range bestOf {
				if g == n.GPU {
					slots -= n.Slots
				}
				info.gpus[g] = addSaturating(info.gpus[g], slots)
				info.largestOf[g] = max(info.largestOf[g], bestOf[g])
			}
		}
	}
}

// reshapesIn reads the node_reshape events of a raw events section, by
// node: the slots and GPU type of each that gives them as plain values.
func reshapesIn(events *yaml.Node) map[string][]Node {
	if events == nil || events.Kind != yaml.SequenceNode {
		return nil
	}
	var out map[string][]Node
	for _, item := range events.Content {
		v := mappingValue(item, string(EventNodeReshape))
		name, slots, gpu := mappingValue(v, "node"), mappingValue(v, "slots"), mappingValue(v, "gpu")
		if name == nil || slots == nil || name.Kind != yaml.ScalarNode || slots.Kind != yaml.ScalarNode {
			continue
		}
		n, err := strconv.Atoi(slots.Value)
		if err != nil || n < 1 {
			continue
		}
		sh := Node{Slots: n}
		if gpu != nil && gpu.Kind == yaml.ScalarNode {
			sh.GPU = gpu.Value
		}
		if out == nil {
			out = map[string][]Node{}
		}
		out[name.Value] = append(out[name.Value], sh)
	}
	return out
}

// mappingValue is the value of key in mapping m, nil when m is no
// mapping or lacks it.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
