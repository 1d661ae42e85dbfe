// Usage: GPU-hours per project, user or pool over a window, from the
// master's accounting (GET /usage), with each account's fair-share
// standing when a pool uses multifactor fair share. A user who does not
// read every project gets the rows it may read, and the shares are of
// those, which the page then says. The window is one of three presets,
// or any since and until the API takes (a duration ago, "1h", "2d", or a
// time), from the address or the From and Until inputs; one the master
// does not understand is said, not silently replaced (trial 2026-11-29i
// I17). Download CSV saves the rows shown.

import {ApiError, get, readsAll, whoami} from './api.js';
import {bar, fill, h, memo, stamp, table} from './dom.js';

const windows = [['24h', 'Last 24 hours'], ['7d', 'Last 7 days'], ['30d', 'Last 30 days'], ['custom', 'From and until below']];
const whenHint = 'a duration ago (1h, 36h, 2d) or a time: 2026-11-28 09:00 (your local time) or 2026-11-28T09:00:00Z';
const groupings = [['project', 'Project'], ['user', 'User'], ['pool', 'Pool'], ['all', 'Pool, project and user']];

export function mount(root, ctx) {
  const since = choice('u-since', 'Window', windows);
  const by = choice('u-by', 'Group by', groupings);
  const from = text('u-from', 'From', 'since: ' + whenHint);
  const until = text('u-until', 'Until', 'until (empty: now): ' + whenHint);
  const apply = h('button', {type: 'submit', id: 'u-apply'}, 'Show');
  const csv = h('button', {type: 'button', id: 'u-csv', disabled: true}, 'Download CSV');
  const form = h('form', {class: 'filters', 'aria-label': 'Usage window and grouping'},
    since.wrap, from.wrap, until.wrap, apply, by.wrap, csv);
  const bad = h('p', {id: 'usage-window-error', class: 'note error', role: 'alert'});
  const total = h('p', {id: 'usage-total', 'aria-live': 'polite'});
  const scope = h('p', {id: 'usage-scope', class: 'note', hidden: true},
    'Only the projects where you have a role, and your own usage, are listed: the total and the shares count these rows, ' +
    "not the whole cluster's GPU-hours (the fairness audit, allot fairness, gives a project's share of the cluster).");
  const t = table('usage', 'GPU-hours used in the window', ['Pool', 'Project', 'User',
    ['GPU-hours', 'GPU time used in the window, running tasks up to now'], ['Share', 'Share of the GPU-hours listed for the window'],
    'Jobs', 'Attempts']);
  const shares = table('shares', "Fair-share standing (Slurm's sshare)", ['Account', 'Raw shares',
    ['Norm. shares', 'Its share of the cluster'], ['Effective usage', 'Decayed usage with its sub-accounts, as a share of the cluster'],
    ['Fair-share factor', '1 is the most deserving'],
    ['Rank', 'Under fair tree, the user\'s place among the users ranked, 1 the best; tied users share one']]);
  // How usage decays and when it next does, as allot usage says under
  // its table; the ranks beside the factors (trial 2026-11-29j J7).
  const decay = h('p', {id: 'shares-decay', hidden: true});
  const sharesBox = h('section', {id: 'shares-box', hidden: true}, h('h2', {}, 'Fair share'), shares.el, decay);
  root.append(h('h1', {}, 'Usage'), form, bad, total, scope, t.el, sharesBox);
  const same = memo();
  let query = ctx.query;
  let shown = null; // the usage the table shows, for Download CSV
  // show puts the address's window and grouping in the inputs: a preset
  // in the list, any other since (and any until) in From and Until.
  const show = () => {
    const s = query.get('since') || '7d', u = query.get('until') || '';
    const preset = !u && windows.some(([v]) => v === s && v !== 'custom');
    since.el.value = preset ? s : 'custom';
    from.el.value = preset ? '' : s;
    until.el.value = u;
    by.el.value = query.get('by') || 'project';
  };
  const chosen = () => (since.el.value === 'custom' ? {since: toAPI(from.el.value), until: toAPI(until.el.value)} : {since: since.el.value});
  const changed = () => {
    const w = chosen();
    query = new URLSearchParams({since: w.since || '7d', ...(w.until ? {until: w.until} : {}), by: by.el.value});
    history.replaceState(null, '', '#/usage?' + query.toString());
    ctx.refreshNow();
  };
  since.el.addEventListener('change', () => {
    if (since.el.value !== 'custom') changed();
    else from.el.focus();
  });
  by.el.addEventListener('change', changed);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (from.el.value.trim() || until.el.value.trim()) since.el.value = 'custom';
    changed();
  });
  csv.addEventListener('click', () => shown && download(shown));
  show();
  return {
    setQuery(q) {
      query = q;
      show();
    },
    async refresh(signal) {
      const params = {since: query.get('since') || '7d', by: by.el.value};
      if (query.get('until')) params.until = query.get('until');
      const [r, w] = await Promise.all([get('/usage', signal, params).catch((e) => {
        // A window the master refuses is said where the window is chosen;
        // other failures are the view's.
        if (!(e instanceof ApiError) || e.status !== 400 || !['since', 'until'].includes(e.field)) throw e;
        return e;
      }), whoami()]);
      if (r instanceof ApiError) {
        shown = null;
        csv.disabled = true;
        same(null);
        fill(bad, `The window (${windowText(params)}) was not understood: ${r.message}. Choose a preset, or give From and Until as ${whenHint}.`);
        fill(total, 'No usage shown.');
        fill(t.tbody);
        sharesBox.hidden = true;
        return;
      }
      const u = r;
      fill(bad);
      // Unknown (no whoami), the rows may be some only: "listed" is true either way.
      const all = readsAll(w);
      if (same([u, all])) return;
      shown = u;
      csv.disabled = false;
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
        h('td', {class: 'num'}, s.fair_share == null ? '-' : s.fair_share.toFixed(4)),
        h('td', {class: 'num rank'}, s.rank ? `${s.rank} of ${s.users}` : '-'))));
      decay.hidden = !u.decay;
      fill(decay, u.decay ? u.decay.charAt(0).toUpperCase() + u.decay.slice(1) + '.' : '');
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

function text(id, label, title) {
  const el = h('input', {type: 'text', id, size: 20, title, placeholder: label === 'From' ? '1h, 2d, 2026-11-28 09:00' : 'now', autocomplete: 'off'});
  return {el, wrap: h('div', {class: 'field'}, h('label', {for: id}, label), el)};
}

// toAPI is what the API takes for a From or Until: a local time without
// a zone (2026-11-28 09:00) as an RFC 3339 time, anything else as typed
// (a duration ago, an RFC 3339 time), for the master to judge.
export function toAPI(s) {
  s = s.trim();
  const m = /^(\d{4})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d)(?::(\d\d))?)?$/.exec(s);
  if (!m) return s;
  const d = new Date(+m[1], +m[2] - 1, +m[3], +(m[4] || 0), +(m[5] || 0), +(m[6] || 0));
  return isNaN(d) ? s : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function windowText(p) {
  return `since ${p.since}` + (p.until ? `, until ${p.until}` : '');
}

// download saves the rows of u as CSV, as allot usage -o csv gives them:
// the same columns and names (every column, hours unrounded, SHARE a
// fraction of the rows' total, the window's bounds in RFC 3339 UTC to
// the second), and no TOTAL row, which a sum would count twice (trial
// 2026-11-29j J12).
function download(u) {
  const q = (v) => (/[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));
  const utc = (t) => (t ? new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z') : '');
  const share = (h) => (u.total_gpu_hours > 0 ? h / u.total_gpu_hours : '');
  const lines = [['POOL', 'PROJECT', 'USER', 'GPU-HOURS', 'JOBS', 'ATTEMPTS', 'SHARE', 'SINCE', 'UNTIL'].join(',')];
  for (const r of u.rows || []) {
    lines.push([r.pool || '', r.project || '', r.user || '', r.gpu_hours, r.jobs, r.attempts, share(r.gpu_hours),
      utc(u.since), utc(u.until)].map(q).join(','));
  }
  const a = h('a', {href: URL.createObjectURL(new Blob([lines.join('\n') + '\n'], {type: 'text/csv'})),
    download: `allot-usage-${u.by || 'project'}.csv`, id: 'u-csv-link', hidden: true});
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60000); // once the download has surely started
}

function choice(id, label, options) {
  const el = h('select', {id}, options.map(([v, text]) => h('option', {value: v}, text)));
  return {el, wrap: h('div', {class: 'field'}, h('label', {for: id}, label), el)};
}
