// Nodes: every registered agent with its state (and "leaving" while its
// agent shuts down cleanly), GPUs, load, labels and last heartbeat, an
// admin's drain with its reason, and what the master's node rule for it
// decided: the pool it pins and the labels it puts over the agent's,
// which the agent's own --pool and --label do not show.

import {get} from './api.js';
import {bar, fill, h, labelsOf, leavingBadge, memo, stateBadge, table, when} from './dom.js';

const ruleTitle = "The rule for the node, by its name, in the master's configuration (nodes:): it pins the node's pool and puts its labels over the agent's";

export function mount(root) {
  const summary = h('p', {class: 'muted', id: 'nodes-summary'});
  const t = table('nodes', 'Registered nodes', ['Node', 'Pool', 'State', 'GPU type', 'Slots used', 'GPUs', ['Labels', 'The labels the scheduler matches: the agent\'s, with the node rule\'s on top (marked)'], ['Node rule', ruleTitle], 'Last heartbeat', ['Drain', 'An admin drained the node: no new task starts there']]);
  root.append(h('h1', {}, 'Nodes'), summary, t.el);
  const same = memo();
  return {
    async refresh(signal) {
      const nodes = await get('/nodes', signal);
      if (same(nodes)) return;
      const lost = nodes.filter((n) => n.state !== 'up').length;
      const leaving = nodes.filter((n) => n.leaving).length;
      const drained = nodes.filter((n) => n.drain).length;
      summary.textContent = `${nodes.length} node${nodes.length === 1 ? '' : 's'}` + (lost ? `, ${lost} not up` : ', all up') +
        (leaving ? `, ${leaving} leaving` : '') + (drained ? `, ${drained} drained.` : '.');
      const sorted = [...nodes].sort((a, b) => a.pool.localeCompare(b.pool) || a.name.localeCompare(b.name));
      fill(t.tbody, sorted.length ? sorted.map(row) : h('tr', {}, h('td', {colspan: 10, class: 'muted'}, 'No node has registered yet.')));
    },
  };
}

function row(n) {
  const gpus = n.gpus || [];
  return h('tr', {'data-node': n.name, class: n.state === 'up' && !n.drain && !n.leaving ? '' : 'row-warn'},
    h('th', {scope: 'row'}, n.name),
    h('td', {}, n.pool, n.pool_by_rule ? h('span', {class: 'muted small', title: 'The node rule pins this pool, whatever pool the agent asked for'}, ' (by rule)') : [],
      n.pool_note ? h('span', {class: 'muted small', title: n.pool_note}, ` (agent asked for ${n.agent_pool})`) : []),
    h('td', {}, stateBadge(n.state), n.leaving ? [' ', leavingBadge()] : [], n.drain ? [' ', stateBadge(n.drain)] : [], lossNote(n)),
    h('td', {}, n.gpu_type || '—'),
    h('td', {}, bar(n.used, n.slots, `${n.used} / ${n.slots}`)),
    h('td', {}, gpus.length ? h('span', {title: gpus.map((g) => `${g.index}: ${g.name || g.type} ${g.memory_mib} MiB ${g.uuid}`).join('\n')}, `${gpus.length} × ${gpus[0].name || gpus[0].type}`) : '—'),
    h('td', {}, n.rule_labels ? ruledLabels(n) : labelsOf(n.labels)),
    h('td', {class: 'rule'}, rule(n)),
    h('td', {}, when(n.heartbeat_at)),
    h('td', {class: 'drain'}, n.drain ? [n.drain_reason || '—', h('span', {class: 'muted'}, ` (${n.drained_by || 'admin'}, `, when(n.drained_at), ')')] : '—'),
  );
}

// lossNote says, for a node lost or left, since when, and until when the
// master holds its tasks through the loss (lost_node_grace).
function lossNote(n) {
  if (!n.lost_at) return [];
  return h('div', {class: 'muted small loss'}, 'since ', when(n.lost_at),
    n.held_until ? [h('br'), 'tasks held until ', when(n.held_until)] : []);
}

// ruledLabels are the node's labels as the scheduler matches them, the
// ones its node rule set marked (their title names the agent's value the
// rule overrode, if any).
function ruledLabels(n) {
  const keys = Object.keys(n.labels || {}).sort();
  const agent = n.agent_labels || {};
  return h('ul', {class: 'chips'}, keys.map((k) => {
    if (!(k in n.rule_labels)) return h('li', {}, `${k}=${n.labels[k]}`);
    const over = k in agent && agent[k] !== n.labels[k];
    return h('li', {class: 'by-rule', title: over ? `Set by the node rule, over the agent's ${k}=${agent[k]}` : 'Set by the node rule'},
      `${k}=${n.labels[k]}`);
  }));
}

// rule says what the node rule of the master's configuration decided of
// node n, as allot nodes -o wide's NODE RULE column does: the rule's name
// (the node's), the pool it pins and the labels it sets, the agent's own
// values of those it overrode; "none" when no rule changes the node.
function rule(n) {
  const labels = Object.keys(n.rule_labels || {}).sort();
  if (!n.pool_by_rule && !labels.length) return h('span', {class: 'muted'}, 'none');
  const agent = n.agent_labels || {};
  const acts = [];
  if (n.pool_by_rule) acts.push(h('li', {}, 'pins pool ', h('strong', {}, n.pool),
    n.agent_pool ? h('span', {class: 'muted'}, ` (agent: ${n.agent_pool})`) : []));
  if (labels.length) {
    acts.push(h('li', {}, 'sets ', labels.map((k, i) => [i ? ', ' : '', `${k}=${n.rule_labels[k]}`,
      k in agent && agent[k] !== n.rule_labels[k] ? h('span', {class: 'muted'}, ` (agent: ${agent[k]})`) : []])));
  }
  return [h('code', {title: ruleTitle}, n.name), h('ul', {class: 'rule-acts'}, acts)];
}
