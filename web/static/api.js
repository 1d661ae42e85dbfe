// The REST API client of the dashboard. URLs are relative to the page, so
// the dashboard works wherever the master is mounted.

const base = 'api/v1';
const tokenKey = 'allot-token';

// ApiError is a refusal by a master that answered: a 4xx with an api.Error.
export class ApiError extends Error {
  constructor(status, message, field) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.field = field || '';
  }
}

// Unauthorized is a 401: the master wants a (different) bearer token.
export class Unauthorized extends ApiError {
  constructor(message) {
    super(401, message);
    this.name = 'Unauthorized';
  }
}

// Unreachable means the master did not answer, or answered that it is
// failing (5xx); the data on screen is stale.
export class Unreachable extends Error {
  constructor(message, status) {
    super(message);
    this.name = 'Unreachable';
    this.status = status || 0;
  }
}

// memoryToken keeps the token when sessionStorage is unavailable.
let memoryToken = '';

export function token() {
  try {
    return sessionStorage.getItem(tokenKey) || '';
  } catch {
    return '';
  }
}

export function setToken(t) {
  try {
    if (t) sessionStorage.setItem(tokenKey, t);
    else sessionStorage.removeItem(tokenKey);
  } catch {
    // Storage can be disabled; the token then lasts only until reload.
  }
  memoryToken = t;
}

// call sends one request and returns the decoded JSON body (null for 204).
// query is an object of parameters; empty values are left out.
export async function call(method, path, {body, query, signal} = {}) {
  const headers = {Accept: 'application/json'};
  const t = token() || memoryToken;
  if (t) headers.Authorization = 'Bearer ' + t;
  const init = {method, headers, signal, cache: 'no-store'};
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(base + path + queryString(query), init);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new Unreachable('the master does not answer (' + e.message + ')');
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (res.ok) {
    if (text && data === null) throw new Unreachable(`the master sent a reply that is not JSON (${res.status})`, res.status);
    return data;
  }
  const msg = data && typeof data.error === 'string' ? data.error : `${res.status} ${res.statusText}`.trim();
  if (res.status === 401) throw new Unauthorized(msg);
  if (res.status >= 500) throw new Unreachable(`the master answered ${res.status}: ${msg}`, res.status);
  throw new ApiError(res.status, msg, data && data.field);
}

export function get(path, signal, query) {
  return call('GET', path, {signal, query});
}

function queryString(query) {
  if (!query) return '';
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? '?' + s : '';
}

// who caches GET /whoami per token: the views that show only what the
// user may do or read ask it on every refresh, and the answer changes
// only with the token.
let who = {token: null, answer: null};

// whoami resolves to the signed-in user (api.Whoami), or null when the
// master does not say: callers then show what they would without it,
// and the master still refuses what the user may not do.
export function whoami() {
  const t = token() || memoryToken;
  if (who.token !== t || !who.answer) {
    const answer = get('/whoami').catch(() => null);
    who = {token: t, answer};
    answer.then((w) => {
      if (!w && who.answer === answer) who.answer = null; // ask again next time
    });
  }
  return who.answer;
}

const rank = {viewer: 1, member: 2, lead: 3};

// roleIn is the user's role in project: the stronger of its role there
// and its role in every project ('*'), as auth.Principal.RoleIn.
function roleIn(w, project) {
  const roles = w.roles || {};
  const here = roles[project] || '';
  const all = roles['*'] || '';
  return (rank[all] || 0) > (rank[here] || 0) ? all : here;
}

// readsAll says whether the user reads every project: an admin, or a role
// in every project; null (unknown) reads as false.
export function readsAll(w) {
  return !!w && (w.admin || !!(w.roles || {})['*']);
}

// readsProject says whether the user reads every job of project: an
// admin, or any role there (or in every project); unknown (null) reads
// as true.
export function readsProject(w, project) {
  return !w || w.admin || !!roleIn(w, project);
}

// mayChange says whether the user may kill or change job j, by the
// master's rule (auth.Principal.CanChange): an admin, the project's lead,
// or its owner while a member there. Unknown (null) reads as true.
export function mayChange(w, j) {
  if (!w) return true;
  const r = roleIn(w, j.project);
  return w.admin || r === 'lead' || (!!j.user && j.user === w.user && (rank[r] || 0) >= rank.member);
}

// mayKill says whether the user may kill job j (auth.Principal.CanKill):
// as mayChange, and its owner always, even after losing the role.
export function mayKill(w, j) {
  return mayChange(w, j) || (!!j.user && j.user === w.user);
}
