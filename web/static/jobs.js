// Jobs: the queue in the master's scheduling order, with each waiting
// job's position, reason and estimated start, then the ended jobs newest
// first, a page of 200 at a time ("More"), and filters that live in the URL
// (#/jobs?state=queued&pool=a100).

import {get, readsProject, whoami} from './api.js';
import {blockerRef, estimate, fill, h, jobLink, memo, shownState, stateBadge, table} from './dom.js';

// killing: killed jobs whose tasks still stop (the API's ending), and
// held: queued jobs held (allot job hold), which the master's state
// filter selects too.
const states = ['queued', 'held', 'running', 'killing', 'completed', 'failed', 'killed'];
const ended = ['completed', 'failed', 'killed'];
const pageSize = 200;
const filters = ['state', 'pool', 'project', 'subprojects', 'user'];

export function mount(root, ctx) {
  const sel = {
    state: select('f-state', 'State', ['', ...states]),
    pool: select('f-pool', 'Pool', ['']),
    project: select('f-project', 'Project', ['']),
  };
  const user = h('input', {id: 'f-user', type: 'search', placeholder: 'any', autocomplete: 'off'});
  // With a project, its sub-projects' jobs too (subprojects=true), as a
  // parent's counts on the projects page include them.
  const sub = h('input', {id: 'f-subprojects', type: 'checkbox'});
  const form = h('form', {class: 'filters', role: 'search', 'aria-label': 'Filter jobs', onsubmit: (e) => e.preventDefault()},
    sel.state.wrap, sel.pool.wrap, sel.project.wrap,
    h('div', {class: 'field'}, h('label', {for: 'f-subprojects'}, 'With sub-projects'), sub),
    h('div', {class: 'field'}, h('label', {for: 'f-user'}, 'User'), user));
  const count = h('p', {class: 'muted', id: 'jobs-count', 'aria-live': 'polite'});
  const t = table('jobs', 'Jobs in scheduling order', [
    ['Pos.', 'Place in its pool\'s scheduling order'], 'ID', 'Name', 'State', 'Pool', 'Project', 'User',
    ['Slots', 'Slots per task'], ['Tasks', 'Running / total'], ['Priority', '1 is the most important'],
    'Why waiting', 'Estimated start',
  ]);
  let want = pageSize; // how many ended jobs to show
  const more = h('button', {type: 'button', id: 'jobs-more', hidden: true,
    onclick: () => { want += pageSize; ctx.refreshNow(); }}, `Show ${pageSize} more ended jobs`);
  root.append(h('h1', {}, 'Jobs'), form, count, t.el, more);

  const same = memo();
  let query = noAll(ctx.query);
  const apply = () => {
    for (const [k, s] of Object.entries(sel)) setValue(s.el, query.get(k) || '');
    user.value = query.get('user') || '';
    sub.checked = query.get('subprojects') === 'true';
    sub.disabled = !sel.project.el.value;
  };
  const changed = () => {
    const q = new URLSearchParams();
    for (const [k, s] of Object.entries(sel)) if (s.el.value) q.set(k, s.el.value);
    if (sel.project.el.value && sub.checked) q.set('subprojects', 'true');
    if (user.value.trim()) q.set('user', user.value.trim());
    sub.disabled = !sel.project.el.value;
    query = q;
    want = pageSize;
    const qs = q.toString();
    // replaceState changes the URL without a hashchange, so the view stays.
    history.replaceState(null, '', '#/jobs' + (qs ? '?' + qs : ''));
    ctx.refreshNow();
  };
  for (const s of Object.values(sel)) s.el.addEventListener('change', changed);
  user.addEventListener('change', changed);
  sub.addEventListener('change', changed);
  apply();

  return {
    setQuery(q) {
      query = noAll(q);
      apply();
    },
    async refresh(signal) {
      const params = Object.fromEntries(filters.map((k) => [k, query.get(k) || '']));
      if (!params.project) params.subprojects = '';
      const st = params.state;
      // Settled apart, so that a refused filter (a 400 naming it) still
      // leaves the pools and projects to choose from.
      const got = await Promise.allSettled([
        ended.includes(st) ? [] : get('/jobs', signal, {...params, state: st || 'queued,running,killing'}),
        st && !ended.includes(st) ? {jobs: [], more: false} : endedJobs({...params, state: st || ended.join(',')}, want, signal),
        get('/pools', signal),
        get('/projects', signal),
        whoami(),
      ]);
      const [pools, projects] = [got[2], got[3]];
      if (pools.status === 'fulfilled') options(sel.pool.el, pools.value.map((p) => p.name).sort(), query.get('pool') || '');
      if (projects.status === 'fulfilled') options(sel.project.el, projects.value.map((p) => p.name).sort(), query.get('project') || '');
      const refused = got.find((g) => g.status === 'rejected');
      if (refused) throw refused.reason;
      const [live, old, , , w] = got.map((g) => g.value);
      const ids = new Set(live.map((j) => j.id));
      const list = [...live, ...old.jobs.filter((j) => !ids.has(j.id))];
      more.hidden = !old.more;
      if (same([list, params, old.more, w])) return;
      const filtered = filters.some((k) => params[k]);
      // A project the user has no role in lists only the user's own jobs
      // there (as allot jobs --project notes): say so, rather than let
      // the list read as all of them.
      const own = params.project && !readsProject(w, params.project) ?
        ` Only your own jobs in project ${params.project} are listed: you have no role there.` : '';
      count.textContent = `${list.length} job${list.length === 1 ? '' : 's'}${filtered ? ' match the filters' : ''}` +
        (old.more ? '; older ended jobs are not shown yet.' : '.') + own;
      fill(t.tbody, list.length ? list.map(row) : h('tr', {}, h('td', {colspan: 12, class: 'muted'}, 'No jobs match.')));
    },
  };
}

// noAll reads state=all (allot jobs -t all) as no state filter, the
// page's "any": every job, live then ended.
function noAll(q) {
  if (q.get('state') !== 'all') return q;
  const out = new URLSearchParams(q);
  out.delete('state');
  return out;
}

// endedJobs reads the ended jobs newest first, a page at a time, until it
// has want of them or there are no more; more says whether some are left.
async function endedJobs(params, want, signal) {
  const jobs = [];
  let cursor = '';
  for (;;) {
    const page = await get('/jobs', signal, {...params, limit: Math.min(pageSize, want - jobs.length), cursor});
    jobs.push(...page.jobs);
    if (!page.next) return {jobs, more: false};
    if (jobs.length >= want) return {jobs, more: true};
    cursor = page.next;
  }
}

function select(id, label, values) {
  const el = h('select', {id, name: id.slice(2)});
  options(el, values.filter(Boolean), '');
  return {el, wrap: h('div', {class: 'field'}, h('label', {for: id}, label), el)};
}

// options sets a select's choices to "any" plus values, keeping the
// current choice even when it is not (or no longer) among them.
function options(el, values, current) {
  const want = current === undefined || current === null ? el.value : current;
  const all = [...new Set([...values, ...(want ? [want] : [])])];
  const have = [...el.options].map((o) => o.value).slice(1);
  if (have.join('\n') !== all.join('\n')) {
    fill(el, h('option', {value: ''}, 'any'), all.map((v) => h('option', {value: v}, v)));
  }
  setValue(el, want || '');
}

function setValue(el, v) {
  if (![...el.options].some((o) => o.value === v)) el.append(h('option', {value: v}, v));
  el.value = v;
}

function row(j) {
  const p = j.pending;
  return h('tr', {'data-job': j.id, class: 'state-row-' + shownState(j)},
    h('td', {class: 'num'}, j.position || '—'),
    h('td', {class: 'num'}, jobLink(j.id, String(j.id))),
    h('td', {class: 'name'}, jobLink(j.id, j.name || '(unnamed)')),
    h('td', {}, stateBadge(shownState(j))),
    h('td', {}, j.pool),
    h('td', {}, j.project),
    h('td', {}, j.user || '—'),
    h('td', {class: 'num'}, j.slots),
    h('td', {class: 'num'}, `${j.running} / ${j.tasks}`),
    h('td', {class: 'num'}, j.priority_class ? `${j.priority} (${j.priority_class})` : j.priority),
    h('td', {class: 'why'}, why(j)),
    h('td', {}, estimate(p)),
  );
}

function why(j) {
  const p = j.pending;
  if (p) {
    return [
      h('code', {class: 'reason'}, p.reason), ' ', p.message,
      p.blocked_by ? [' — blocked by ', blockerRef(p)] : null,
    ];
  }
  if (j.state === 'queued') return h('span', {class: 'muted'}, 'waiting for the next scheduling pass');
  return j.reason ? h('span', {class: 'muted'}, j.reason) : '';
}
