// Usage: GPU-hours per project, user or pool over a window, from the
// master's accounting (GET /usage), with each account's fair-share
// standing when a pool uses multifactor fair share. A user who does not
// read every project gets the rows it may read, and the shares are of
// those, which the page then says.

import {get, readsAll, whoami} from './api.js';
import {bar, fill, h, memo, stamp, table} from './dom.js';

const windows = [['24h', 'Last 24 hours'], ['7d', 'Last 7 days'], ['30d', 'Last 30 days']];
const groupings = [['project', 'Project'], ['user', 'User'], ['pool', 'Pool'], ['all', 'Pool, project and user']];

export function mount(root, ctx) {
  const since = choice('u-since', 'Window', windows);
  const by = choice('u-by', 'Group by', groupings);
  const form = h('form', {class: 'filters', 'aria-label': 'Usage window and grouping', onsubmit: (e) => e.preventDefault()},
    since.wrap, by.wrap);
  const total = h('p', {id: 'usage-total', 'aria-live': 'polite'});
  const scope = h('p', {id: 'usage-scope', class: 'note', hidden: true},
    'Only the projects where you have a role, and your own usage, are listed: the total and the shares count these rows, ' +
    "not the whole cluster's GPU-hours (the fairness audit, allot fairness, gives a project's share of the cluster).");
  const t = table('usage', 'GPU-hours used in the window', ['Pool', 'Project', 'User',
    ['GPU-hours', 'GPU time used in the window, running tasks up to now'], ['Share', 'Share of the GPU-hours listed for the window'],
    'Jobs', 'Attempts']);
  const shares = table('shares', "Fair-share standing (Slurm's sshare)", ['Account', 'Raw shares',
    ['Norm. shares', 'Its share of the cluster'], ['Effective usage', 'Decayed usage with its sub-accounts, as a share of the cluster'],
    ['Fair-share factor', '1 is the most deserving']]);
  const sharesBox = h('section', {id: 'shares-box', hidden: true}, h('h2', {}, 'Fair share'), shares.el);
  root.append(h('h1', {}, 'Usage'), form, total, scope, t.el, sharesBox);
  const same = memo();
  let query = ctx.query;
  const apply = () => {
    since.el.value = query.get('since') || '7d';
    by.el.value = query.get('by') || 'project';
  };
  const changed = () => {
    query = new URLSearchParams({since: since.el.value, by: by.el.value});
    history.replaceState(null, '', '#/usage?' + query.toString());
    ctx.refreshNow();
  };
  since.el.addEventListener('change', changed);
  by.el.addEventListener('change', changed);
  apply();
  return {
    setQuery(q) {
      query = q;
      apply();
    },
    async refresh(signal) {
      const [u, w] = await Promise.all([get('/usage', signal, {since: since.el.value, by: by.el.value}), whoami()]);
      // Unknown (no whoami), the rows may be some only: "listed" is true either way.
      const all = readsAll(w);
      if (same([u, all])) return;
      scope.hidden = all || !w;
      fill(total, `${u.total_gpu_hours.toFixed(2)} GPU-hours from ${stamp(new Date(u.since))} to ${stamp(new Date(u.until))}`);
      const rows = u.rows || [];
      fill(t.tbody, rows.length ? rows.map((r) => row(r, u.total_gpu_hours, all))
        : h('tr', {}, h('td', {colspan: 7, class: 'muted'}, 'No GPU was used in this window.')));
      const sh = u.shares || [];
      sharesBox.hidden = sh.length === 0;
      fill(shares.tbody, sh.map((s) => h('tr', {'data-account': s.account},
        h('th', {scope: 'row'}, s.account), h('td', {class: 'num'}, s.raw_shares),
        h('td', {class: 'num'}, s.norm_shares.toFixed(4)), h('td', {class: 'num'}, s.effective_usage.toFixed(4)),
        h('td', {class: 'num'}, s.fair_share == null ? '-' : s.fair_share.toFixed(4)))));
    },
  };
}

function row(r, total, all) {
  const pct = total > 0 ? (100 * r.gpu_hours) / total : 0;
  const key = [r.pool, r.project, r.user].filter(Boolean).join('/');
  return h('tr', {'data-usage': key},
    h('td', {}, r.pool || '—'), h('td', {}, r.project || '—'), h('td', {}, r.user || '—'),
    h('td', {class: 'num'}, r.gpu_hours.toFixed(2)),
    h('td', {}, bar(r.gpu_hours, total || 1, `${pct.toFixed(1)}% of ${all ? 'all' : 'the'} GPU-hours${all ? '' : ' listed'}`)),
    h('td', {class: 'num'}, r.jobs), h('td', {class: 'num'}, r.attempts));
}

function choice(id, label, options) {
  const el = h('select', {id}, options.map(([v, text]) => h('option', {value: v}, text)));
  return {el, wrap: h('div', {class: 'field'}, h('label', {for: id}, label), el)};
}
