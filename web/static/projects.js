// Projects: each project's quota, use and limit, nested under its parent,
// with use above quota in the quota pools called out in words.

import {get} from './api.js';
import {bar, fill, h, humanDur, memo, table, when} from './dom.js';

export function mount(root) {
  const t = table('projects', 'Projects, their quota and their use', ['Project', ['Use against quota', 'In the quota pools only, where the quota applies'], 'Quota',
    ['Used', 'GPUs held in every pool'], ['In quota pools', 'GPUs held in pools of policy quota, pool by pool when there are several'], 'Limit',
    ['Max priority', "The most important priority class its members' jobs may take (max_priority_class); its leads and admins are not capped"],
    ['Over-quota weight', 'Share of idle slots beyond the quota'], 'Running tasks', 'Queued jobs']);
  const f = table('fairness', 'Fairness over the last 7 days: what each project was entitled to, what it got, and how long its jobs waited',
    ['Project', ['Entitled', 'Its share of the cluster by the project shares (the quota by default)'],
      ['Got', "Its share of the cluster's GPU-hours"], 'GPU-hours', 'Jobs', ['Waited', 'Jobs that waited in the window'],
      'Mean wait', 'Longest wait', 'Verdict']);
  // The window starts at the cluster's start when that is later: a
  // cluster younger than the window had no GPUs before it.
  const since = h('p', {id: 'fairness-since', class: 'muted small', hidden: true});
  root.append(h('h1', {}, 'Projects'), t.el, h('h2', {}, 'Fairness'), f.el, since);
  const same = memo();
  const sameFair = memo();
  return {
    async refresh(signal) {
      const [projects, fair] = await Promise.all([get('/projects', signal), get('/fairness', signal)]);
      if (!same(projects)) {
        const parents = new Set(projects.map((p) => p.parent).filter(Boolean));
        fill(t.tbody, projects.length ? tree(projects).map(([p, depth]) => row(p, depth, parents.has(p.name)))
          : h('tr', {}, h('td', {colspan: 10, class: 'muted'}, 'No projects are configured.')));
      }
      if (!sameFair(fair)) {
        const rows = fair.projects || [];
        fill(f.tbody, rows.length ? rows.map(fairRow)
          : h('tr', {}, h('td', {colspan: 9, class: 'muted'}, 'No project to audit.')));
        since.hidden = !fair.measured_since;
        fill(since, fair.measured_since
          ? ['Measured since the cluster started, ', when(fair.measured_since, 'both'),
            ': the window began before it, when the cluster had no GPUs.'] : []);
      }
    },
  };
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;

function fairRow(r) {
  // A job waiting in a pool with no node up is noted, not counted as
  // deprivation: no share of the cluster could have served it.
  const verdict = r.deprived ? h('span', {class: 'flag over', title: r.note}, 'deprived')
    : r.no_node ? h('span', {class: 'flag', title: r.note}, 'waits for a node')
      : h('span', {class: 'muted'}, 'fair');
  return h('tr', {'data-fair': r.project, class: r.deprived ? 'over-quota' : ''},
    h('th', {scope: 'row'}, r.project, r.parent ? h('span', {class: 'muted small'}, ` in ${r.parent}`) : null),
    h('td', {class: 'num'}, pct(r.entitled)),
    h('td', {class: 'num'}, pct(r.got)),
    h('td', {class: 'num'}, r.gpu_hours.toFixed(2)),
    h('td', {class: 'num'}, r.jobs),
    h('td', {class: 'num'}, r.waited),
    h('td', {class: 'num'}, humanDur(r.mean_wait_s)),
    h('td', {class: 'num'}, humanDur(r.max_wait_s)),
    h('td', {}, verdict, r.note ? h('div', {class: 'small'}, r.note) : null),
  );
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

// quotaUse describes p's use against its quota. Quota (and limit) apply
// only in quota pools, each holding the project to its whole quota on
// its own, so the bar and the words follow its most used quota pool;
// GPUs in other pools are named apart and never count as over quota, nor
// do those LOW work borrows in a quota pool.
function quotaUse(p) {
  const pools = p.quota_pools || [];
  const top = Math.max(0, ...pools.map((q) => q.used));
  const outside = p.used - (p.used_in_quota_pools || 0);
  let label = pools.length > 1
    ? `${pools.map((q) => `${q.used} in ${q.pool}`).join(', ')}, each of quota ${p.quota}`
    : `${top} of quota ${p.quota}`;
  if (p.over_quota > 0) label += `, over quota by ${p.over_quota}`;
  const atLimit = p.limit && top >= p.limit;
  if (atLimit) label += ', at its limit';
  const borrowed = pools.reduce((n, q) => n + (q.borrowed || 0), 0);
  if (borrowed > 0) label += `; ${borrowed} of them borrowed by LOW work, counting toward no quota`;
  if (outside > 0) label += `; ${outside} more in pools without quota`;
  if (!pools.length) label = `${p.used} used, in no quota pool`;
  return {top, label, pools};
}

// priorityCap is p's max_priority_class, the parent's whose setting it
// inherits named, or "any class" when nothing caps it.
function priorityCap(p) {
  if (!p.max_priority_class) return h('span', {class: 'muted'}, 'any class');
  return p.max_priority_class_from
    ? [p.max_priority_class, h('span', {class: 'muted small'}, ` (${p.max_priority_class_from}'s)`)] : p.max_priority_class;
}

// row renders project p at depth in the tree; a parent's queued link
// lists its sub-projects' jobs too, as its counts include them.
function row(p, depth, parent) {
  const over = p.over_quota > 0;
  const u = quotaUse(p);
  const name = h('th', {scope: 'row', class: 'tree'}, depth ? h('span', {class: 'muted', 'aria-hidden': 'true'}, '↳ ') : null, p.name,
    p.parent ? h('span', {class: 'muted small'}, ` in ${p.parent}`) : null);
  name.style.setProperty('--depth', depth);
  return h('tr', {'data-project': p.name, class: over ? 'over-quota' : ''},
    name,
    h('td', {}, u.pools.length ? bar(u.top, p.quota, u.label, p.limit || 0) : h('span', {class: 'muted'}, u.label),
      over ? h('span', {class: 'flag over'}, 'over quota') : null),
    h('td', {class: 'num'}, p.quota),
    h('td', {class: 'num'}, p.used),
    h('td', {class: 'num'}, u.pools.length > 1 ? u.pools.map((q) => `${q.pool} ${q.used}`).join(', ') : (u.pools.length ? u.top : '—')),
    h('td', {class: 'num'}, p.limit || 'none'),
    h('td', {}, priorityCap(p)),
    h('td', {class: 'num'}, p.over_quota_weight),
    h('td', {class: 'num'}, p.running_tasks),
    h('td', {class: 'num'}, h('a', {href: `#/jobs?state=queued&project=${encodeURIComponent(p.name)}${parent ? '&subprojects=true' : ''}`}, p.queued_jobs)),
  );
}
