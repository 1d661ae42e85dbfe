// The searcher's table of an experiment's page (asha, adaptive_asha):
// per trial its state, latest and best value of the metric, bracket,
// rungs reached and the searcher's decision with its note, and under it
// each rung's trials joined, promoted, stopped and done: what allot
// experiment show prints, from the same GET /jobs/{id}/metrics.

import {fill, h, table} from './dom.js';

// searcherPanel returns the panel; set(m) shows a JobMetrics.
export function searcherPanel() {
  const head = h('p', {id: 'searcher-head', class: 'muted'});
  const unjudged = h('p', {id: 'searcher-unjudged', class: 'note error', role: 'status'});
  const t = table('trials', "The searcher's standing per trial, as allot experiment show gives it",
    ['Trial', 'State', ['Step', 'The latest step that reported the metric'], 'Latest', 'Best', 'Best step', 'Bracket',
      ['Rungs', 'How many rungs the trial reached'], ['Decision', "The searcher's decision, with what it alone does not say"]]);
  const rungs = h('pre', {id: 'rungs', class: 'small'});
  const el = h('section', {'aria-labelledby': 'searcher-h', id: 'searcher', hidden: true},
    // The rung lines keep their columns: on a narrow screen they scroll
    // in their own box, as the tables do, and widen nothing.
    h('h2', {id: 'searcher-h'}, 'Searcher'), head, unjudged, t.el, h('h3', {}, 'Rungs'), h('div', {class: 'scroll'}, rungs));
  return {
    el,
    set(m) {
      // Only an adaptive searcher has rungs and decisions.
      el.hidden = !m || !(m.rungs || []).length;
      if (el.hidden) return;
      const way = m.smaller_is_better ? 'smaller is better' : 'larger is better';
      fill(head, `Searcher ${m.searcher}, metric ${m.metric} (${way}), ${m.points.length} reports.`);
      fill(unjudged, unjudgedText(m));
      fill(t.tbody, (m.trials || []).map(trialRow));
      fill(rungs, rungLines(m).join('\n'));
    },
  };
}

// unjudgedText says that no report carries the searcher's metric, and
// which names the trials report, so that the search judged nothing;
// "" otherwise, and from a master that does not send the names.
export function unjudgedText(m) {
  const names = m.reported_metrics || [];
  if (!(m.rungs || []).length || !names.length || m.metric_reports > 0) return '';
  return `${m.points.length} reports, none of metric ${m.metric}; trials report ${names.join(', ')}, ` +
    'so the searcher judged no trial and stopped none early.';
}

const opt = (v) => (v === undefined || v === null ? '-' : String(v));
const num = (v) => (v === undefined || v === null ? '-' : String(+v.toPrecision(6)));

function trialRow(tr) {
  const d = tr.decision_note ? `${tr.decision}: ${tr.decision_note}` : tr.decision;
  return h('tr', {'data-trial': tr.task},
    h('td', {class: 'num'}, tr.task), h('td', {}, tr.state), h('td', {class: 'num'}, opt(tr.latest_step)),
    h('td', {class: 'num'}, num(tr.latest)), h('td', {class: 'num'}, num(tr.best)), h('td', {class: 'num'}, opt(tr.best_step)),
    h('td', {class: 'num'}, opt(tr.bracket)), h('td', {class: 'num'}, opt(tr.rung)), h('td', {class: 'decision'}, d || '-'));
}

// trialList names trials: "trial 3" or "trials 1, 4, 7".
function trialList(ids) {
  return (ids.length === 1 ? 'trial ' : 'trials ') + ids.join(', ');
}

// rungLines are the lines searcher.WriteRungs prints (allot experiment
// show's Rungs:), per bracket (named when there are several) and rung.
export function rungLines(m) {
  const trials = (m.trials || []).filter((tr) => tr.bracket !== undefined && tr.bracket !== null);
  const out = [];
  (m.rungs || []).forEach((lengths, b) => {
    let indent = '';
    if (m.rungs.length > 1) {
      out.push(`bracket ${b}: ${trialList(trials.filter((tr) => tr.bracket === b).map((tr) => tr.task))}`);
      indent = '  ';
    }
    lengths.forEach((length, k) => {
      let joined = 0, promoted = 0;
      const ended = [];
      for (const tr of trials) {
        const joins = tr.rung_joins || [];
        if (tr.bracket !== b || joins.length <= k) continue;
        joined++;
        if (joins[k].decision === 'promoted') promoted++;
        else ended.push(tr.task);
      }
      let what = k === lengths.length - 1 ? `${ended.length} done` : `${promoted} promoted, ${ended.length} stopped`;
      if (ended.length) what += ` (${trialList(ended)})`;
      out.push(`${indent}rung ${k} (step ${length}): ${joined} joined, ${what}`);
    });
  });
  return out;
}
