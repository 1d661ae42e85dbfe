// Projects: each project's quota, use and limit, nested under its parent,
// with use above quota called out in words.

import {get} from './api.js';
import {bar, fill, h, memo, table} from './dom.js';

export function mount(root) {
  const t = table('projects', 'Projects, their quota and their use', ['Project', 'Use against quota', 'Quota', 'Used', 'Limit',
    ['Over-quota weight', 'Share of idle slots beyond the quota'], 'Running tasks', 'Queued jobs']);
  root.append(h('h1', {}, 'Projects'), t.el);
  const same = memo();
  return {
    async refresh(signal) {
      const projects = await get('/projects', signal);
      if (same(projects)) return;
      fill(t.tbody, projects.length ? tree(projects).map(([p, depth]) => row(p, depth))
        : h('tr', {}, h('td', {colspan: 8, class: 'muted'}, 'No projects are configured.')));
    },
  };
}

// tree orders projects parent first, children by name beneath, with depth.
function tree(projects) {
  const names = new Set(projects.map((p) => p.name));
  const kids = new Map();
  for (const p of projects) {
    const parent = p.parent && names.has(p.parent) ? p.parent : '';
    if (!kids.has(parent)) kids.set(parent, []);
    kids.get(parent).push(p);
  }
  const out = [];
  const seen = new Set();
  const walk = (parent, depth) => {
    for (const p of (kids.get(parent) || []).sort((a, b) => a.name.localeCompare(b.name))) {
      if (seen.has(p.name)) continue; // a cycle in bad data must not hang the page
      seen.add(p.name);
      out.push([p, depth]);
      walk(p.name, depth + 1);
    }
  };
  walk('', 0);
  for (const p of projects) if (!seen.has(p.name)) out.push([p, 0]);
  return out;
}

function row(p, depth) {
  const over = p.used - p.quota;
  const atLimit = p.limit && p.used >= p.limit;
  let label = `${p.used} of quota ${p.quota}`;
  if (over > 0) label += `, over quota by ${over}`;
  if (atLimit) label += ', at its limit';
  const name = h('th', {scope: 'row', class: 'tree'}, depth ? h('span', {class: 'muted', 'aria-hidden': 'true'}, '↳ ') : null, p.name,
    p.parent ? h('span', {class: 'muted small'}, ` in ${p.parent}`) : null);
  name.style.setProperty('--depth', depth);
  return h('tr', {'data-project': p.name, class: over > 0 ? 'over-quota' : ''},
    name,
    h('td', {}, bar(p.used, p.quota, label, p.limit || 0),
      over > 0 ? h('span', {class: 'flag over'}, 'over quota') : null),
    h('td', {class: 'num'}, p.quota),
    h('td', {class: 'num'}, p.used),
    h('td', {class: 'num'}, p.limit || 'none'),
    h('td', {class: 'num'}, p.over_quota_weight),
    h('td', {class: 'num'}, p.running_tasks),
    h('td', {class: 'num'}, h('a', {href: `#/jobs?state=queued&project=${encodeURIComponent(p.name)}`}, p.queued_jobs)),
  );
}
