package k8s

import (
	"fmt"
	"slices"
	"strings"
)

// nodeClass is a set of nodes of one pool that every job accepts all or
// none of (constraints.go).
type nodeClass struct {
	pool  int
	nodes []int
	name  string
}

// classify splits each pool's nodes into classes by which restricted jobs
// accept them, names the classes into the snapshot's GPU field, and gives
// every restricted job a class. A class whose nodes all carry one GPU
// label value that no other class of the pool has is named by it, so the
// core's reasons read as before; other names are synthetic and listed in
// Pass.Classes for the reasons.
func (b *builder) classify() {
	s := &b.pass.Snap
	var restricted []int
	for j := range s.Jobs {
		if ok := b.elig[j]; ok != nil && !b.whole(ok, s.Jobs[j].Pool) {
			restricted = append(restricted, j)
		}
	}
	// Jobs with the same eligible nodes split nothing further: one bit
	// per distinct set keeps a long queue of alike pods cheap.
	var sets [][]bool
	seen := map[string]bool{}
	for _, j := range restricted {
		if k := bits(b.elig[j]); !seen[k] {
			seen[k] = true
			sets = append(sets, b.elig[j])
		}
	}
	sig := make([]strings.Builder, len(b.kn))
	for i := range sig {
		fmt.Fprintf(&sig[i], "%d:", s.Nodes[i].Pool)
		for _, ok := range sets {
			sig[i].WriteByte("01"[btoi(ok[i])])
		}
	}
	var classes []nodeClass
	byKey := map[string]int{}
	classOf := make([]int, len(b.kn))
	for i := range b.kn {
		k, ok := byKey[sig[i].String()]
		if !ok {
			k = len(classes)
			byKey[sig[i].String()] = k
			classes = append(classes, nodeClass{pool: s.Nodes[i].Pool})
		}
		classes[k].nodes = append(classes[k].nodes, i)
		classOf[i] = k
	}
	b.nameClasses(classes)
	for i := range s.Nodes {
		s.Nodes[i].GPU = classes[classOf[i]].name
	}
	free := b.freeSlots()
	for _, j := range restricted {
		var mine []int
		for k := range classes {
			if b.elig[j][classes[k].nodes[0]] {
				mine = append(mine, k)
			}
		}
		s.Jobs[j].GPU = classes[b.pick(j, classes, mine, free)].name
	}
}

// whole reports whether the eligible nodes are all of the pool's.
func (b *builder) whole(ok []bool, pool int) bool {
	for i := range ok {
		if b.pass.Snap.Nodes[i].Pool == pool && !ok[i] {
			return false
		}
	}
	return true
}

// bits is the set as a string of 0s and 1s, a map key.
func bits(ok []bool) string {
	out := make([]byte, len(ok))
	for i, v := range ok {
		out[i] = "01"[btoi(v)]
	}
	return string(out)
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}

// nameClasses names each class by its nodes' GPU label when that names it
// alone in its pool, else GPU#N (class-N for unlabelled nodes).
func (b *builder) nameClasses(classes []nodeClass) {
	type poolGPU struct {
		pool int
		gpu  string
	}
	owners := map[poolGPU]int{}
	gpuOf := make([]string, len(classes))
	for k := range classes {
		g := b.kn[classes[k].nodes[0]].Labels[b.cfg.GPULabel]
		for _, i := range classes[k].nodes {
			if b.kn[i].Labels[b.cfg.GPULabel] != g {
				g = ""
			}
		}
		gpuOf[k] = g
		for _, i := range classes[k].nodes {
			owners[poolGPU{classes[k].pool, b.kn[i].Labels[b.cfg.GPULabel]}]++
		}
	}
	for k := range classes {
		c := &classes[k]
		switch g := gpuOf[k]; {
		case g != "" && owners[poolGPU{c.pool, g}] == len(c.nodes):
			c.name = g
		case g != "":
			c.name = fmt.Sprintf("%s#%d", g, k)
		default:
			c.name = fmt.Sprintf("class-%d", k)
		}
		if b.pass.Classes == nil {
			b.pass.Classes = map[string][]string{}
		}
		for _, i := range c.nodes {
			b.pass.Classes[c.name] = append(b.pass.Classes[c.name], b.kn[i].Name)
		}
	}
}

// freeSlots is each node's slots less those its running pods hold.
func (b *builder) freeSlots() []int {
	s := &b.pass.Snap
	free := make([]int, len(s.Nodes))
	for i := range s.Nodes {
		free[i] = s.Nodes[i].Slots
	}
	for _, a := range s.Allocs {
		for _, ns := range a.Nodes {
			free[ns.Node] -= int(ns.Slots)
		}
	}
	return free
}

// pick chooses among the job's classes the one where most of its waiting
// pods fit now, then the one with most slots (room to preempt in), and
// takes the room it will use from free, so that the next job in the queue
// sees it taken. The choice is remade every pass: a pod that does not fit
// where it was aimed is aimed elsewhere once the room there is gone.
func (b *builder) pick(j int, classes []nodeClass, mine []int, free []int) int {
	job := &b.pass.Snap.Jobs[j]
	fits := func(k int) (n, total int) {
		for _, i := range classes[k].nodes {
			total += b.pass.Snap.Nodes[i].Slots
			if job.Slots == 0 {
				n += job.Waiting
			} else if free[i] > 0 {
				n += free[i] / job.Slots
			}
		}
		return min(n, job.Waiting), total
	}
	best := mine[0]
	bn, bt := fits(best)
	for _, k := range mine[1:] {
		if n, t := fits(k); n > bn || (n == bn && t > bt) {
			best, bn, bt = k, n, t
		}
	}
	left := bn
	for _, i := range classes[best].nodes {
		for left > 0 && job.Slots > 0 && free[i] >= job.Slots {
			free[i] -= job.Slots
			left--
		}
	}
	return best
}

// classNote explains a synthetic class name in a reason.
func classNote(p *Pass, gpu string) string {
	nodes, ok := p.Classes[gpu]
	if !ok || !strings.Contains(gpu, "#") && !strings.HasPrefix(gpu, "class-") {
		return ""
	}
	nodes = slices.Clone(nodes)
	if len(nodes) > 5 {
		nodes = append(nodes[:5], "...")
	}
	return fmt.Sprintf(" (%s: nodes %s, of those its nodeSelector, node affinity and tolerations allow)", gpu, strings.Join(nodes, ", "))
}
