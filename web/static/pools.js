// Pools: each pool's policy and switches, and its load.

import {get} from './api.js';
import {bar, duration, fill, h, memo, table, yesNo} from './dom.js';

export function mount(root) {
  const t = table('pools', 'Resource pools', ['Pool', 'Policy', 'Preemption', ['Grace', 'Checkpoint deadline of a preempted task'],
    'Backfill', 'Placement', 'Nodes', 'Slots used', 'Running tasks', 'Queued jobs']);
  root.append(h('h1', {}, 'Pools'), t.el);
  const same = memo();
  return {
    async refresh(signal) {
      const pools = await get('/pools', signal);
      if (same(pools)) return;
      fill(t.tbody, pools.length ? pools.map(row) : h('tr', {}, h('td', {colspan: 10, class: 'muted'}, 'No pools are configured.')));
    },
  };
}

function row(p) {
  return h('tr', {'data-pool': p.name},
    h('th', {scope: 'row'}, p.name),
    h('td', {}, p.policy),
    h('td', {}, yesNo(p.preemption)),
    h('td', {}, p.preemption ? duration(p.grace_s) || '0 s' : '—'),
    h('td', {}, yesNo(p.backfill)),
    h('td', {}, p.placement || '—'),
    h('td', {class: 'num'}, p.nodes),
    h('td', {}, bar(p.used, p.slots, `${p.used} / ${p.slots}`)),
    h('td', {class: 'num'}, p.running_tasks),
    h('td', {class: 'num'}, h('a', {href: `#/jobs?state=queued&pool=${encodeURIComponent(p.name)}`}, p.queued_jobs)),
  );
}
