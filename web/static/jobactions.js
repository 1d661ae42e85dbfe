// The job page's queue actions, beside Kill job: Requeue and Requeue and
// hold on a running job (allot job requeue [--hold]), Hold on a queued
// one and Release on a held one (allot job hold, release). Each asks
// first, as Kill job does, and reports the result or the master's
// refusal (a 409's message) on the page's action line.

import {call, mayChange, mayKill} from './api.js';
import {h} from './dom.js';

// queueActions builds the buttons; act is the page's action line (say,
// failure, job), render shows the job a request returns. show(j, who)
// offers those that fit job j and the signed-in user, by the master's
// rules: a requeue or a hold to whoever may kill the job (its owner
// always), a release to whoever may change it.
export function queueActions(id, ctx, act, render) {
  const buttons = {
    requeue: h('button', {type: 'button', id: 'requeue'}, 'Requeue'),
    requeueHold: h('button', {type: 'button', id: 'requeue-hold'}, 'Requeue and hold'),
    hold: h('button', {type: 'button', id: 'hold'}, 'Hold'),
    release: h('button', {type: 'button', id: 'release'}, 'Release'),
  };
  for (const b of Object.values(buttons)) b.hidden = true; // until the job and the user are known
  const el = h('span', {class: 'queue-actions', id: 'queue-actions', hidden: true}, ...Object.values(buttons));
  const name = () => (act.job ? ` (${act.job.name})` : '');
  const ask = async (label, question, path, body, done) => {
    if (!(await ctx.confirm(question, label))) return;
    try {
      const r = await call('POST', `/jobs/${id}/${path}`, body ? {body} : {});
      render(r);
      act.say(done(r));
    } catch (e) {
      act.failure(label, e);
    }
    ctx.refreshNow();
  };
  const stops = 'Its running tasks checkpoint and stop, as a preemption stops them (with the pool\'s grace)';
  buttons.requeue.addEventListener('click', () => ask('Requeue',
    `Requeue job ${id}${name()}? ${stops}; then it waits again and resumes from its checkpoint if it wrote one (else from the start).`,
    'requeue', null, (r) => requeued(id, r)));
  buttons.requeueHold.addEventListener('click', () => ask('Requeue and hold',
    `Requeue and hold job ${id}${name()}? ${stops}; then it stays held, and no task of it starts until it is released.`,
    'requeue', {hold: true}, (r) => requeued(id, r)));
  buttons.hold.addEventListener('click', () => ask('Hold',
    `Hold job ${id}${name()}? It keeps its place by submission time, but no task of it starts until it is released.`,
    'hold', null, (r) => (r.changed ? `Job ${id} is held.` : `Job ${id} was held already.`)));
  buttons.release.addEventListener('click', () => ask('Release',
    `Release job ${id}${name()}? It waits by its submission time again.`,
    'release', null, (r) => (r.changed ? `Job ${id} is released: it waits again.` : `Job ${id} was not held.`)));
  return {
    el,
    show(j, who) {
      const live = !j.ending && (j.state === 'running' || j.state === 'queued');
      const mayStop = live && !!who && mayKill(who, j);
      buttons.requeue.hidden = buttons.requeueHold.hidden = !(mayStop && j.state === 'running');
      buttons.hold.hidden = !(mayStop && j.state === 'queued' && !j.held);
      buttons.release.hidden = !(live && !!who && mayChange(who, j) && j.state === 'queued' && j.held);
      el.hidden = Object.values(buttons).every((b) => b.hidden);
    },
    hide() {
      el.hidden = true;
    },
  };
}

// requeued is the action line after a requeue: how many tasks stop, and
// whether the job is held now.
function requeued(id, r) {
  const n = r.requeued || 0;
  const tasks = n === 1 ? '1 task checkpoints and stops' : `${n} tasks checkpoint and stop`;
  const first = n > 0 ? `Job ${id} is requeued: ${tasks}` : `Job ${id} had no task running or starting: nothing to requeue`;
  if (r.held_now) return `${first}; it is held until released.`;
  return n > 0 ? `${first}, then it waits again.` : `${first}.`;
}
