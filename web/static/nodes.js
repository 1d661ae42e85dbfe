// Nodes: every registered agent with its state (and "leaving" while its
// agent shuts down cleanly), GPUs, load, labels and last heartbeat, and
// an admin's drain with its reason.

import {get} from './api.js';
import {bar, fill, h, labelsOf, leavingBadge, memo, stateBadge, table, when} from './dom.js';

export function mount(root) {
  const summary = h('p', {class: 'muted', id: 'nodes-summary'});
  const t = table('nodes', 'Registered nodes', ['Node', 'Pool', 'State', 'GPU type', 'Slots used', 'GPUs', 'Labels', 'Last heartbeat', ['Drain', 'An admin drained the node: no new task starts there']]);
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
      fill(t.tbody, sorted.length ? sorted.map(row) : h('tr', {}, h('td', {colspan: 9, class: 'muted'}, 'No node has registered yet.')));
    },
  };
}

function row(n) {
  const gpus = n.gpus || [];
  return h('tr', {'data-node': n.name, class: n.state === 'up' && !n.drain && !n.leaving ? '' : 'row-warn'},
    h('th', {scope: 'row'}, n.name),
    h('td', {}, n.pool),
    h('td', {}, stateBadge(n.state), n.leaving ? [' ', leavingBadge()] : [], n.drain ? [' ', stateBadge(n.drain)] : []),
    h('td', {}, n.gpu_type || '—'),
    h('td', {}, bar(n.used, n.slots, `${n.used} / ${n.slots}`)),
    h('td', {}, gpus.length ? h('span', {title: gpus.map((g) => `${g.index}: ${g.name || g.type} ${g.memory_mib} MiB ${g.uuid}`).join('\n')}, `${gpus.length} × ${gpus[0].name || gpus[0].type}`) : '—'),
    h('td', {}, labelsOf(n.labels)),
    h('td', {}, when(n.heartbeat_at)),
    h('td', {class: 'drain'}, n.drain ? [n.drain_reason || '—', h('span', {class: 'muted'}, ` (${n.drained_by || 'admin'}, `, when(n.drained_at), ')')] : '—'),
  );
}
