package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// nodeOps writes and reads the nodes' rows and their events (the
// node_events table): a part of ops, over its conn.
type nodeOps struct {
	conn
}

const nodeCols = `name, pool, labels, gpus, state, registered_ns, heartbeat_ns, drain_ns, drain_reason, drain_by`

// nodeInsertCols are the columns that registering a node writes; the
// drain columns keep their defaults.
const nodeInsertCols = `name, pool, labels, gpus, state, registered_ns, heartbeat_ns`

func scanNode(sc rowScanner) (Node, error) {
	var (
		n                     Node
		labels, gpus          string
		registered, heartbeat int64
		drainAt               sql.NullInt64
		drainReason, drainBy  string
	)
	if err := sc.Scan(&n.Name, &n.Pool, &labels, &gpus, &n.State, &registered, &heartbeat,
		&drainAt, &drainReason, &drainBy); err != nil {
		return Node{}, err
	}
	if drainAt.Valid {
		n.Drain = &NodeDrain{At: timeOf(drainAt.Int64), Reason: drainReason, By: drainBy}
	}
	if err := decodeJSON("node labels", labels, &n.Labels); err != nil {
		return Node{}, err
	}
	if err := decodeJSON("node gpus", gpus, &n.GPUs); err != nil {
		return Node{}, err
	}
	n.Labels = emptyMapNil(n.Labels)
	if len(n.GPUs) == 0 {
		n.GPUs = nil
	}
	n.RegisteredAt, n.HeartbeatAt = timeOf(registered), timeOf(heartbeat)
	return n, nil
}

func (o nodeOps) UpsertNode(ctx context.Context, n Node) (Node, error) {
	if n.Name == "" {
		return Node{}, fmt.Errorf("register node: %w", invalidf("node name is empty"))
	}
	seen := make(map[int]bool, len(n.GPUs))
	for _, g := range n.GPUs {
		if g.Index < 0 || seen[g.Index] {
			return Node{}, fmt.Errorf("register node %s: %w", n.Name, invalidf("GPU index %d is negative or repeated", g.Index))
		}
		seen[g.Index] = true
	}
	labels, err := encodeJSON(n.Labels, "{}")
	if err != nil {
		return Node{}, fmt.Errorf("register node %s: encode labels: %w", n.Name, err)
	}
	gpus, err := encodeJSON(n.GPUs, "[]")
	if err != nil {
		return Node{}, fmt.Errorf("register node %s: encode GPUs: %w", n.Name, err)
	}
	effect := labels
	if n.InEffect != nil {
		if effect, err = encodeJSON(n.InEffect, "{}"); err != nil {
			return Node{}, fmt.Errorf("register node %s: encode its labels in effect: %w", n.Name, err)
		}
	}
	poolEffect := n.PoolInEffect
	if poolEffect == "" {
		poolEffect = n.Pool
	}
	at := nsOf(nowIfZero(n.HeartbeatAt))
	if err := o.registered(ctx, n.Name, shapeCols{n.Pool, labels, gpus, effect, poolEffect}, timeOf(at)); err != nil {
		return Node{}, err
	}
	out, err := scanNode(o.q.QueryRowContext(ctx, o.d.q(`INSERT INTO nodes (`+nodeInsertCols+`)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET pool = excluded.pool, labels = excluded.labels, gpus = excluded.gpus,
			state = excluded.state, heartbeat_ns = excluded.heartbeat_ns
		RETURNING `+nodeCols), n.Name, n.Pool, labels, gpus, string(NodeUp), at, at))
	if err != nil {
		return Node{}, fmt.Errorf("register node %s: %w", n.Name, err)
	}
	return out, nil
}

func (o nodeOps) Heartbeat(ctx context.Context, name string, at time.Time) error {
	res, err := o.q.ExecContext(ctx, o.d.q("UPDATE nodes SET heartbeat_ns = ? WHERE name = ?"), nsOf(nowIfZero(at)), name)
	if err != nil {
		return fmt.Errorf("heartbeat of node %s: %w", name, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("heartbeat of node %s: %w", name, err)
	} else if n == 0 {
		return fmt.Errorf("heartbeat of node %s: %w", name, ErrNotFound)
	}
	return nil
}

func (o nodeOps) SetNodeState(ctx context.Context, name string, from, to NodeState, at time.Time) error {
	if !from.valid() || !to.valid() || from == to {
		return fmt.Errorf("node %s: %w", name, invalidf("node transition %q → %q", from, to))
	}
	res, err := o.q.ExecContext(ctx, o.d.q("UPDATE nodes SET state = ? WHERE name = ? AND state = ?"),
		string(to), name, string(from))
	if err != nil {
		return fmt.Errorf("node %s %s → %s: %w", name, from, to, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("node %s %s → %s: %w", name, from, to, err)
	} else if n == 1 {
		return o.nodeEvent(ctx, name, from, to, nowIfZero(at))
	}
	var state string
	err = o.q.QueryRowContext(ctx, o.d.q("SELECT state FROM nodes WHERE name = ?"), name).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("node %s: %w", name, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("read node %s: %w", name, err)
	}
	return &ConflictError{What: "node " + name, Field: "state", Expected: string(from), Actual: state}
}

func (o nodeOps) Nodes(ctx context.Context) ([]Node, error) {
	rows, err := o.q.QueryContext(ctx, "SELECT "+nodeCols+" FROM nodes ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	nodes, err := collect(rows, scanNode)
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	return nodes, nil
}

func (o nodeOps) SetNodeDrain(ctx context.Context, name string, d *NodeDrain, when time.Time) (Node, error) {
	what := "resume"
	var at sql.NullInt64
	reason, by := "", ""
	if d != nil {
		what, at, reason, by = "drain", nullNS(nowIfZero(d.At)), d.Reason, d.By
	}
	var was sql.NullInt64
	err := o.q.QueryRowContext(ctx, o.d.q("SELECT drain_ns FROM nodes WHERE name = ?"), name).Scan(&was)
	if errors.Is(err, sql.ErrNoRows) {
		return Node{}, fmt.Errorf("%s node %s: %w", what, name, ErrNotFound)
	}
	if err != nil {
		return Node{}, fmt.Errorf("%s node %s: read its drain: %w", what, name, err)
	}
	// COALESCE keeps the start of a drain that is already on.
	n, err := scanNode(o.q.QueryRowContext(ctx, o.d.q(`UPDATE nodes
		SET drain_ns = CASE WHEN ? THEN COALESCE(drain_ns, ?) ELSE NULL END, drain_reason = ?, drain_by = ?
		WHERE name = ? RETURNING `+nodeCols), d != nil, at, reason, by, name))
	if errors.Is(err, sql.ErrNoRows) {
		return Node{}, fmt.Errorf("%s node %s: %w", what, name, ErrNotFound)
	}
	if err != nil {
		return Node{}, fmt.Errorf("%s node %s: %w", what, name, err)
	}
	// The history keeps changes only: the what-if export replays them.
	switch {
	case d != nil && !was.Valid:
		err = o.nodeEvent(ctx, name, NodeSchedulable, NodeDrained, nowIfZero(when))
	case d == nil && was.Valid:
		err = o.nodeEvent(ctx, name, NodeDrained, NodeSchedulable, nowIfZero(when))
	}
	if err != nil {
		return Node{}, fmt.Errorf("%s node %s: %w", what, name, err)
	}
	return n, nil
}

func (o nodeOps) DeleteNode(ctx context.Context, name string, at time.Time) error {
	// The deletion is recorded first, from the row itself, so that the
	// history keeps what the node was (NodeEvent.Deleted).
	res, err := o.q.ExecContext(ctx, o.d.q(`INSERT INTO node_events (node, from_state, to_state, at_ns, pool, labels, gpus)
		SELECT name, state, CAST(? AS TEXT), CAST(? AS BIGINT), pool, labels, gpus FROM nodes WHERE name = ?`), string(NodeDeleted), nsOf(nowIfZero(at)), name)
	if err != nil {
		return fmt.Errorf("delete node %s: record it: %w", name, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("delete node %s: %w", name, err)
	} else if n == 0 {
		return fmt.Errorf("delete node %s: %w", name, ErrNotFound)
	}
	if _, err := o.q.ExecContext(ctx, o.d.q("DELETE FROM nodes WHERE name = ?"), name); err != nil {
		return fmt.Errorf("delete node %s: %w", name, err)
	}
	return nil
}

func (o nodeOps) NodeLeaving(ctx context.Context, name string, at time.Time) error {
	return o.nodeEvent(ctx, name, NodeUp, NodeLeaving, nowIfZero(at))
}

func (o nodeOps) NodeStayed(ctx context.Context, name string, at time.Time) error {
	return o.nodeEvent(ctx, name, NodeLeaving, NodeUp, nowIfZero(at))
}

func (o nodeOps) MoveNodes(ctx context.Context, moves []NodeMove, at time.Time) error {
	at = nowIfZero(at)
	for _, mv := range moves {
		labels, err := encodeJSON(mv.Labels, "{}")
		if err != nil {
			return fmt.Errorf("move node %s to pool %s: encode labels: %w", mv.Node, mv.Pool, err)
		}
		// The shape is the row's GPUs with the configured pool and
		// labels: the agent's own stay in the row, which a later
		// reload reads its rules over.
		res, err := o.q.ExecContext(ctx, o.d.q(`INSERT INTO node_events (node, from_state, to_state, at_ns, pool, labels, gpus)
			SELECT name, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), gpus FROM nodes WHERE name = ?`),
			string(NodeReconfigured), string(NodeRelabeled), nsOf(at), mv.Pool, labels, mv.Node)
		if err != nil {
			return fmt.Errorf("move node %s to pool %s: %w", mv.Node, mv.Pool, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("move node %s to pool %s: %w", mv.Node, mv.Pool, err)
		} else if n == 0 {
			return fmt.Errorf("move node %s to pool %s: %w", mv.Node, mv.Pool, ErrNotFound)
		}
	}
	return nil
}

// shapeCols are a node's pool, labels and GPUs as its row and the node
// history keep them (JSON for the labels and GPUs), and the labels and
// pool in effect that a registration's event keeps ("" in a row's: not
// kept).
type shapeCols struct{ pool, labels, gpus, effect, poolEffect string }

// registered records what registering node name with shape sh at at
// changes in the node history: a new node (From "", with its shape), a
// changed inventory (NodeReshaped, with the new shape), and a return of
// a node not up, in that order.
func (o nodeOps) registered(ctx context.Context, name string, sh shapeCols, at time.Time) error {
	var was string
	var had shapeCols
	err := o.q.QueryRowContext(ctx, o.d.q("SELECT state, pool, labels, gpus FROM nodes WHERE name = ?"), name).
		Scan(&was, &had.pool, &had.labels, &had.gpus)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return o.nodeEventShaped(ctx, name, "", NodeUp, at, &sh)
	case err != nil:
		return fmt.Errorf("register node %s: read its state: %w", name, err)
	}
	if same, err := sameShape(had, sh); err != nil {
		return fmt.Errorf("register node %s: %w", name, err)
	} else if !same {
		if err := o.nodeEventShaped(ctx, name, NodeState(was), NodeReshaped, at, &sh); err != nil {
			return err
		}
	}
	if NodeState(was) != NodeUp {
		return o.nodeEvent(ctx, name, NodeState(was), NodeUp, at)
	}
	return nil
}

// sameShape reports whether a and b are one shape: the agent's, the
// labels and pool in effect aside (a change of those alone is a reload's or a
// restart's, which records it: MoveNodes). The JSON is compared decoded,
// as PostgreSQL's JSONB columns give it back in their own form.
func sameShape(a, b shapeCols) (bool, error) {
	if a.pool != b.pool {
		return false, nil
	}
	var la, lb map[string]string
	var ga, gb []GPU
	for _, d := range []struct {
		s string
		v any
	}{{a.labels, &la}, {b.labels, &lb}, {a.gpus, &ga}, {b.gpus, &gb}} {
		if err := decodeJSON("node shape", d.s, d.v); err != nil {
			return false, err
		}
	}
	return maps.Equal(la, lb) && slices.Equal(ga, gb), nil
}

// nodeEvent records that node name went from state from ("" for none)
// to state to at at.
func (o nodeOps) nodeEvent(ctx context.Context, name string, from, to NodeState, at time.Time) error {
	return o.nodeEventShaped(ctx, name, from, to, at, nil)
}

// nodeEventShaped is nodeEvent with the node's shape sh, when not nil.
func (o nodeOps) nodeEventShaped(ctx context.Context, name string, from, to NodeState, at time.Time, sh *shapeCols) error {
	var err error
	if sh == nil {
		_, err = o.q.ExecContext(ctx, o.d.q("INSERT INTO node_events (node, from_state, to_state, at_ns) VALUES (?, ?, ?, ?)"),
			name, string(from), string(to), nsOf(at))
	} else {
		effect := sql.NullString{String: sh.effect, Valid: sh.effect != ""}
		poolEffect := sql.NullString{String: sh.poolEffect, Valid: sh.poolEffect != ""}
		_, err = o.q.ExecContext(ctx, o.d.q(`INSERT INTO node_events (node, from_state, to_state, at_ns, pool, labels, gpus,
				labels_in_effect, pool_in_effect)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			name, string(from), string(to), nsOf(at), sh.pool, sh.labels, sh.gpus, effect, poolEffect)
	}
	if err != nil {
		return fmt.Errorf("record node %s %q → %s: %w", name, from, to, err)
	}
	return nil
}

func (o nodeOps) NodeEvents(ctx context.Context, f NodeEventFilter) ([]NodeEvent, error) {
	var where []string
	var args []any
	if f.AfterSeq > 0 {
		where, args = append(where, "seq > ?"), append(args, f.AfterSeq)
	}
	if !f.Since.IsZero() {
		where, args = append(where, "at_ns >= ?"), append(args, nsOf(f.Since))
	}
	query, args := finish("SELECT seq, node, from_state, to_state, at_ns, pool, labels, gpus, labels_in_effect, pool_in_effect FROM node_events",
		where, "seq", 0, args)
	rows, err := o.q.QueryContext(ctx, o.d.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("list node events: %w", err)
	}
	events, err := collect(rows, scanNodeEvent)
	if err != nil {
		return nil, fmt.Errorf("list node events: %w", err)
	}
	return events, nil
}

func scanNodeEvent(sc rowScanner) (NodeEvent, error) {
	var (
		e                  NodeEvent
		at                 int64
		pool, labels, gpus string
		effect, poolEffect sql.NullString
	)
	if err := sc.Scan(&e.Seq, &e.Node, &e.From, &e.To, &at, &pool, &labels, &gpus, &effect, &poolEffect); err != nil {
		return NodeEvent{}, err
	}
	e.At = timeOf(at)
	// A registration before shapes were recorded kept the columns'
	// defaults, which read as no GPUs: such a node offers nothing to
	// schedule, so no shape is as good.
	registered := e.From == "" && e.To == NodeUp && gpus != "[]"
	if e.To != NodeDeleted && e.To != NodeReshaped && e.To != NodeRelabeled && !registered {
		return e, nil
	}
	d := &Node{Name: e.Node, Pool: pool}
	if err := decodeJSON("node event labels", labels, &d.Labels); err != nil {
		return NodeEvent{}, err
	}
	if err := decodeJSON("node event gpus", gpus, &d.GPUs); err != nil {
		return NodeEvent{}, err
	}
	d.Labels = emptyMapNil(d.Labels)
	if len(d.GPUs) == 0 {
		d.GPUs = nil
	}
	if effect.Valid {
		// Never nil where recorded: nil says it was not (Node.InEffect).
		d.InEffect = map[string]string{}
		if err := decodeJSON("node event labels in effect", effect.String, &d.InEffect); err != nil {
			return NodeEvent{}, err
		}
	}
	if e.To == NodeDeleted {
		d.State, e.Deleted = e.From, d
	} else {
		// Before migration 0017 a registration kept the pool the master
		// put the node in, in pool; a reload's move keeps its own there.
		d.PoolInEffect = pool
		if poolEffect.Valid {
			d.PoolInEffect = poolEffect.String
		}
		e.Shape = d
	}
	return e, nil
}
