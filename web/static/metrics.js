// The metric chart of an experiment's page: GET /jobs/{id}/metrics drawn
// as one line per trial of the searcher's metric over steps, in SVG. A
// trial the searcher stopped is drawn dashed, so that where ASHA cut shows
// at a glance. Values spanning more than two decades, as a diverging
// trial's do, are drawn on a log scale.

import {fill, h} from './dom.js';
import {unjudgedText} from './experiment.js';

const ns = 'http://www.w3.org/2000/svg';
const W = 640, H = 260, pad = {l: 56, r: 12, t: 12, b: 28};

function s(tag, attrs, ...kids) {
  const el = document.createElementNS(ns, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  for (const k of kids.flat()) if (k !== null && k !== undefined) el.append(k);
  return el;
}

// metricPanel returns the panel; set(m) draws a JobMetrics.
export function metricPanel() {
  const body = h('div', {id: 'metric-chart'});
  const el = h('section', {'aria-labelledby': 'metrics-h', id: 'metrics', hidden: true},
    h('h2', {id: 'metrics-h'}, 'Metrics'), body);
  return {
    el,
    set(m) {
      const pts = (m && m.points) || [];
      const name = m && m.metric;
      el.hidden = !pts.length || !name;
      if (el.hidden) return;
      // No report of the metric: nothing to draw, and the reason said.
      const none = unjudgedText(m);
      fill(body, none ? h('p', {class: 'muted', id: 'metric-caption'}, none) : [caption(m), chart(m, name, pts)]);
    },
  };
}

function caption(m) {
  const trials = m.trials || [];
  const stopped = trials.filter((t) => t.decision === 'stopped').length;
  const failed = trials.filter((t) => t.state === 'failed').length;
  const way = m.smaller_is_better ? 'smaller is better' : 'larger is better';
  const search = m.searcher ? `searcher ${m.searcher}, ` : '';
  const b = best(m);
  return h('p', {class: 'muted', id: 'metric-caption'},
    `${m.metric} over steps (${way}); ${search}${m.points.length} reports` +
    (stopped ? `, ${stopped} trials stopped early (dashed)` : '') + (failed ? `, ${failed} failed` : '') +
    (b ? `. Best: trial ${b.task}, ${m.metric} ${+b.best.toPrecision(6)} at step ${b.best_step}` : ''));
}

// best is the trial with the best value of the metric by its order (the
// searcher's), the first of equals, as allot experiment show's Best line;
// undefined before any report.
function best(m) {
  let b;
  for (const t of m.trials || []) {
    if (t.best === undefined || t.best_step === undefined) continue;
    if (!b || (m.smaller_is_better ? t.best < b.best : t.best > b.best)) b = t;
  }
  return b;
}

function chart(m, name, pts) {
  const byTask = new Map();
  for (const p of pts) {
    const v = p.metrics[name];
    if (v === undefined) continue;
    if (!byTask.has(p.task)) byTask.set(p.task, []);
    byTask.get(p.task).push([p.step, v]);
  }
  const all = [...byTask.values()].flat();
  const maxStep = Math.max(1, ...all.map((p) => p[0]));
  let lo = Math.min(...all.map((p) => p[1])), hi = Math.max(...all.map((p) => p[1]));
  const log = lo > 0 && hi / lo > 100;
  const f = log ? Math.log10 : (v) => v;
  if (hi === lo) { hi += 1; lo -= 1; }
  const x = (st) => pad.l + (W - pad.l - pad.r) * st / maxStep;
  const y = (v) => pad.t + (H - pad.t - pad.b) * (1 - (f(v) - f(lo)) / (f(hi) - f(lo)));
  const decision = new Map((m.trials || []).map((t) => [t.task, t.decision]));
  const lines = [...byTask.entries()].sort((a, b) => a[0] - b[0]).map(([task, ps]) => {
    ps.sort((a, b) => a[0] - b[0]);
    const hue = (task * 137) % 360;
    return s('polyline', {
      'data-task': task, class: 'trial ' + (decision.get(task) || ''),
      points: ps.map(([st, v]) => `${x(st).toFixed(1)},${y(v).toFixed(1)}`).join(' '),
      fill: 'none', stroke: `hsl(${hue} 60% 45%)`, 'stroke-width': 1.5,
      'stroke-dasharray': decision.get(task) === 'stopped' ? '4 3' : '',
    }, s('title', {}, `trial ${task}: ${ps.length} reports, last ${name} ${ps[ps.length - 1][1].toPrecision(4)} at step ${ps[ps.length - 1][0]}`));
  });
  const fmt = (v) => (Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-2)) ? v.toExponential(1) : String(+v.toPrecision(3));
  const axes = [
    s('line', {x1: pad.l, y1: H - pad.b, x2: W - pad.r, y2: H - pad.b, stroke: 'currentColor'}),
    s('line', {x1: pad.l, y1: pad.t, x2: pad.l, y2: H - pad.b, stroke: 'currentColor'}),
    s('text', {x: pad.l, y: H - 8, 'font-size': 11}, '0'),
    s('text', {x: W - pad.r, y: H - 8, 'font-size': 11, 'text-anchor': 'end'}, `step ${maxStep}`),
    s('text', {x: pad.l - 4, y: pad.t + 10, 'font-size': 11, 'text-anchor': 'end'}, fmt(hi)),
    s('text', {x: pad.l - 4, y: H - pad.b, 'font-size': 11, 'text-anchor': 'end'}, fmt(lo)),
    log ? s('text', {x: pad.l + 4, y: pad.t + 10, 'font-size': 11}, 'log scale') : null,
  ];
  return s('svg', {viewBox: `0 0 ${W} ${H}`, role: 'img', class: 'chart', width: '100%',
    'aria-label': `${name} over steps for ${byTask.size} trials`}, axes, lines);
}
