// The log panel of a job: one task's output, read page by page from
// GET /jobs/{id}/logs and, with follow on, long-polled with the cursor
// until the job ends.

import {Unreachable, get} from './api.js';
import {fill, h} from './dom.js';

const pollWait = 20; // seconds the master may hold a follow request
const maxLines = 5000; // lines kept on screen; older ones scroll away
const retryMs = 2000;

export function logPanel(jobId) {
  const task = h('select', {id: 'log-task'});
  const follow = h('input', {type: 'checkbox', id: 'log-follow'});
  const load = h('button', {type: 'button', id: 'log-load'}, 'Show');
  const out = h('pre', {class: 'log', id: 'log', tabindex: 0, 'aria-label': 'Task output', 'aria-live': 'off'});
  const status = h('p', {class: 'muted small', id: 'log-status', role: 'status'}, 'Choose a task and press Show.');
  const el = h('section', {class: 'logs', 'aria-labelledby': 'logs-h'},
    h('h2', {id: 'logs-h'}, 'Logs'),
    h('div', {class: 'inline'},
      h('label', {for: 'log-task'}, 'Task'), task, load,
      h('label', {class: 'check'}, follow, ' Follow')),
    out, status);

  let ctrl = null; // the running reader
  let next = ''; // cursor after the last line shown
  let shownTask = null;
  let lastAttempt = null;
  let lines = 0;

  const stop = () => {
    if (ctrl) ctrl.abort();
    ctrl = null;
  };

  const start = (fresh) => {
    stop();
    if (fresh || shownTask !== task.value) {
      fill(out);
      next = '';
      lines = 0;
      lastAttempt = null;
      shownTask = task.value;
    }
    ctrl = new AbortController();
    read(ctrl.signal);
  };

  const append = (batch) => {
    const atBottom = out.scrollHeight - out.scrollTop - out.clientHeight < 24;
    const frag = document.createDocumentFragment();
    for (const l of batch) {
      if (l.attempt !== lastAttempt) {
        frag.append(h('span', {class: 'attempt-mark'}, `── attempt ${l.attempt} ──\n`));
        lastAttempt = l.attempt;
      }
      const ts = new Date(l.time);
      frag.append(h('span', {class: 'line', 'data-stream': l.stream},
        h('span', {class: 'ts'}, isNaN(ts) ? '' : ts.toLocaleTimeString([], {hour12: false}) + ' '),
        l.stream === 'stderr' ? h('span', {class: 'err'}, 'err ') : null,
        l.text + '\n'));
      lines++;
    }
    out.append(frag);
    while (lines > maxLines && out.firstChild) {
      if (out.firstChild.classList && out.firstChild.classList.contains('line')) lines--;
      out.firstChild.remove();
    }
    if (atBottom) out.scrollTop = out.scrollHeight;
  };

  const read = async (signal) => {
    let drained = false;
    status.textContent = 'Loading…';
    for (;;) {
      const wait = drained && follow.checked ? pollWait : 0;
      let r;
      try {
        r = await get(`/jobs/${jobId}/logs`, signal, {task: shownTask, after: next, wait: wait || ''});
      } catch (e) {
        if (e.name === 'AbortError') return;
        status.textContent = `Could not read the logs: ${e.message}.`;
        if (!(e instanceof Unreachable) || !follow.checked) return;
        status.textContent += ' Retrying.';
        if (!(await sleep(retryMs, signal))) return;
        continue;
      }
      append(r.lines || []);
      if (r.next) next = r.next;
      if (r.done) {
        status.textContent = lines ? 'End of the output: the job has ended.' : 'This task wrote nothing, and the job has ended.';
        return;
      }
      if (!(r.lines || []).length) drained = true;
      if (drained && !follow.checked) {
        status.textContent = lines ? 'Turn on Follow to see new lines as they come.' : 'No output yet. Turn on Follow to wait for it.';
        return;
      }
      if (drained) status.textContent = 'Following: new lines appear as the task writes them.';
    }
  };

  load.addEventListener('click', () => start(true));
  task.addEventListener('change', () => start(true));
  follow.addEventListener('change', () => {
    if (follow.checked) start(false);
    else {
      stop();
      status.textContent = 'Follow is off.';
    }
  });

  return {
    el,
    stop,
    // setTasks offers the job's tasks, keeping the current choice.
    setTasks(job) {
      const n = job.tasks || (job.task_list || []).length;
      if (task.options.length !== n) {
        const keep = task.value;
        fill(task, Array.from({length: n}, (_, i) => h('option', {value: String(i)}, `task ${i}`)));
        if (keep && Number(keep) < n) task.value = keep;
      }
      if (shownTask === null && n) start(true);
    },
  };
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
