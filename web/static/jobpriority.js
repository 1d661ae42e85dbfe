// The job page's queue order in a multifactor pool: such a pool orders
// its queue by the multi-factor priority (age, fair share, job size,
// QOS, pool, less nice), never by the job's 1-99 priority, so the page
// shows that priority with its factors (allot explain's Priority line)
// and offers the QOS and nice update (allot job update --qos/--nice) in
// place of Set priority, which would change nothing there (trial
// 2026-11-29i I7).

import {call} from './api.js';
import {fill, h} from './dom.js';

// isMultifactor says whether job j waits or runs in a multifactor pool:
// by the pool's policy (GET /pools), else, without the pools, by the
// fields only such a pool gives (a pending priority, a start's).
export function isMultifactor(j, pools) {
  const p = (pools || []).find((x) => x.name === j.pool);
  if (p) return p.policy === 'multifactor';
  return !!(j.multifactor_priority || (j.pending && j.pending.priority));
}

// mfPriority is job j's multi-factor priority: the last pass's while it
// waits, the one it started with while it runs; undefined when unknown.
export function mfPriority(j, x) {
  if (x && x.factors) return x.factors.priority;
  if (j.pending && j.pending.priority) return j.pending.priority;
  return j.multifactor_priority || undefined;
}

// factorsText is allot explain's Priority line, in words.
export function factorsText(f) {
  const n = (v) => v.toFixed(3);
  return `age ${n(f.age)}, fair share ${n(f.fair_share)}, size ${n(f.job_size)}, QOS ${n(f.qos)}, pool ${n(f.pool)}, nice ${f.nice}`;
}

// priorityRows are the Details rows of a job in a multifactor pool, in
// place of the 1-99 priority's; x is its explanation, when read.
export function priorityRows(j, x) {
  const pr = mfPriority(j, x);
  const f = x && x.factors;
  const unknown = j.state === 'queued' ? 'not computed yet (the next scheduling pass gives it)' : '—';
  const prio = pr === undefined ? unknown : pr.toFixed(4);
  const cls = j.priority_class ? `${j.priority} (${j.priority_class})` : `${j.priority}`;
  return [
    ['Multifactor priority', h('span', {id: 'mf-priority'}, prio + (f ? ` (${factorsText(f)})` : ''),
      j.state === 'running' && pr !== undefined ? ', as it started' : '')],
    // Where its user ranks and how usage decays, as allot explain's
    // line under Priority (trial 2026-11-29j J7).
    x && x.fair_share_note && f ? ['Fair share', h('span', {id: 'mf-fair-share'}, `${f.fair_share.toFixed(3)} (${x.fair_share_note})`)] : null,
    ['QOS', j.qos || 'the default'], ['Nice', String(j.nice || 0)],
    ['Priority (1-99)', `${cls}: not read in pool ${j.pool}, whose queue is ordered by the multifactor priority`],
  ].filter(Boolean);
}

// qosNiceForm builds the QOS and nice update (PATCH /jobs/{id} with qos
// and nice, as allot job update --qos/--nice); act is the page's action
// line, render shows the job the request returns. show(j, on) shows it
// on a job the user may change in a multifactor pool (on).
export function qosNiceForm(id, ctx, act, render) {
  const qos = h('input', {type: 'text', id: 'qos', size: 10, autocomplete: 'off'});
  const nice = h('input', {type: 'number', id: 'nice', min: 0, max: 1000000000, step: 1, inputMode: 'numeric'});
  const btn = h('button', {type: 'submit', id: 'set-qos-nice'}, 'Update QOS and nice');
  const note = h('span', {class: 'muted small', id: 'mf-note'});
  const form = h('form', {class: 'inline', id: 'qos-nice-form', hidden: true},
    h('label', {for: 'qos'}, 'QOS'), qos, h('label', {for: 'nice'}, 'Nice'), nice, btn, note);
  let edited = false; // the user typed: refreshes leave the inputs alone
  qos.addEventListener('input', () => (edited = true));
  nice.addEventListener('input', () => (edited = true));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const j = act.job;
    const body = {};
    const q = qos.value.trim(); // empty: the QOS is left as it is
    if (q && q !== (j ? j.qos || '' : '')) body.qos = q;
    const n = Number(nice.value);
    if (!Number.isInteger(n) || n < 0) {
      act.say('Nice must be a whole number from 0 to 1000000000.', true);
      return;
    }
    if (!j || n !== (j.nice || 0)) body.nice = n;
    if (!Object.keys(body).length) {
      act.say('Nothing to change: the QOS and nice are the job\'s already.', true);
      return;
    }
    const what = Object.entries(body).map(([k, v]) => `${k === 'qos' ? 'QOS' : k} ${v}`).join(' and ');
    if (!(await ctx.confirm(`Set the ${what} of job ${id}?`, 'Update QOS and nice'))) return;
    try {
      const r = await call('PATCH', `/jobs/${id}`, {body});
      edited = false;
      render(r);
      act.say(`Job ${id} now has QOS ${r.qos || 'the default'} and nice ${r.nice || 0}; its place in the queue follows at the next pass.`);
    } catch (e) {
      act.failure('Updating the QOS and nice', e);
    }
    ctx.refreshNow();
  });
  return {
    el: form,
    show(j, on) {
      form.hidden = !on;
      if (!on) return;
      fill(note, `Pool ${j.pool} orders its queue by multifactor priority (age, fair share, job size, QOS, pool, less nice), ` +
        'not by the 1-99 priority: the QOS and nice set this job\'s place; lowering nice takes a lead or an admin.');
      if (!edited && document.activeElement !== qos && document.activeElement !== nice) {
        qos.value = j.qos || '';
        nice.value = String(j.nice || 0);
      }
    },
  };
}
