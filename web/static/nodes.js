// Nodes: every registered agent with its state, GPUs, load, labels and
// last heartbeat.

import {get} from './api.js';
import {bar, fill, h, labelsOf, memo, stateBadge, table, when} from './dom.js';

export function mount(root) {
  const summary = h('p', {class: 'muted', id: 'nodes-summary'});
  const t = table('nodes', 'Registered nodes', ['Node', 'Pool', 'State', 'GPU type', 'Slots used', 'GPUs', 'Labels', 'Last heartbeat']);
  root.append(h('h1', {}, 'Nodes'), summary, t.el);
  const same = memo();
  return {
    async refresh(signal) {
      const nodes = await get('/nodes', signal);
      if (same(nodes)) return;
      const lost = nodes.filter((n) => n.state !== 'up').length;
      summary.textContent = `${nodes.length} node${nodes.length === 1 ? '' : 's'}` + (lost ? `, ${lost} not up.` : ', all up.');
      const sorted = [...nodes].sort((a, b) => a.pool.localeCompare(b.pool) || a.name.localeCompare(b.name));
      fill(t.tbody, sorted.length ? sorted.map(row) : h('tr', {}, h('td', {colspan: 8, class: 'muted'}, 'No node has registered yet.')));
    },
  };
}

function row(n) {
  const gpus = n.gpus || [];
  return h('tr', {'data-node': n.name, class: n.state === 'up' ? '' : 'row-warn'},
    h('th', {scope: 'row'}, n.name),
    h('td', {}, n.pool),
    h('td', {}, stateBadge(n.state)),
    h('td', {}, n.gpu_type || '—'),
    h('td', {}, bar(n.used, n.slots, `${n.used} / ${n.slots}`)),
    h('td', {}, gpus.length ? h('span', {title: gpus.map((g) => `${g.index}: ${g.name || g.type} ${g.memory_mib} MiB ${g.uuid}`).join('\n')}, `${gpus.length} × ${gpus[0].name || gpus[0].type}`) : '—'),
    h('td', {}, labelsOf(n.labels)),
    h('td', {}, when(n.heartbeat_at)),
  );
}
