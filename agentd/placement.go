package agentd

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/allot-sched/allot/api"
)

// placementNote is one line the agent logs about where the master put
// the node, when that is not what the agent asked for.
type placementNote struct {
	level slog.Level
	msg   string
}

// placementNotes compares what the master made of node name (its
// registration reply) with the pool and labels the agent asked for, and
// says where they part: a node rule of the master's configuration pins
// the node's pool and puts its labels over the agent's, and the admin
// running the agent sees only its own --pool and --label otherwise. A
// pool other than --pool and a label other than --label's are warnings;
// a pool given where --pool named none, and labels the rule only adds,
// are news. A reply without a pool (a master older than the field) says
// nothing either way.
func placementNotes(name, pool string, labels map[string]string, reply api.NodePlacement) []placementNote {
	var notes []placementNote
	rule := "the node rule for " + name + " in the master's configuration"
	switch {
	case reply.Pool == "" || reply.Pool == pool:
	case pool != "" && reply.PoolByRule:
		notes = append(notes, placementNote{slog.LevelWarn, fmt.Sprintf(
			"the master places this node in pool %s (%s), not %s as --pool says", reply.Pool, rule, pool)})
	case pool != "":
		notes = append(notes, placementNote{slog.LevelWarn, fmt.Sprintf(
			"the master places this node in pool %s, not %s as --pool says", reply.Pool, pool)})
	case reply.PoolByRule:
		notes = append(notes, placementNote{slog.LevelInfo, fmt.Sprintf(
			"the master places this node in pool %s (%s)", reply.Pool, rule)})
	}
	var over, added []string
	for _, k := range slices.Sorted(maps.Keys(reply.Labels)) {
		v := reply.Labels[k]
		switch own, ok := labels[k]; {
		case !ok:
			added = append(added, k+"="+v)
		case own != v:
			over = append(over, fmt.Sprintf("%s=%s, not %s", k, v, own))
		}
	}
	if len(over) > 0 {
		notes = append(notes, placementNote{slog.LevelWarn, fmt.Sprintf(
			"%s overrides labels that --label gives: %s", rule, strings.Join(over, "; "))})
	}
	if len(added) > 0 {
		notes = append(notes, placementNote{slog.LevelInfo, fmt.Sprintf(
			"%s adds labels: %s", rule, strings.Join(added, ","))})
	}
	return notes
}

// movedNotes are the lines the agent logs when a sync reply says that
// the master placed the node anew (a reload of its configuration changed
// the node rule for it), was being the placement heard before: what
// changed, then, as at registration, where it parts from --pool and
// --label. A reply can change only whether a rule pins the same pool, so
// the first line says something whatever changed.
func movedNotes(name, pool string, labels map[string]string, was, now api.NodePlacement) []placementNote {
	var first string
	switch {
	case now.Pool != was.Pool && was.Pool != "":
		first = fmt.Sprintf("the master moved this node to pool %s (it was in %s)", now.Pool, was.Pool)
	case now.Pool != was.Pool:
		first = "the master moved this node to pool " + now.Pool
	case !maps.Equal(effectiveLabels(now, labels), effectiveLabels(was, labels)):
		first = "the master changed this node's labels to " + orNone(formatLabels(effectiveLabels(now, labels)))
	case now.PoolByRule:
		first = fmt.Sprintf("the node rule for %s in the master's configuration now pins pool %s", name, now.Pool)
	default:
		first = fmt.Sprintf("the node rule for %s in the master's configuration no longer pins pool %s", name, now.Pool)
	}
	return append([]placementNote{{slog.LevelInfo, first}}, placementNotes(name, pool, labels, now)...)
}

// effectiveLabels are the labels the master schedules the node with: a
// placement's when it has them, else the agent's own.
func effectiveLabels(p api.NodePlacement, own map[string]string) map[string]string {
	if p.Labels != nil {
		return p.Labels
	}
	return own
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// placed takes in the placement generation and the placement that a
// sync reply brings, sent by registration gen, and logs a change of the
// placement (movedNotes). The master repeats the placement until a sync
// acknowledges it, and two syncs may be in flight (the long poll and a
// report's), so the same placement may come twice, logged once; a reply
// older than what the agent has (a lower generation, or sent before a
// registration since, whose reply says the placement) is ignored. A
// reply without a generation comes from a master older than them, which
// sends a move once.
func (a *Agent) placed(ctx context.Context, gen int, reply api.SyncReply) {
	a.mu.Lock()
	if a.gen != gen || (reply.PlacementGen != 0 && reply.PlacementGen < a.placeGen) {
		a.mu.Unlock()
		return
	}
	a.placeGen = max(a.placeGen, reply.PlacementGen)
	was := a.placement
	if reply.Placement == nil || samePlacement(was, *reply.Placement) {
		a.mu.Unlock()
		return
	}
	p := *reply.Placement
	a.placement = p
	a.mu.Unlock()
	for _, n := range movedNotes(a.cfg.Name, a.cfg.Pool, a.cfg.Labels, was, p) {
		a.log.Log(ctx, n.level, n.msg)
	}
}

func samePlacement(a, b api.NodePlacement) bool {
	return a.Pool == b.Pool && a.PoolByRule == b.PoolByRule && maps.Equal(a.Labels, b.Labels)
}

// Placement is where the master last said it put the node: the pool and,
// when a node rule sets labels, the labels it schedules the node with;
// the zero value before the first registration, or from a master older
// than the registration reply's pool.
func (a *Agent) Placement() api.NodePlacement {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.placement
	p.Labels = maps.Clone(p.Labels)
	return p
}

// formatLabels writes labels as k=v pairs in key order.
func formatLabels(labels map[string]string) string {
	kv := make([]string, 0, len(labels))
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		kv = append(kv, k+"="+labels[k])
	}
	return strings.Join(kv, ",")
}
