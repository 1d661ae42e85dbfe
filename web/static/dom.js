// Small DOM helpers. Data always goes into text nodes, never into HTML, so
// job names and log lines cannot inject markup.

// h builds an element. props: class, text, on<event>, style (an object of
// CSS properties, set through the CSSOM so the Content Security Policy
// allows it), DOM properties such as value or disabled, and attributes.
export function h(tag, props, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'style') for (const [p, val] of Object.entries(v)) el.style.setProperty(p, val);
    else if (k in el && !k.includes('-')) el[k] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  add(el, kids);
  return el;
}

function add(el, kids) {
  for (const k of kids.flat(Infinity)) {
    if (k === null || k === undefined || k === false) continue;
    el.append(k instanceof Node ? k : String(k));
  }
}

// fill replaces the children of el.
export function fill(el, ...kids) {
  el.replaceChildren();
  add(el, kids);
  return el;
}

// relative says how far a time (ms from now) is, in words.
export function relative(ms) {
  const s = Math.round(ms / 1000);
  const a = Math.abs(s);
  if (a < 1) return 'now';
  let txt;
  if (a < 60) txt = `${a} s`;
  else if (a < 3600) txt = `${Math.round(a / 60)} min`;
  else if (a < 48 * 3600) txt = `${Math.floor(a / 3600)} h ${Math.round((a % 3600) / 60)} min`;
  else txt = `${Math.round(a / 86400)} days`;
  return s < 0 ? `${txt} ago` : `in ${txt}`;
}

// duration renders whole seconds.
export function duration(s) {
  if (!s) return '—';
  const d = Math.floor(s / 86400), hh = Math.floor((s % 86400) / 3600);
  const mm = Math.floor((s % 3600) / 60), ss = s % 60;
  const parts = [];
  if (d) parts.push(d + ' d');
  if (hh) parts.push(hh + ' h');
  if (mm) parts.push(mm + ' min');
  if (ss && !d) parts.push(ss + ' s');
  return parts.join(' ');
}

function clock(d) {
  return d.toLocaleTimeString([], {hour: '2-digit', minute: '2-digit'});
}

function timeText(el) {
  const d = new Date(el.dateTime);
  // A master's as_of, when given, beats the browser's clock: the message
  // beside the time counts from it, and the two clocks may disagree.
  const from = el.dataset.from ? new Date(el.dataset.from).getTime() : NaN;
  const rel = relative(d - (isNaN(from) ? Date.now() : from));
  return el.dataset.rel === 'both' ? `${rel} (${clock(d)})` : rel;
}

// when is a <time> that shows how far the time is and keeps that current
// (see tickTimes); the exact time is in its title. mode 'both' also shows
// the clock time. from, when given, is the master's time to count from
// (a pending's as_of) instead of the browser's clock.
export function when(iso, mode, from) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (isNaN(d)) return String(iso);
  const el = h('time', {datetime: iso, title: d.toLocaleString(), 'data-rel': mode || 'rel', 'data-from': from || null});
  el.textContent = timeText(el);
  return el;
}

// estimate shows a pending job's estimated start: a reservation's time,
// or a forecast, as a range when the master gives one.
export function estimate(p) {
  if (!p || !p.estimated_start) return '—';
  const out = [];
  if (p.estimated_start_earliest) out.push(when(p.estimated_start_earliest, 'both', p.as_of), ' to ');
  out.push(when(p.estimated_start, 'both', p.as_of));
  if (p.estimate_basis === 'forecast') out.push(h('span', {class: 'muted small'}, ' (forecast)'));
  return h('span', {class: 'estimate'}, out);
}

// tickTimes refreshes the text of every relative <time>.
export function tickTimes(root) {
  for (const el of (root || document).querySelectorAll('time[data-rel]')) el.textContent = timeText(el);
}

// bar is a usage bar with its numbers as text, so it reads without colour.
// mark, when given, draws a line at that value (a quota).
export function bar(used, total, label, mark) {
  const scale = Math.max(total, used, mark || 0, 1);
  const f = h('span', {class: 'bar-fill'});
  f.style.width = (Math.min(used, total) / scale) * 100 + '%';
  const b = h('span', {class: 'bar', 'aria-hidden': 'true'}, f);
  if (used > total) {
    const over = h('span', {class: 'bar-over'});
    over.style.left = (total / scale) * 100 + '%';
    over.style.width = ((used - total) / scale) * 100 + '%';
    b.append(over);
  }
  if (mark) {
    const m = h('span', {class: 'bar-mark'});
    m.style.left = (mark / scale) * 100 + '%';
    b.append(m);
  }
  return h('span', {class: 'bar-wrap'}, b, h('span', {class: 'bar-text'}, label || `${used} / ${total}`));
}

// shownState is the state to show of a job: killing while it is ending
// (the API's ending: killed, but tasks still hold their GPUs until their
// agents confirm the end), else its state.
export function shownState(j) {
  return j.ending ? 'killing' : j.state;
}

// stateBadge shows a state as a word; the colour only repeats it.
export function stateBadge(state) {
  return h('span', {class: 'state state-' + String(state || 'unknown').replace(/[^a-z_]/g, '')}, state || 'unknown');
}

// leavingBadge marks an up node whose agent is shutting down cleanly (the
// API's leaving): nothing new starts there, and it leaves after its final
// sync.
export function leavingBadge() {
  const b = stateBadge('leaving');
  b.title = 'Its agent is shutting down: nothing new starts here, and the node leaves after its final sync';
  return b;
}

export function jobLink(id, text) {
  return h('a', {href: '#/jobs/' + id}, text || 'job ' + id);
}

// blockerRef names the job that a waiting job's pending p is blocked by:
// a link to its page, or, for one the viewer may not read (the master
// says blocked_by_private), its number alone, as its page would refuse.
export function blockerRef(p) {
  if (p.blocked_by_private) return h('span', {class: 'private-job'}, `#${p.blocked_by} (another project's job)`);
  return jobLink(p.blocked_by);
}

// jobHue spreads job ids around the colour wheel (golden angle), so that
// neighbouring ids get distant colours.
export function jobHue(id) {
  return Math.round((Number(id) * 137.508) % 360);
}

export function yesNo(v) {
  return v ? 'yes' : 'no';
}

// table builds a table with an id, a caption and header cells for the
// columns. cols are strings or [text, title] pairs.
export function table(id, caption, cols) {
  const tbody = h('tbody');
  const head = cols.map((c) => {
    const [text, title] = Array.isArray(c) ? c : [c, null];
    return h('th', {scope: 'col', title}, text);
  });
  const t = h('table', {id}, h('caption', {}, caption), h('thead', {}, h('tr', {}, head)), tbody);
  return {el: h('div', {class: 'scroll'}, t), table: t, tbody};
}

// same remembers the last data a view rendered, so that a refresh that
// brings nothing new leaves the DOM (focus, selection, scroll) alone.
export function memo() {
  let last = null;
  return (data) => {
    const key = JSON.stringify(data);
    if (key === last) return true;
    last = key;
    return false;
  };
}

export function labelsOf(labels) {
  const keys = Object.keys(labels || {}).sort();
  if (!keys.length) return '—';
  return h('ul', {class: 'chips'}, keys.map((k) => h('li', {}, `${k}=${labels[k]}`)));
}
