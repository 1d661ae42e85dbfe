// Pools: each pool's policy and switches, its load, and the reservations
// of the last scheduling pass with the backfill window they leave.

import {get} from './api.js';
import {bar, duration, fill, h, humanDur, jobLink, memo, table, when, yesNo} from './dom.js';

export function mount(root) {
  const t = table('pools', 'Resource pools', ['Pool', 'Policy', 'Preemption', ['Grace', 'Checkpoint deadline of a preempted or moved task'],
    'Backfill', 'Placement', 'Nodes', 'Slots used', 'Running tasks', 'Queued jobs',
    ['Reservations', 'Starts the last scheduling pass reserved for waiting jobs'],
    ['Backfill window', 'Free slots a job may use now without delaying a reservation, and for how long']]);
  root.append(h('h1', {}, 'Pools'), t.el);
  const same = memo();
  return {
    async refresh(signal) {
      const pools = await get('/pools', signal);
      if (same(pools)) return;
      fill(t.tbody, pools.length ? pools.map(row) : h('tr', {}, h('td', {colspan: 12, class: 'muted'}, 'No pools are configured.')));
    },
  };
}

function row(p) {
  return h('tr', {'data-pool': p.name},
    h('th', {scope: 'row'}, p.name),
    h('td', {}, p.policy),
    h('td', {}, yesNo(p.preemption)),
    // Grace is a moved task's deadline too, with or without preemption.
    h('td', {}, duration(p.grace_s)),
    h('td', {}, yesNo(p.backfill)),
    h('td', {}, p.placement || '—'),
    h('td', {class: 'num'}, p.nodes),
    h('td', {}, slotsUsed(p, '')),
    h('td', {class: 'num'}, p.running_tasks),
    h('td', {class: 'num'}, h('a', {href: `#/jobs?state=queued&pool=${encodeURIComponent(p.name)}`}, p.queued_jobs)),
    h('td', {class: 'reservations'}, reservations(p.reservations || [])),
    h('td', {class: 'window'}, windowOf(p.backfill_window)),
  );
}

function reservations(rs) {
  if (!rs.length) return '—';
  return h('ul', {class: 'plain'}, rs.map((r) => h('li', {'data-reserved': r.job},
    jobLink(r.job), ` (${r.slots} slot${r.slots === 1 ? '' : 's'}) `, when(r.start, 'both'))));
}

function windowOf(w) {
  if (!w) return '—';
  const slots = `${w.slots} slot${w.slots === 1 ? '' : 's'}`;
  return w.until ? [slots, ' for ', humanDur(w.seconds), ' (until ', when(w.until), ')'] : [slots, ', no reservation ahead'];
}

// slotsUsed is a pool's load bar, the GPUs other pools' jobs hold on its
// nodes counted as used (a reload moved the node in while they ran
// there: without them the bar reads as free GPUs no job of the pool can
// get), with a note of those and of its own jobs' GPUs on nodes moved
// out, as allot pools notes them.
export function slotsUsed(p, suffix) {
  const guests = (p.guests || []).reduce((n, g) => n + g.gpus, 0);
  const used = p.used + guests;
  const notes = [];
  if (p.elsewhere && p.elsewhere.length) {
    notes.push(`its jobs hold GPUs on ${p.elsewhere.map((n) => `${n.node} (now in ${n.pool})`).join(', ')}, counted here`);
  }
  if (guests) {
    notes.push(p.guests.map((g) => `${g.pool}'s jobs hold ${g.gpus} GPU${g.gpus === 1 ? '' : 's'} on ${g.node}`).join(', ') +
      ', counted as used');
  }
  const b = bar(used, p.slots, `${used} / ${p.slots}${suffix}`);
  if (!notes.length) return b;
  return [b, h('div', {class: 'muted small', 'data-moved': ''}, notes.join('; ') + ' (a configuration reload moved the node)')];
}
