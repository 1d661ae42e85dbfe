// The dashboard's shell: hash routing, the refresh loop, the "updated"
// line, the unreachable banner, the token prompt and the confirm dialog.
// Each view is a module with mount(root, ctx) → {refresh(signal),
// setQuery?(query), unmount?()}; refresh throws the api.js errors and the
// shell decides what they mean for the page.

import {ApiError, Unauthorized, Unreachable, get, setToken, token} from './api.js';
import {fill, h, relative, stamp, tickTimes, zoneNote} from './dom.js';
import * as overview from './overview.js';
import * as jobs from './jobs.js';
import * as job from './job.js';
import * as nodes from './nodes.js';
import * as projects from './projects.js';
import * as pools from './pools.js';
import * as usage from './usage.js';

const routes = [
  {re: /^\/$/, nav: 'overview', title: 'Overview', view: overview},
  {re: /^\/jobs$/, nav: 'jobs', title: 'Jobs', view: jobs},
  {re: /^\/jobs\/(\d+)$/, nav: 'jobs', title: 'Job', view: job},
  {re: /^\/nodes$/, nav: 'nodes', title: 'Nodes', view: nodes},
  {re: /^\/projects$/, nav: 'projects', title: 'Projects', view: projects},
  {re: /^\/pools$/, nav: 'pools', title: 'Pools', view: pools},
  {re: /^\/usage$/, nav: 'usage', title: 'Usage', view: usage},
];

// ?refresh=SECONDS on the page URL sets the refresh period.
const period = (() => {
  const v = Number(new URLSearchParams(location.search).get('refresh'));
  return v >= 0.1 && v <= 3600 ? v * 1000 : 2000;
})();

const main = document.getElementById('main');
const banner = document.getElementById('banner');
const updated = document.getElementById('updated');
const login = document.getElementById('login');

let current = null; // {path, view}
let generation = 0; // bumps on every refresh start, so stale ones stand down
let inflight = null; // AbortController of the running refresh
let timer = 0;
let lastOk = 0; // when the master last answered
let down = ''; // why the master is unreachable, '' while it answers

function parseHash() {
  const raw = location.hash.replace(/^#/, '');
  const i = raw.indexOf('?');
  const path = (i < 0 ? raw : raw.slice(0, i)) || '/';
  return {path, query: new URLSearchParams(i < 0 ? '' : raw.slice(i + 1))};
}

function route() {
  const {path, query} = parseHash();
  if (current && current.path === path && current.view.setQuery) {
    current.view.setQuery(query);
    refreshNow();
    return;
  }
  if (current && current.view.unmount) current.view.unmount();
  current = null;
  fill(main);
  const r = routes.find((x) => x.re.test(path));
  setNav(r ? r.nav : '');
  if (!r) {
    document.title = 'Not found · Allot';
    main.append(h('h1', {}, 'Not found'), h('p', {}, `There is no view at #${path}. `, h('a', {href: '#/'}, 'Go to the overview.')));
    return;
  }
  document.title = r.title + ' · Allot';
  const ctx = {params: path.match(r.re).slice(1), query, refreshNow, confirm: confirmAction, period};
  current = {path, view: r.view.mount(main, ctx)};
  refreshNow();
}

function setNav(name) {
  for (const a of document.querySelectorAll('nav a[data-nav]')) {
    if (a.dataset.nav === name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

// refreshNow refreshes the current view at once, abandoning a refresh
// that is under way, and then every period.
export function refreshNow() {
  clearTimeout(timer);
  if (inflight) inflight.abort();
  const gen = ++generation;
  const view = current && current.view;
  if (!view) return;
  if (document.hidden) {
    // A hidden tab need not load the master; visibilitychange resumes.
    return;
  }
  const ctrl = new AbortController();
  inflight = ctrl;
  view.refresh(ctrl.signal).then(
    () => {
      if (gen !== generation) return;
      answered();
    },
    (e) => {
      if (gen !== generation || e.name === 'AbortError') return;
      failed(e, view);
    },
  ).finally(() => {
    if (gen !== generation) return;
    inflight = null;
    timer = setTimeout(refreshNow, period);
  });
}

// whoFor is the token whose user the header shows; null to look it up.
let whoFor = null;

// showWho names the signed-in user in the header, once per token, with
// the projects the master's configuration (its users: section) limits
// the user's submissions to, as allot whoami says.
async function showWho() {
  const t = token();
  if (whoFor === t) return;
  whoFor = t;
  const box = document.getElementById('who');
  if (!t) {
    box.hidden = true;
    return;
  }
  try {
    const w = await get('/whoami');
    document.getElementById('who-name').textContent = w.user + (w.admin ? ' (admin)' : '');
    const only = document.getElementById('who-projects');
    const projects = w.config_projects || [];
    only.textContent = projects.length ? ', submits only to ' + projects.join(', ') : '';
    only.title = projects.length ? "The master's configuration file (its users: section) limits this user's submissions to these projects, whatever the roles" : '';
    only.hidden = !projects.length;
    box.hidden = false;
  } catch {
    whoFor = null;
  }
}

// checkStore shows a banner while the master cannot write to its store:
// reads may still answer from its memory, but no change would be kept.
async function checkStore() {
  const el = document.getElementById('store-banner');
  let st;
  try {
    const res = await fetch('readyz', {headers: {Accept: 'application/json'}, cache: 'no-store'});
    st = await res.json();
  } catch {
    return; // unreachable: the other banner says so
  }
  if (!st || st.ready !== false) {
    el.hidden = true;
    return;
  }
  const since = st.store && st.store.since ? stamp(new Date(st.store.since)) : 'a moment ago';
  const why = st.store && st.store.error ? ` (${st.store.error})` : '';
  el.textContent = `The master cannot write to its database since ${since}${why}. ` +
    'It refuses changes until the database is back and retries by itself; running jobs go on. ' +
    'What is shown meanwhile comes from its memory: the live jobs, without the ended jobs and attempts ' +
    'only the database keeps; logs, metrics and usage wait for it.';
  el.hidden = false;
}

function answered() {
  checkStore();
  showWho();
  lastOk = Date.now();
  down = '';
  banner.hidden = true;
  login.hidden = true;
  if (main.dataset.error) {
    delete main.dataset.error;
    const old = main.querySelector('.view-error');
    if (old) old.remove();
  }
  tick();
}

function failed(e, view) {
  if (e instanceof Unauthorized) {
    down = '';
    banner.hidden = true;
    showLogin(e.message);
    tick();
    return;
  }
  if (e instanceof Unreachable) {
    checkStore();
    down = e.message;
    tick();
    return;
  }
  if (e instanceof ApiError) {
    // The master answered but refused; the view says why in place, and
    // the header still names who is signed in.
    showWho();
    lastOk = Date.now();
    down = '';
    banner.hidden = true;
    if (view.error) view.error(e);
    else viewError(e.message);
    tick();
    return;
  }
  // A bug in the page: let the console have it, and say so.
  console.error(e);
  viewError('The dashboard failed to show this view: ' + e.message);
}

function viewError(msg) {
  main.dataset.error = '1';
  let el = main.querySelector('.view-error');
  if (!el) {
    el = h('p', {class: 'view-error', role: 'alert'});
    main.prepend(el);
  }
  el.textContent = msg;
}

// showLogin asks for a token. The master's 401 without one speaks to
// curl users ("send an API token as 'Authorization: Bearer TOKEN'"),
// which a browser user cannot do: the panel says where to get a token
// instead (trial 2026-11-29d D8), and quotes the master only when it
// refused a token given.
function showLogin(msg) {
  login.hidden = false;
  const text = document.getElementById('login-text');
  const lead = token()
    ? `The master refused the token (${msg}). Paste another API token to see the cluster.`
    : 'The master asks for an API token: paste one to see the cluster.';
  fill(text, [lead, ' ', ...signInHelp()]);
}

// signInHelp says where a token comes from, as docs/dashboard.md does.
function signInHelp() {
  const code = (s) => h('code', {text: s});
  return ['Make one with ', code('allot token create > FILE'), ' and paste the line it writes (an admin makes ',
    'one for another user with ', code('allot token create --user NAME'), '); under ', code('allot dev'),
    ', paste the admin\'s token from ', code('DATA/admin.token'), ' (', code('.allot-dev/admin.token'),
    ' by default).'];
}

document.getElementById('login-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const input = document.getElementById('login-token');
  setToken(input.value.trim());
  input.value = '';
  refreshNow();
});

// Signing out forgets the token and drops what the page shows, so the
// next person at the screen sees nothing of the last one's jobs.
document.getElementById('signout').addEventListener('click', () => {
  setToken('');
  whoFor = null;
  document.getElementById('who').hidden = true;
  if (current && current.view.unmount) current.view.unmount();
  current = null;
  route();
});

// tick keeps the "updated" line, the banner and relative times current.
function tick() {
  const age = lastOk ? relative(lastOk - Date.now()) : '';
  if (down) {
    updated.textContent = lastOk ? `Master unreachable; last update ${age}` : 'Master unreachable';
    updated.classList.add('stale');
    const since = lastOk ? `The data below is from ${age}.` : 'No data could be loaded yet.';
    banner.textContent = `Cannot reach the Allot master: ${down}. ${since} Retrying every ${period / 1000} s.`;
    banner.hidden = false;
  } else if (!login.hidden) {
    // Nothing loads until a token is given: no "Loading…" that never ends.
    updated.textContent = 'Not signed in';
    updated.classList.remove('stale');
  } else {
    updated.textContent = lastOk ? `Updated ${Date.now() - lastOk < 1000 ? 'just now' : age}` : 'Loading…';
    updated.classList.remove('stale');
  }
  tickTimes(main);
}

// confirmAction asks in a modal dialog and resolves to true on Confirm.
function confirmAction(text, okLabel) {
  const d = document.getElementById('confirm');
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-ok').textContent = okLabel || 'Confirm';
  return new Promise((resolve) => {
    d.returnValue = '';
    d.addEventListener('close', () => resolve(d.returnValue === 'ok'), {once: true});
    d.showModal();
    document.getElementById('confirm-cancel').focus();
  });
}

document.getElementById('confirm-ok').addEventListener('click', () => document.getElementById('confirm').close('ok'));
document.getElementById('confirm-cancel').addEventListener('click', () => document.getElementById('confirm').close('cancel'));
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) refreshNow();
});
window.addEventListener('hashchange', route);
// The times are the viewer's local ones, as the command line's are: say
// once which zone that is.
document.getElementById('zone').textContent = zoneNote();
setInterval(tick, 1000);
route();
