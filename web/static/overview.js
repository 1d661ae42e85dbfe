// Overview: each pool's load and queue head, and every node's GPUs
// coloured by the job holding them. The holders come from the viewer's own
// /jobs, which leave out the jobs it may not read; a GPU the node lists
// as used (used_gpus) that none of those holds shows as held by another
// project's job, without saying whose.

import {ApiError, get} from './api.js';
import {fill, h, jobHue, jobLink, leavingBadge, memo, stateBadge, when} from './dom.js';
import {slotsUsed} from './pools.js';

// Placements of a running attempt do not change, so a job's detail is
// fetched again only when its running count changes, or after this long
// (a task may have been preempted and restarted in between).
const placementTTL = 10000;
const fetchers = 6;

export function mount(root) {
  const poolsEl = h('div', {class: 'cards', id: 'ov-pools'});
  const nodesEl = h('div', {id: 'ov-nodes'});
  root.append(
    h('h1', {}, 'Overview'),
    h('section', {'aria-labelledby': 'ov-pools-h'}, h('h2', {id: 'ov-pools-h'}, 'Pools'), poolsEl),
    h('section', {'aria-labelledby': 'ov-nodes-h'}, h('h2', {id: 'ov-nodes-h'}, 'Nodes and their GPUs'), nodesEl),
  );
  const holders = new Map(); // job id → {sig, at, job}
  const same = memo();
  return {
    async refresh(signal) {
      const [pools, nodes, running, queued] = await Promise.all([
        get('/pools', signal),
        get('/nodes', signal),
        get('/jobs', signal, {state: 'running,killing'}), // killing: tasks still hold GPUs
        get('/jobs', signal, {state: 'queued'}),
      ]);
      const holding = running.concat(queued.filter((j) => j.running > 0));
      await updateHolders(holders, holding, signal);
      const held = gpuHolders(holders);
      if (same([pools, nodes, queued, [...held]])) return;
      renderPools(poolsEl, pools, queued);
      renderNodes(nodesEl, nodes, held, pools);
    },
  };
}

async function updateHolders(cache, jobs, signal) {
  const now = Date.now();
  const live = new Set(jobs.map((j) => j.id));
  for (const id of cache.keys()) if (!live.has(id)) cache.delete(id);
  const todo = jobs.filter((j) => {
    const c = cache.get(j.id);
    return !c || c.sig !== sig(j) || now - c.at > placementTTL;
  });
  const work = async () => {
    for (let j = todo.shift(); j; j = todo.shift()) {
      try {
        const detail = await get('/jobs/' + j.id, signal);
        cache.set(j.id, {sig: sig(j), at: Date.now(), job: detail});
      } catch (e) {
        // A job that ended and vanished between the list and its detail
        // simply holds nothing.
        if (!(e instanceof ApiError && e.status === 404)) throw e;
        cache.delete(j.id);
      }
    }
  };
  await Promise.all(Array.from({length: Math.min(fetchers, todo.length)}, work));
}

function sig(j) {
  return `${j.state}/${j.ending}/${j.running}`;
}

// gpuHolders maps "node/gpu" to the job and task of an open attempt there.
function gpuHolders(cache) {
  const held = new Map();
  const ids = [...cache.keys()].sort((a, b) => a - b);
  for (const id of ids) {
    const job = cache.get(id).job;
    for (const task of job.task_list || []) {
      const open = (task.attempts || []).filter((a) => !a.end_state && !a.ended_at);
      for (const a of open) {
        for (const p of a.placement || []) {
          for (const g of p.gpus || []) {
            held.set(p.node + '/' + g, {id: job.id, name: job.name, project: job.project, task: task.index, state: task.state});
          }
        }
      }
    }
  }
  return held;
}

function renderPools(el, pools, queued) {
  if (!pools.length) {
    fill(el, h('p', {class: 'muted'}, 'No pools are configured.'));
    return;
  }
  fill(el, pools.map((p) => {
    const head = queued.filter((j) => j.pool === p.name).sort((a, b) => (a.position || 1e9) - (b.position || 1e9)).slice(0, 3);
    const features = [p.policy, p.preemption ? 'preemption' : null, p.backfill ? 'backfill' : null].filter(Boolean).join(' · ');
    return h('article', {class: 'card', 'data-pool': p.name},
      h('h3', {}, p.name, ' ', h('span', {class: 'muted small'}, features)),
      slotsUsed(p, ' slots used'),
      h('dl', {class: 'facts'},
        h('dt', {}, 'Running tasks'), h('dd', {}, p.running_tasks),
        h('dt', {}, 'Queued jobs'), h('dd', {}, h('a', {href: `#/jobs?state=queued&pool=${encodeURIComponent(p.name)}`}, p.queued_jobs)),
        h('dt', {}, 'Nodes'), h('dd', {}, p.nodes)),
      head.length ? [h('h4', {}, 'Next in the queue'), h('ol', {class: 'queue-head'}, head.map(queueItem))] : null,
    );
  }));
}

function queueItem(j) {
  const p = j.pending;
  return h('li', {'data-job': j.id},
    jobLink(j.id, `#${j.id} ${j.name}`),
    p ? [' — ', p.message] : ' — waiting for the next scheduling pass',
    queueStart(p));
}

// queueStart is a queued job's estimated start beside its message: only
// the date and time where the message counts down to its reservation
// already, which said the start twice.
function queueStart(p) {
  if (!p || !p.estimated_start) return null;
  if (p.reason === 'reserved') return [' (at ', when(p.estimated_start, 'at', p.as_of), ')'];
  const basis = p.estimate_basis === 'forecast' ? 'forecast start ' : 'start ';
  return [` (${basis}`, when(p.estimated_start, 'both', p.as_of), ')'];
}

function renderNodes(el, nodes, held, pools) {
  if (!nodes.length) {
    fill(el, h('p', {class: 'muted'}, 'No node has registered yet: start `allot agent` on a GPU machine.'));
    return;
  }
  const order = pools.map((p) => p.name);
  const byPool = new Map();
  for (const n of [...nodes].sort((a, b) => a.name.localeCompare(b.name))) {
    if (!byPool.has(n.pool)) byPool.set(n.pool, []);
    byPool.get(n.pool).push(n);
  }
  const names = [...byPool.keys()].sort((a, b) => rank(order, a) - rank(order, b) || a.localeCompare(b));
  const legend = new Map();
  const others = {cells: 0};
  const groups = names.map((pool) => h('section', {class: 'node-group', 'aria-label': `Nodes of pool ${pool}`},
    h('h3', {}, `Pool ${pool}`),
    h('ul', {class: 'nodes'}, byPool.get(pool).map((n) => nodeCard(n, held, legend, others)))));
  fill(el, groups, legendOf(legend, others.cells));
}

function rank(order, name) {
  const i = order.indexOf(name);
  return i < 0 ? order.length : i;
}

function nodeCard(n, held, legend, others) {
  const used = new Set(n.used_gpus || []);
  const count = Math.max(n.slots || 0, (n.gpus || []).length);
  const cells = [];
  for (let i = 0; i < count; i++) {
    const gpu = (n.gpus || []).find((g) => g.index === i) || (n.gpus || [])[i];
    const idx = gpu ? gpu.index : i;
    const who = held.get(n.name + '/' + idx);
    const type = gpu ? gpu.type || gpu.name || '' : '';
    if (who) {
      legend.set(who.id, who);
      const cell = h('li', {class: 'gpu held', title: `GPU ${idx}${type ? ' (' + type + ')' : ''}: job ${who.id} ${who.name}, task ${who.task}${who.state === 'killing' ? ', being killed' : ''}`},
        h('span', {class: 'gpu-i'}, idx), h('a', {href: '#/jobs/' + who.id, 'aria-label': `GPU ${idx}: job ${who.id}, task ${who.task}`}, '#' + who.id));
      cell.style.setProperty('--hue', jobHue(who.id));
      cells.push(cell);
    } else if (used.has(idx)) {
      others.cells++;
      cells.push(h('li', {class: 'gpu held other', title: `GPU ${idx}${type ? ' (' + type + ')' : ''}: ${otherWords}`},
        h('span', {class: 'gpu-i'}, idx), h('span', {class: 'gpu-other', 'aria-label': `GPU ${idx}: ${otherWords}`}, 'in use')));
    } else {
      cells.push(h('li', {class: 'gpu free', title: `GPU ${idx}${type ? ' (' + type + ')' : ''}: free`},
        h('span', {class: 'gpu-i'}, idx), h('span', {class: 'gpu-free'}, 'free')));
    }
  }
  return h('li', {class: 'node node-' + n.state, 'data-node': n.name},
    h('div', {class: 'node-head'},
      h('strong', {}, n.name), ' ', stateBadge(n.state), n.leaving ? [' ', leavingBadge()] : null,
      h('span', {class: 'muted small'}, ` ${n.gpu_type || ''} · ${n.used}/${n.slots} used`)),
    h('ul', {class: 'gpus', 'aria-label': `GPUs of ${n.name}`}, cells));
}

const otherWords = "in use by another project's job";

function legendOf(legend, otherCells) {
  if (!legend.size && !otherCells) return h('p', {class: 'muted'}, 'No GPU is held by a job.');
  const items = [...legend.values()].sort((a, b) => a.id - b.id).map((j) => {
    const sw = h('span', {class: 'swatch', 'aria-hidden': 'true'});
    sw.style.setProperty('--hue', jobHue(j.id));
    return h('li', {}, sw, jobLink(j.id, `#${j.id} ${j.name}`), h('span', {class: 'muted small'}, ` ${j.project}`));
  });
  if (otherCells) {
    items.push(h('li', {class: 'legend-other'}, h('span', {class: 'swatch other', 'aria-hidden': 'true'}),
      `In use: ${otherCells} GPU${otherCells === 1 ? '' : 's'} held by jobs of projects you cannot read`));
  }
  return h('section', {class: 'legend', 'aria-label': 'Jobs holding GPUs'}, h('h3', {}, 'Jobs holding GPUs'), h('ul', {}, items));
}
