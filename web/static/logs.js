// The log panel of a job: one task's output, read page by page from
// GET /jobs/{id}/logs and, with follow on, long-polled with the cursor
// until the job ends.

import {Unreachable, get} from './api.js';
import {fill, h, stamp, zone} from './dom.js';

const pollWait = 20; // seconds the master may hold a follow request
const maxLines = 5000; // lines kept on screen; older ones scroll away
const retryMs = 2000;

export function logPanel(jobId) {
  const ui = {
    task: h('select', {id: 'log-task'}),
    follow: h('input', {type: 'checkbox', id: 'log-follow'}),
    load: h('button', {type: 'button', id: 'log-load'}, 'Show'),
    out: h('pre', {class: 'log', id: 'log', tabindex: 0, 'aria-label': 'Task output'}),
    status: h('p', {class: 'muted small', id: 'log-status', role: 'status'}, 'Choose a task and press Show.'),
  };
  const el = h('section', {class: 'logs', 'aria-labelledby': 'logs-h'},
    h('h2', {id: 'logs-h'}, 'Logs'),
    h('div', {class: 'inline'},
      h('label', {for: 'log-task'}, 'Task'), ui.task, ui.load,
      h('label', {class: 'check'}, ui.follow, ' Follow')),
    ui.out, ui.status);
  // The reader's state: what is on screen and where to go on from.
  const st = {jobId, ctrl: null, next: '', task: null, attempt: null, lines: 0};
  const stop = () => {
    if (st.ctrl) st.ctrl.abort();
    st.ctrl = null;
  };
  const start = (fresh) => {
    stop();
    if (fresh || st.task !== ui.task.value) {
      fill(ui.out);
      Object.assign(st, {next: '', task: ui.task.value, attempt: null, lines: 0});
    }
    st.ctrl = new AbortController();
    read(ui, st, st.ctrl.signal);
  };
  ui.load.addEventListener('click', () => start(true));
  ui.task.addEventListener('change', () => start(true));
  ui.follow.addEventListener('change', () => {
    if (ui.follow.checked) start(false);
    else {
      stop();
      ui.status.textContent = 'Follow is off.';
    }
  });
  return {
    el,
    stop,
    // setTasks offers the job's tasks, keeping the current choice, and
    // shows the first task's output when nothing is shown yet.
    setTasks(job) {
      const n = job.tasks || (job.task_list || []).length;
      if (ui.task.options.length !== n) {
        const keep = ui.task.value;
        fill(ui.task, Array.from({length: n}, (_, i) => h('option', {value: String(i)}, `task ${i}`)));
        if (keep && Number(keep) < n) ui.task.value = keep;
      }
      if (st.task === null && n) start(true);
    },
  };
}

// read shows pages of lines until none is left; with Follow on it then
// long-polls for more until the job ends or the reader is stopped.
async function read(ui, st, signal) {
  let drained = false;
  ui.status.textContent = 'Loading…';
  for (;;) {
    const wait = drained && ui.follow.checked ? pollWait : '';
    let r;
    try {
      r = await get(`/jobs/${st.jobId}/logs`, signal, {task: st.task, after: st.next, wait});
    } catch (e) {
      if (e.name === 'AbortError') return;
      ui.status.textContent = `Could not read the logs: ${e.message}.`;
      if (!(e instanceof Unreachable) || !ui.follow.checked) return;
      ui.status.textContent += ' Retrying.';
      if (!(await sleep(retryMs, signal))) return;
      continue;
    }
    const lines = r.lines || [];
    append(ui.out, st, lines);
    if (r.next) st.next = r.next;
    if (r.done) {
      ui.status.textContent = st.lines ? 'End of the output: the job has ended.' : 'This task wrote nothing, and the job has ended.';
      return;
    }
    if (!lines.length) drained = true;
    if (drained && !ui.follow.checked) {
      ui.status.textContent = st.lines ? 'Turn on Follow to see new lines as they come.' : 'No output yet. Turn on Follow to wait for it.';
      return;
    }
    if (drained) ui.status.textContent = 'Following: new lines appear as the task writes them.';
  }
}

// append adds lines to the output, marks where each attempt begins, drops
// the oldest lines past maxLines, and keeps a reader at the bottom there.
function append(out, st, batch) {
  if (!batch.length) return;
  const atBottom = out.scrollHeight - out.scrollTop - out.clientHeight < 24;
  const frag = document.createDocumentFragment();
  for (const l of batch) {
    if (l.attempt !== st.attempt) {
      frag.append(h('span', {class: 'attempt-mark'}, `── attempt ${l.attempt} ──\n`));
      st.attempt = l.attempt;
    }
    const ts = new Date(l.time);
    frag.append(h('span', {class: 'line', 'data-stream': l.stream},
      isNaN(ts) ? null : h('span', {class: 'ts', title: `${stamp(ts)} ${zone(ts)}`}, stamp(ts, 'clock') + ' '),
      // A gang's part: its rank and node, as allot job logs labels it.
      l.rank != null ? h('span', {class: 'rank'}, `[rank ${l.rank} ${l.node}] `) : null,
      l.stream === 'stderr' ? h('span', {class: 'err'}, 'err ') : null,
      l.text + '\n'));
    st.lines++;
  }
  out.append(frag);
  while (st.lines > maxLines && out.firstChild) {
    if (out.firstChild.classList && out.firstChild.classList.contains('line')) st.lines--;
    out.firstChild.remove();
  }
  if (atBottom) out.scrollTop = out.scrollHeight;
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(true), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve(false);
    }, {once: true});
  });
}
