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

// humanDur renders whole seconds as people read a wait, as the command
// line and the scheduler's messages do (sched.HumanDuration): "45s",
// "12m", "2h 10m", "3d 4h"; the two largest units, rounded down.
export function humanDur(s) {
  const units = [[86400, 'd'], [3600, 'h'], [60, 'm'], [1, 's']];
  s = Math.max(0, Math.floor(s || 0));
  for (let i = 0; i < units.length - 1; i++) {
    const [n, name] = units[i];
    if (s < n) continue;
    const rest = Math.floor((s % n) / units[i + 1][0]);
    return `${Math.floor(s / n)}${name}` + (rest > 0 ? ` ${rest}${units[i + 1][1]}` : '');
  }
  return `${s}s`;
}

// relative says how far a time (ms from now) is, as allot explain does:
// "in 2h 10m", "5m 3s ago", "now".
export function relative(ms) {
  const s = Math.round(ms / 1000);
  if (s === 0) return 'now';
  return s < 0 ? `${humanDur(-s)} ago` : `in ${humanDur(s)}`;
}

const pad = (n) => String(n).padStart(2, '0');

// stamp writes a time as the command line does (allot job show):
// "2026-11-20 19:06:02", in the viewer's time zone whatever the browser's
// language, so that a date never reads 11/12 to one reader and 12/11 to
// another. part 'minute' drops the seconds, as allot explain writes an
// estimate; 'clock' keeps the time of day alone, for a log line.
export function stamp(d, part) {
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  if (part === 'minute') return `${date} ${hm}`;
  const hms = `${hm}:${pad(d.getSeconds())}`;
  return part === 'clock' ? hms : `${date} ${hms}`;
}

// zone names the viewer's offset from UTC at d ("UTC+01:00", "UTC"):
// digits, not an abbreviation, which the browser's language would pick.
export function zone(d) {
  const off = -d.getTimezoneOffset();
  if (!off) return 'UTC';
  const a = Math.abs(off);
  return `UTC${off < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

// zoneNote says once per page which zone the times are in, with the
// zone's name where the browser knows it.
export function zoneNote() {
  let name = '';
  try {
    name = Intl.DateTimeFormat().resolvedOptions().timeZone || '';
  } catch {
    // An old browser without time zone names: the offset says enough.
  }
  const off = zone(new Date());
  return `Times in ${name && name !== 'UTC' ? `${name}, ${off}` : off}`;
}

// duration writes a configured span (a time limit, a grace period, a
// checkpoint interval) exactly, as the command line does (allot job show,
// allot pools) and as a job or configuration file writes it: "1h30m",
// "45s", "1h0m5s", "0s". A measured span (a wait, a window) is humanDur's.
export function duration(s) {
  s = Math.max(0, Math.floor(s || 0));
  const hh = Math.floor(s / 3600), mm = Math.floor((s % 3600) / 60), ss = s % 60;
  // Go's Duration.String less a trailing "0s", then a trailing "0m".
  if (hh) return `${hh}h` + (mm || ss ? `${mm}m` : '') + (ss ? `${ss}s` : '');
  if (mm) return `${mm}m` + (ss ? `${ss}s` : '');
  return `${ss}s`;
}

function timeText(el) {
  const d = new Date(el.dateTime);
  // A master's as_of, when given, beats the browser's clock: the message
  // beside the time counts from it, and the two clocks may disagree.
  const from = el.dataset.from ? new Date(el.dataset.from).getTime() : NaN;
  const rel = relative(d - (isNaN(from) ? Date.now() : from));
  if (el.dataset.rel === 'at') return stamp(d, 'minute');
  return el.dataset.rel === 'both' ? `${rel} (${stamp(d, 'minute')})` : rel;
}

// when is a <time> that shows how far the time is and keeps that current
// (see tickTimes); the exact time, with its zone, is in its title. mode
// 'both' also shows the date and time to the minute, and 'at' only
// those (beside a message that counts down already). from, when given,
// is the master's time to count from (a pending's as_of) instead of the
// browser's clock.
export function when(iso, mode, from) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (isNaN(d)) return String(iso);
  const el = h('time', {datetime: iso, title: `${stamp(d)} ${zone(d)}`, 'data-rel': mode || 'rel', 'data-from': from || null});
  el.textContent = timeText(el);
  return el;
}

// estimate shows a pending job's estimated start: a reservation's time,
// or a forecast, as a range when the master gives one; by the end of
// the checkpoint grace of the tasks preempted for it (basis checkpoint).
export function estimate(p) {
  if (!p || !p.estimated_start) return '—';
  const out = [];
  if (p.estimate_basis === 'checkpoint') out.push('by ');
  if (p.estimated_start_earliest) out.push(when(p.estimated_start_earliest, 'both', p.as_of), ' to ');
  out.push(when(p.estimated_start, 'both', p.as_of));
  if (p.estimate_basis === 'forecast') out.push(h('span', {class: 'muted small'}, ' (forecast)'));
  if (p.estimate_basis === 'checkpoint') out.push(h('span', {class: 'muted small'}, ' (checkpoint grace ends)'));
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
// agents confirm the end), resizing while a task of it is being resized
// in place (the API's resizing: running, the task checkpointing), moving
// while one is being moved (the API's moving), preempting while one is
// being preempted (the API's preempting), else its state.
export function shownState(j) {
  if (j.ending) return 'killing';
  // Held (allot job hold): queued, and no pass considers it until released.
  if (j.held && j.state === 'queued') return 'held';
  if (j.state !== 'running') return j.state;
  if (j.resizing) return 'resizing';
  if (j.moving) return 'moving';
  return j.preempting ? 'preempting' : j.state;
}

// taskState is the state to show of a task: resizing while it
// checkpoints to be resized (the API's resize), moving while it
// checkpoints to be moved (the API's move), else its state.
export function taskState(t) {
  if (t.state !== 'preempting') return t.state;
  if (t.resize) return 'resizing';
  return t.move ? 'moving' : t.state;
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
