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
// reported when it is parsed). A node that a node_reshape moves to
// another pool counts there too, at its largest shape.

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
				best = max(best, sh.slots)
				bestOf[sh.gpu] = max(bestOf[sh.gpu], sh.slots)
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
			p.movedCapacity(pl.Name, shapes[n.Name], best, bestOf)
		}
	}
}

// movedCapacity adds a node of pool from, at its largest (best, and
// bestOf in each GPU type), to each other pool its shapes move it to.
func (p *parser) movedCapacity(from string, shapes []rawShape, best int, bestOf map[string]int) {
	done := map[string]bool{from: true}
	for _, sh := range shapes {
		to := sh.pool
		info := p.pools[to]
		if to == "" || done[to] || info == nil {
			continue
		}
		done[to] = true
		info.capacity = addSaturating(info.capacity, best)
		info.largest = max(info.largest, best)
		for g, slots := range bestOf {
			info.gpus[g] = addSaturating(info.gpus[g], slots)
			info.largestOf[g] = max(info.largestOf[g], slots)
		}
	}
}

// rawShape is a node_reshape as reshapesIn reads it: slots, GPU type
// and the pool it moves its node to ("" for none).
type rawShape struct {
	slots     int
	gpu, pool string
}

// reshapesIn reads the node_reshape events of a raw events section, by
// node: the slots and GPU type of each that gives them as plain values.
func reshapesIn(events *yaml.Node) map[string][]rawShape {
	if events == nil || events.Kind != yaml.SequenceNode {
		return nil
	}
	var out map[string][]rawShape
	for _, item := range events.Content {
		v := mappingValue(item, string(EventNodeReshape))
		name, slots, gpu, pool := mappingValue(v, "node"), mappingValue(v, "slots"), mappingValue(v, "gpu"), mappingValue(v, "pool")
		if name == nil || slots == nil || name.Kind != yaml.ScalarNode || slots.Kind != yaml.ScalarNode {
			continue
		}
		n, err := strconv.Atoi(slots.Value)
		if err != nil || n < 1 {
			continue
		}
		sh := rawShape{slots: n}
		if gpu != nil && gpu.Kind == yaml.ScalarNode {
			sh.gpu = gpu.Value
		}
		if pool != nil && pool.Kind == yaml.ScalarNode {
			sh.pool = pool.Value
		}
		if out == nil {
			out = map[string][]rawShape{}
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
