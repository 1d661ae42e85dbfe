// Job detail: the job's fields, why it waits (reason, position, blocker,
// estimated start), its tasks with every attempt, its logs, and the kill,
// requeue, hold and priority actions.

import {call, get, mayChange, mayKill, whoami} from './api.js';
import {blockerRef, duration, estimate, fill, h, jobLink, memo, shownState, stateBadge, taskState, when, yesNo} from './dom.js';
import {queueActions} from './jobactions.js';
import {isMultifactor, priorityRows, qosNiceForm} from './jobpriority.js';
import {logPanel} from './logs.js';
import {metricPanel} from './metrics.js';
import {searcherPanel} from './experiment.js';

const terminal = new Set(['completed', 'failed', 'killed']);
const maxTasks = 200;

export function mount(root, ctx) {
  const id = Number(ctx.params[0]);
  const title = h('h1', {}, `Job ${id}`);
  const why = h('section', {class: 'why-box', id: 'why', 'aria-labelledby': 'why-h', hidden: true});
  const fields = h('dl', {class: 'fields', id: 'fields'});
  const tasks = h('div', {id: 'tasks'});
  const logs = logPanel(id);
  const metrics = metricPanel();
  const search = searcherPanel();
  const sameMetrics = memo();
  const sameWhy = memo();
  const same = memo();
  const render = (j) => {
    act.job = j;
    if (same([j, act.mf, act.x])) return;
    fill(title, `Job ${j.id} · ${j.name || '(unnamed)'} `, stateBadge(shownState(j)));
    renderWhy(why, j);
    renderFields(fields, j, act.mf, act.x);
    renderTasks(tasks, j);
    logs.setTasks(j);
    act.update(j);
  };
  const act = actions(id, ctx, render);
  root.append(
    h('p', {class: 'crumbs'}, h('a', {href: '#/jobs'}, 'Jobs'), ' / ', `job ${id}`),
    title, why, act.el,
    h('section', {'aria-labelledby': 'fields-h'}, h('h2', {id: 'fields-h'}, 'Details'), fields),
    metrics.el,
    search.el,
    h('section', {'aria-labelledby': 'tasks-h'}, h('h2', {id: 'tasks-h'}, 'Tasks and attempts'), tasks),
    logs.el,
  );
  return {
    async refresh(signal) {
      // The pools are extra: without them the job's own fields tell a
      // multifactor pool (isMultifactor).
      const [j, w, pools] = await Promise.all([get('/jobs/' + id, signal), whoami(), get('/pools', signal).catch((e) => {
        if (e.name === 'AbortError') throw e;
        return null;
      })]);
      act.who = w;
      act.mf = isMultifactor(j, pools);
      if (!j.position) act.x = null;
      render(j);
      if (j.position) {
        // The explanation is extra: without it the page keeps the reason.
        const x = await get(`/jobs/${id}/explain`, signal).catch((e) => {
          if (e.name === 'AbortError') throw e;
          return null;
        });
        if (x && !sameWhy([j, x])) {
          renderWhy(why, j, x);
          act.x = x;
          if (act.mf) renderFields(fields, j, true, x); // the factors
        }
      }
      if (j.kind === 'experiment') {
        // The chart is extra: a failure to load it leaves the page as is.
        const m = await get(`/jobs/${id}/metrics`, signal).catch((e) => {
          if (e.name === 'AbortError') throw e;
          return null;
        });
        if (m && !sameMetrics(m)) {
          metrics.set(m);
          search.set(m);
        }
      }
    },
    error(e) {
      act.hide();
      if (e.status === 404) {
        fill(title, `Job ${id}`);
        act.say(`There is no job ${id}: ${e.message}`, true);
        return;
      }
      act.failure('Loading the job', e);
    },
    unmount() {
      logs.stop();
    },
  };
}

// actions builds the kill button, the queue actions (jobactions.js) and
// the priority form with the line that reports their outcome; render
// shows the job a successful action returns.
function actions(id, ctx, render) {
  const note = h('p', {class: 'note', id: 'action-msg', role: 'status'});
  const kill = h('button', {type: 'button', class: 'danger', id: 'kill'}, 'Kill job');
  const prio = h('input', {type: 'number', id: 'priority', min: 1, max: 99, step: 1, required: true, inputMode: 'numeric'});
  const prioBtn = h('button', {type: 'submit', id: 'set-priority'}, 'Set priority');
  const form = h('form', {class: 'inline', id: 'priority-form'},
    h('label', {for: 'priority'}, 'Priority'), prio, prioBtn, h('span', {class: 'muted small'}, '1 is the most important, 99 the least'));
  // Why the actions are not offered, to a user who may not take them.
  const denied = h('p', {class: 'muted small', id: 'no-actions', hidden: true});
  kill.hidden = form.hidden = true; // until the job and the user are known
  let edited = false; // the user typed a priority: refreshes leave it alone
  const act = {
    job: null,
    mf: false, // the job's pool is multifactor: QOS and nice, not the 1-99 priority, order its queue
    x: null, // the job's last explanation, for the multifactor factors
    who: null, // the signed-in user (GET /whoami); null: unknown
    el: h('section', {class: 'actions', 'aria-label': 'Actions'}, kill, form, denied, note),
    qn: null, // the QOS and nice form (jobpriority.js), in the priority form's place in a multifactor pool
    say(msg, bad) {
      note.textContent = msg;
      note.className = bad ? 'note error' : 'note ok';
      note.setAttribute('role', bad ? 'alert' : 'status');
    },
    failure(what, e) {
      act.say(`${what} failed: ${e.message}${e.field ? ` (field ${e.field})` : ''}`, true);
    },
    // update offers the actions on a live job the user may change, as
    // the master's rule says (mayChange): a job that ended, or one the
    // user may only read, shows none, with a line that says why.
    update(j) {
      const ended = terminal.has(j.state);
      const may = mayChange(act.who, j);
      const mayEnd = mayKill(act.who, j);
      kill.disabled = prio.disabled = prioBtn.disabled = ended;
      kill.hidden = ended || !mayEnd;
      form.hidden = ended || !may || act.mf;
      act.qn.show(j, !ended && may && act.mf);
      denied.hidden = ended || may;
      const who = `only its owner (${j.user || 'no user'}) while a member of project ${j.project}, the project's lead or an admin may.`;
      denied.textContent = may ? '' : mayEnd ? `${act.who.user} owns this job and may kill or requeue it, but not change its priority: ${who}`
        : `${act.who.user} may not kill or change this job: ${who}`;
      if (!edited && document.activeElement !== prio) prio.value = j.priority;
      queue.show(j, act.who);
    },
    // hide takes the actions away from a job that cannot be shown.
    hide() {
      kill.hidden = form.hidden = denied.hidden = act.qn.el.hidden = true;
      queue.hide();
    },
  };
  const queue = queueActions(id, ctx, act, render);
  kill.after(queue.el);
  act.qn = qosNiceForm(id, ctx, act, render);
  form.after(act.qn.el);
  kill.addEventListener('click', async () => {
    const name = act.job ? ` (${act.job.name})` : '';
    if (!(await ctx.confirm(`Kill job ${id}${name}? Its running tasks are stopped and none of its tasks will run again.`, 'Kill job'))) return;
    try {
      render(await call('POST', `/jobs/${id}/kill`));
      act.say(`Job ${id} is being killed.`);
    } catch (e) {
      act.failure('Kill', e);
    }
    ctx.refreshNow();
  });
  prio.addEventListener('input', () => (edited = true));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const v = Number(prio.value);
    if (!Number.isInteger(v)) {
      act.say('Priority must be a whole number from 1 to 99.', true);
      return;
    }
    const from = act.job ? ` from ${act.job.priority}` : '';
    if (!(await ctx.confirm(`Change the priority of job ${id}${from} to ${v}?`, 'Change priority'))) return;
    try {
      const j = await call('PATCH', `/jobs/${id}`, {body: {priority: v}});
      edited = false;
      render(j);
      prio.value = j.priority;
      act.say(`Priority of job ${id} is now ${j.priority}.`);
    } catch (e) {
      act.failure('Changing the priority', e);
    }
    ctx.refreshNow();
  });
  return act;
}

// whyHeading asks the question the section answers: of a running job
// with tasks still waiting (an experiment's trials), why those wait, not
// why the job does (trial 2026-11-29j J2).
function whyHeading(j) {
  if (j.state === 'queued') return 'Why is it waiting?';
  return j.kind === 'experiment' ? 'Why are some of its trials waiting?' : 'Why are some of its tasks waiting?';
}

function renderWhy(el, j, x) {
  const p = j.pending;
  if (j.state !== 'queued' && !p) {
    el.hidden = true;
    return;
  }
  el.hidden = false;
  if (!p) {
    fill(el, h('h2', {id: 'why-h'}, whyHeading(j)), h('p', {}, 'The scheduler has not looked at this job yet; it will at its next pass.'));
    return;
  }
  const cf = x && x.would_start;
  const mustEnd = cf && cf.must_end ? cf.must_end : [];
  // The jobs the pool's order serves first (start_first), which take
  // some of what those that must end free, or, with none that must end,
  // are what it waits behind whatever ends.
  const first = cf && cf.start_first ? cf.start_first : [];
  const refLinks = (refs) => joinNodes(refs.map((r) => (r.private ? '#' + r.id : jobLink(r.id))));
  let blocked = '—';
  if (p.blocked_by) blocked = blockerRef(p);
  else if (mustEnd.length && first.length) blocked = [...refLinks(mustEnd), '; served first: ', ...refLinks(first)];
  else if (mustEnd.length) blocked = refLinks(mustEnd);
  else if (first.length) blocked = ['jobs served first: ', ...refLinks(first)];
  // The sentence why is below (What would let it start): not a third time.
  else if (cf && cf.never) blocked = 'no job: it cannot run on today\'s nodes';
  else if (cf && cf.limit) blocked = 'its own running tasks: ' + cf.limit;
  else if (cf && cf.license) blocked = licenseHolders(cf.license);
  // No node named: the slots are not free (the pool's nodes are drained,
  // or its zero-slot limit holds), and the message below says why.
  else if (cf && !(cf.nodes || []).length) blocked = 'no running job: see what would let it start, below';
  else if (x) blocked = 'no running job: the slots are free';
  fill(el,
    h('h2', {id: 'why-h'}, whyHeading(j)),
    h('p', {class: 'why-msg'}, p.message),
    x ? h('p', {class: 'why-summary', id: 'why-summary'}, x.summary) : null,
    h('dl', {class: 'fields'},
      h('dt', {}, 'Reason'), h('dd', {}, h('code', {class: 'reason'}, p.reason)),
      h('dt', {}, 'Position'), h('dd', {}, j.position ? `${j.position} in the queue of pool ${j.pool}` : '—'),
      h('dt', {}, 'Blocked by'), h('dd', {id: 'blocked-by'}, blocked),
      h('dt', {}, 'Estimated start'), h('dd', {id: 'estimated-start'}, startText(p, cf, x && x.as_of))),
    cf ? wouldStart(cf, x.as_of, x.pool) : null);
}

// startText is the estimated start of a waiting job in the words of
// allot explain's Start line: its estimate; else the soonest it could
// start where it would (not_before), when the jobs that must end there
// reach their time limits; else why there is none, by the cause the
// counterfactual names. asOf is the explanation's master time.
function startText(p, cf, asOf) {
  if (p.estimated_start) return estimate(p);
  if (cf && cf.never) return 'never on today\'s nodes';
  if (cf && cf.not_before) {
    return h('span', {class: 'not-before'}, 'not before ', when(cf.not_before, 'both', asOf),
      ', when the jobs that must end reach their time limits (the forecast gives no estimate)');
  }
  // A job that must end (no preempt) without a time limit is why no
  // not_before could be given.
  const endless = ((cf && cf.must_end) || []).find((r) => !r.preempt && !r.ends_at);
  if (endless) return ['unknown (', endless.private ? '#' + endless.id : jobLink(endless.id), ', which must end for it, has no time limit)'];
  // No node named and no job to wait for (drained nodes, the zero-slot
  // limit): the counterfactual's message says what it waits for.
  if (cf && !(cf.must_end || []).length && !(cf.nodes || []).length && !cf.limit) {
    return 'unknown: see what would let it start, below';
  }
  // Its own cap (max_concurrent_trials) holds it, not another job's
  // missing time limit (trial 2026-11-29j J2).
  if (cf && cf.limit) return `unknown: when one of its own tasks ends (${cf.limit})`;
  return 'unknown (a task without a time limit stands in the way)';
}

// What the job waits for of each job in must_end, by its preempt, as
// allot explain's WAIT FOR column says it.
const waitFor = {'': 'its end', possible: 'its end or preemption', under_way: 'its preemption'};

// waitForOf is what the job waits for of r: a job being resized (a
// fair-share shrink, resize) gives back slots, it is not preempted.
function waitForOf(r) {
  if (r.preempt === 'under_way' && r.resize) return `its shrink to ${r.resize.to} slot${r.resize.to === 1 ? '' : 's'}`;
  return waitFor[r.preempt || ''] || r.preempt;
}

// wouldStart renders the counterfactual: the running jobs that would have
// to end or could be preempted, what each holds on the nodes, and when
// its time limit runs out (counted from the master's asOf), or, for one
// being preempted, its checkpoint's deadline (checkpoint_by), its time
// limit no longer mattering. As in allot explain, a column says what it
// waits for of each only where they differ.
// Where its project's quota or limit binds no node is named: what each
// holds is then in the job's pool.
function wouldStart(cf, asOf, pool) {
  const refs = cf.must_end || [];
  const mixed = new Set(refs.map((r) => waitForOf(r))).size > 1;
  const rows = refs.map((r) => h('tr', {'data-must-end': r.id, 'data-preempt': r.preempt || 'no'},
    // A job the viewer may not read comes without name or user (private).
    h('td', {}, r.private ? '#' + r.id : jobLink(r.id)), h('td', {}, r.private ? "another project's job" : r.name || '—'),
    h('td', {}, r.user || '—'), h('td', {}, r.project || '—'),
    h('td', {class: 'num'}, r.slots),
    h('td', {}, r.checkpoint_by ? when(r.checkpoint_by, 'both', asOf)
      : r.ends_at ? when(r.ends_at, 'both', asOf) : 'no time limit'),
    mixed ? h('td', {class: 'wait-for'}, waitForOf(r)) : null));
  const on = (cf.nodes || []).join(', ');
  const held = on ? `What it holds on ${on}` : pool ? `What it holds in pool ${pool}` : 'What it holds';
  const by = refs.filter((r) => r.checkpoint_by).length;
  const ends = !by ? ['Limit ends', 'When its time limit runs out']
    : by === refs.length ? ['Checkpoint by', 'When the master kills what has not stopped: its GPUs are free by then']
      : ['Frees by', 'Its checkpoint deadline where it is being preempted, else its time limit\'s end'];
  const cols = [['Job'], ['Name'], ['User'], ['Project'], ['Slots', held],
    ends, mixed ? ['Wait for', 'Its end, or its preemption instead'] : null];
  return h('div', {class: 'would-start', id: 'would-start'},
    h('h3', {}, 'What would let it start now'),
    h('p', {}, cf.message),
    rows.length ? h('table', {}, h('thead', {}, h('tr', {}, cols.filter(Boolean).map(([c, title]) => h('th', {scope: 'col', title}, c)))),
      h('tbody', {}, rows)) : null,
    startFirst(cf));
}

// startFirst lists the jobs the pool's order serves before this one
// (start_first), as allot explain does: those that would take some of
// what the jobs above free, or, with none above, those it waits behind
// whatever ends. A job the viewer may not read shows its number only.
function startFirst(cf) {
  const refs = cf.start_first || [];
  if (!refs.length) return null;
  const title = (cf.must_end || []).length ? 'The pool\'s order serves these first, taking some of what they free'
    : 'The pool\'s order serves these first, whatever ends';
  return h('div', {class: 'start-first', id: 'start-first'},
    h('p', {}, title + ':'),
    h('table', {}, h('thead', {}, h('tr', {}, ['Job', 'Name', 'User', 'Project', 'Slots'].map((c) => h('th', {scope: 'col'}, c)))),
      h('tbody', {}, refs.map((r) => h('tr', {'data-start-first': r.id},
        h('td', {}, r.private ? '#' + r.id : jobLink(r.id)), h('td', {}, r.private ? "another project's job" : r.name || '—'),
        h('td', {}, r.user || '—'), h('td', {}, r.project || '—'), h('td', {class: 'num', title: 'Slots per task'}, r.slots))))));
}

// licenseHolders names the license a job waits for and the running jobs
// whose ends free enough of it (the counterfactual's license), each
// linked unless the viewer may not read it.
function licenseHolders(w) {
  const refs = (w.holders || []).map((r) => (r.private ? '#' + r.id : jobLink(r.id)));
  return ['license ' + w.name + ', held by ', ...joinNodes(refs)];
}

function joinNodes(nodes) {
  const out = [];
  nodes.forEach((n, i) => {
    if (i) out.push(', ');
    out.push(n);
  });
  return out;
}

// endedRows are a job's rows of its end: Kill requested, when its kill
// began, if it was killed while its tasks ran or its tasks are being
// killed while it runs (a time limit, a gang's failed part): one name for
// the one field, as allot job show says it; and Ended: its last task's
// end, or, while it is ending, an end yet to come, so that no one reads
// its GPUs as free.
function endedRows(j) {
  const kill = j.kill_requested_at || (j.ending && j.state === 'killed' ? j.ended_at : null);
  const rows = kill ? [['Kill requested', when(kill)]] : [];
  if (!j.ending) return [...rows, ['Ended', j.ended_at ? when(j.ended_at) : '—']];
  const n = j.running === 1 ? '1 task' : `${j.running} tasks`;
  return [...rows, ['Ended', `not yet: ${n} still stopping`]];
}

// renderFields shows the job's details; in a multifactor pool (mf) the
// multifactor priority with its factors (from x, the explanation, when
// read), QOS and nice in place of the 1-99 priority (jobpriority.js).
function renderFields(el, j, mf, x) {
  const env = Object.keys(j.environment || {}).sort();
  const prio = mf ? priorityRows(j, x) : [['Priority', j.priority_class ? `${j.priority} (${j.priority_class})` : j.priority]];
  const hints = mf ? requested(j).filter(([k]) => k !== 'QOS' && k !== 'Nice') : requested(j);
  const rows = [
    ['Kind', j.kind], ['State', j.reason ? [stateBadge(shownState(j)), ' ', j.reason] : stateBadge(shownState(j))],
    ['Project', j.project], ['User', j.user || '—'], ['Pool', j.pool],
    ['Tasks', `${j.running} ${j.ending ? 'still stopping' : 'running'} of ${j.tasks}`],
    ['Slots per task', j.min_slots ? `${j.slots} (elastic down to ${j.min_slots})` : j.slots],
    ...hints,
    ...prio,
    ['Weight', j.weight], ['Preemptible', yesNo(j.preemptible)],
    ['Time limit', j.time_limit_s ? duration(j.time_limit_s) : 'none'],
    ['Entrypoint', h('code', {}, j.entrypoint || '—')],
    ['Environment', envField(j, env)],
    ['Submitted', when(j.submitted_at)],
    ...endedRows(j),
  ];
  fill(el, rows.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

// envField shows the job's environment; for a job of another user the
// master sends the names only (environment_hidden), which it says.
function envField(j, env) {
  if (!env.length) return '—';
  if (j.environment_hidden) {
    return [h('ul', {class: 'chips'}, env.map((k) => h('li', {}, k))),
      ' (hidden: only the job\'s owner and admins see values)'];
  }
  return h('ul', {class: 'chips'}, env.map((k) => h('li', {}, `${k}=${j.environment[k]}`)));
}

// requested lists the job file's other scheduling hints that the job
// sets (the API gives them only when set), and what its tasks hold now,
// so that a user reads back what was submitted, as allot job show does.
function requested(j) {
  const lic = Object.keys(j.licenses || {}).sort();
  return [
    j.holding ? ['Holding', `${j.holding} GPU${j.holding === 1 ? '' : 's'} now`] : null,
    j.max_slots ? ['Max slots', `${j.max_slots} in all`] : null,
    j.gpu ? ['GPU type', j.gpu] : null,
    j.topology ? ['Topology', j.topology] : null,
    lic.length ? ['Licenses', lic.map((k) => `${k}: ${j.licenses[k]}`).join(', ') + ' per task'] : null,
    j.qos ? ['QOS', j.qos] : null,
    j.nice ? ['Nice', j.nice] : null,
    j.checkpoint_every ? ['Checkpoint every', duration(j.checkpoint_every)] : null,
  ].filter(Boolean);
}

function renderTasks(el, j) {
  const list = j.task_list || [];
  const shown = list.slice(0, maxTasks);
  const t = h('table', {class: 'attempts', id: 'attempts'},
    h('caption', {}, `Tasks of job ${j.id}, with every attempt`),
    h('thead', {}, h('tr', {},
      ['Task', 'Task state', 'Attempt', 'Placement', 'Started', 'Ended', 'Outcome', 'Exit code', 'Reason']
        .map((c) => h('th', {scope: 'col'}, c)))),
    shown.map(taskBody));
  fill(el,
    list.length ? h('div', {class: 'scroll'}, t) : h('p', {class: 'muted'}, 'No tasks.'),
    list.length > maxTasks ? h('p', {class: 'muted'}, `Showing the first ${maxTasks} of ${list.length} tasks.`) : null);
}

function taskBody(task) {
  const attempts = task.attempts || [];
  const n = Math.max(attempts.length, 1);
  const head = [
    h('th', {scope: 'rowgroup', rowspan: n}, `task ${task.index}`, hyper(task.hyperparameters)),
    h('td', {rowspan: n}, stateBadge(taskState(task)), task.restarts ? h('div', {class: 'muted small'}, `${task.restarts} restart${task.restarts === 1 ? '' : 's'}`) : null),
  ];
  if (!attempts.length) {
    return h('tbody', {'data-task': task.index}, h('tr', {}, head, h('td', {colspan: 7, class: 'muted'}, task.reason || 'not started yet')));
  }
  return h('tbody', {'data-task': task.index}, attempts.map((a, i) => h('tr', {'data-attempt': a.number, class: a.end_state ? 'ended-' + a.end_state : 'open'},
    i === 0 ? head : null,
    h('td', {class: 'num'}, a.number),
    h('td', {}, placement(a.placement)),
    h('td', {}, when(a.started_at)),
    h('td', {}, a.ended_at ? when(a.ended_at) : '—', exitedEarlier(a)),
    h('td', {}, a.end_state ? stateBadge(attemptEnd(a)) : (a.running_at ? 'running' : 'starting')),
    h('td', {class: 'num'}, a.exit_code === undefined || a.exit_code === null ? '—' : a.exit_code),
    // An open attempt has no reason of its own: the task's says how it
    // stands (e.g. held on a lost node until lost_node_grace ends).
    h('td', {}, a.preempted_by ? preemptedBy(a.preempted_by, a.reason)
      : a.reason || (!a.end_state && i === attempts.length - 1 ? task.reason || '' : '')),
  )));
}

// exitedEarlier notes when an attempt's processes exited, if the master
// heard of it more than 5 s later (an outage, a restart): usage is charged to the
// exit, as allot job show's ENDED says.
function exitedEarlier(a) {
  if (!a.ended_at || !a.exited_at) return null;
  if (Date.parse(a.ended_at) - Date.parse(a.exited_at) <= 5000) return null;
  return h('div', {class: 'muted small exited'}, 'exited ', when(a.exited_at));
}

// attemptEnd is how an attempt ended, as allot job show's END says it:
// resized or moved for an attempt the scheduler resized or moved, which
// the API ends as preempted (they checkpoint and stop the same way), as
// its task restarted at once in its new placement; stopped for one that
// its searcher stopped (killed, its task completed).
function attemptEnd(a) {
  if (a.end_state === 'killed' && (a.reason || '').startsWith('stopped early by the searcher')) return 'stopped';
  if (a.end_state !== 'preempted') return a.end_state;
  // Its agent's fence stopped it while the master was unreachable: no
  // pass preempted it.
  if (a.fenced) return 'fenced';
  // Its node's agent stopped it as the agent shut down: no pass
  // preempted it either.
  if (a.agent_stopped) return 'agent-stopped';
  const rule = a.preempted_by ? a.preempted_by.reason : '';
  if (rule === 'resized' || (a.reason || '').endsWith('checkpointed to resize')) return 'resized';
  if (rule === 'moved' || (a.reason || '').endsWith('checkpointed to move')) return 'moved';
  return a.end_state;
}

// preemptedBy says who preempted an attempt and under which rule, as
// allot explain does, with the job that took its slots as a link (its
// number alone for one the viewer may not read, whose page would refuse)
// and its user, then how the attempt ended without the end reason's own
// "preempted: ".
function preemptedBy(p, ended) {
  const ref = 'job ' + p.job;
  const why = p.why && p.why.includes(ref) ? p.why : 'preempted for ' + ref;
  const at = why.indexOf(ref);
  const who = p.private
    ? h('span', {class: 'private-job'}, `#${p.job} (another project's job)`)
    : [jobLink(p.job), p.user ? ` (${p.user}${p.name ? ', ' + p.name : ''})` : ''];
  const how = (ended || '').replace(/^preempted: /, '');
  return h('span', {class: 'preempted-by', 'data-reason': p.reason || ''},
    why.slice(0, at), who, why.slice(at + ref.length), how ? '; ' + how : '');
}

function hyper(raw) {
  // A command job's task has none: the API sends {} for it.
  if (raw === undefined || raw === null || (typeof raw === 'object' && Object.keys(raw).length === 0)) return null;
  const text = JSON.stringify(raw);
  return h('div', {class: 'muted small hp', title: text}, text.length > 60 ? text.slice(0, 57) + '…' : text);
}

function placement(ps) {
  if (!ps || !ps.length) return '—';
  return ps.map((p) => h('div', {}, `${p.node}: GPU ${(p.gpus || []).join(', ') || 'none'}`));
}
