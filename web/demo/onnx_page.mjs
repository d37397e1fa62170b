// The ONNX page's main thread: picks or takes a model, times onnxruntime-web alone against gridsample/onnx's split session on it (js/onnx/timing.mjs, as `gridsample onnx bench` does), shows the plan, times, parts and differences, and checks the split session in a module worker.
import * as ort from 'onnxruntime-web';

import { load } from '../../js/browser.mjs';
import { InferenceSession } from '../../js/onnx.mjs';
import { compareModel, compareOutputs, formatOps } from '../../js/onnx/timing.mjs';

ort.env.wasm.numThreads = 1; // no cross-origin isolation, so no wasm threads

const SVG = 'http://www.w3.org/2000/svg';
const $ = (id) => document.getElementById(id);
const query = new URLSearchParams(location.search);
const WARMUP = Number(query.get('warmup') ?? 3);

const state = {
  examples: [], // index.json's models
  // The comparison shown: { model: { name, bytes, entry (index.json's, or null for a file of
  // the user's) }, ep, feeds, runs }; "Run and time" repeats it, the worker check reuses it.
  last: null,
};
let gs;
let queue = Promise.resolve(); // comparisons run one after another
let worker = null;

// What the page found, for tests/js/demo_onnx.test.mjs (the page never reads it).
const hook = { ready: false, status: 'loading', seq: 0 };
window.__onnxResults = hook;

const firstLine = (e) => String(e?.message ?? e).trim().split('\n')[0];
const fixed = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const countOf = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
const plainTensor = (t) => ({ type: t.type, dims: [...t.dims], data: t.data });

function setStatus(text, kind = '') {
  $('status').textContent = text;
  $('status').className = `status ${kind}`;
}

function element(tag, props = {}, ...children) {
  const el = Object.assign(document.createElement(tag), props);
  el.append(...children);
  return el;
}

function svgElement(tag, attrs, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

// A one-line error on the status line; the page keeps the model it showed and stays usable.
function fail(e, name) {
  const text = `${name}: ${firstLine(e)}`;
  setStatus(text, 'error');
  Object.assign(hook, { status: 'error', error: text });
}

// --- opening a model ---------------------------------------------------------------------

async function openExample(file, dims) {
  const entry = state.examples.find((m) => m.file === file);
  setStatus(`Fetching ${file}…`);
  let bytes;
  try {
    const response = await fetch(`models/${file}`);
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
    bytes = new Uint8Array(await response.arrayBuffer());
  } catch (e) {
    return fail(`cannot fetch models/${file}: ${firstLine(e)}`, file);
  }
  // index.json's shapes unless others are given (the model may leave some open).
  return compare({ name: file, bytes, entry }, dims ?? Object.fromEntries(entry.inputs.map((t) => [t.name, t.dims])));
}

async function openFile(file) {
  return compare({ name: file.name, bytes: new Uint8Array(await file.arrayBuffer()), entry: null }, {});
}

// The shapes in the inputs panel (edited or as the last run used them).
function panelDims() {
  return Object.fromEntries([...$('inputs').querySelectorAll('input')].map((field) => {
    const text = field.value.trim();
    const dims = text.split(/[\s,×x]+/).filter(Boolean).map(Number);
    if (!dims.length || !dims.every((d) => Number.isInteger(d) && d > 0)) {
      throw new RangeError(`input '${field.dataset.name}': the shape must be positive integers separated by commas, got '${text}'`);
    }
    return [field.dataset.name, dims];
  }));
}

// --- comparing ---------------------------------------------------------------------------

/**
 * Times onnxruntime-web alone against the split session on `model` with the inputs' shapes
 * `dims` (open dimensions not given are 1); queued behind any comparison still running.
 */
function compare(model, dims) {
  queue = queue.then(() => runComparison(model, dims)).catch((e) => fail(e, model.name));
  return queue;
}

async function runComparison(model, dims) {
  const ep = $('ep').value;
  const runs = Math.max(1, Math.round(Number($('runs').value)) || 1);
  Object.assign(hook, { seq: hook.seq + 1, status: 'running', file: model.name, ep, error: null, worker: null });
  setStatus(`${model.name}: creating the sessions (${ep})…`);
  const onRound = (i, n) => setStatus(`${model.name}: timing on ${ep}, ${i} / ${n} runs…`);
  let r;
  try {
    // Example inputs in index.json's value ranges (a dropped model's in [-1, 1)).
    const ranges = Object.fromEntries((model.entry?.inputs ?? []).filter((t) => t.range).map((t) => [t.name, t.range]));
    r = await compareModel(model.bytes, { ort, gridsample: gs, dims, ranges, runs, warmup: WARMUP, sessionOptions: { executionProviders: [ep] }, onRound });
  } catch (e) {
    return fail(e, model.name);
  }
  state.last = { model, ep, feeds: r.feeds, runs };
  let readbacks = null;
  if (ep === 'webgpu' && globalThis.GPUBuffer) {
    try {
      readbacks = await readbacksPerRun(model.bytes, r.feeds);
    } catch (e) {
      return fail(e, model.name);
    }
  }
  const { feeds, ...report } = r;
  const worst = r.outputs ? Math.max(0, ...Object.values(r.outputs).map((o) => o.maxAbsDiff)) : null;
  Object.assign(hook, { status: 'done', ...report, maxDiff: worst, readbacks });
  showModel(model);
  showInputs(feeds);
  showPlan(r.plan, readbacks);
  const onGpu = r.plan.parts.some((p) => p.backend === 'webgpu');
  $('fig-backend').textContent = `gridsample ${onGpu ? 'webgpu' : gs.backend} · onnxruntime-web ${ort.env.versions.web} (${ep})`;
  showTiming(r, worst);
  $('worker-result').textContent = '';
  setStatus(`${model.name}: done (${ep}, ${countOf(runs, 'timed run')} of each after ${countOf(WARMUP, 'warm-up run')})`, 'done');
}

// GPU-to-CPU copies in one run of the split session on WebGPU with its outputs left on the GPU
// (GPUBuffer.mapAsync calls, onnxruntime's and gridsample's alike): what crossing its parts costs.
async function readbacksPerRun(bytes, feeds) {
  const session = await InferenceSession.create(bytes, { ort, gridsample: gs, executionProviders: ['webgpu'], preferredOutputLocation: 'gpu-buffer' });
  const mapAsync = GPUBuffer.prototype.mapAsync;
  let count = 0;
  try {
    for (const t of Object.values(await session.run(feeds))) t.dispose(); // shaders compiled
    GPUBuffer.prototype.mapAsync = function counted(...args) {
      count += 1;
      return mapAsync.apply(this, args);
    };
    const out = await session.run(feeds);
    GPUBuffer.prototype.mapAsync = mapAsync;
    for (const t of Object.values(out)) t.dispose();
  } finally {
    GPUBuffer.prototype.mapAsync = mapAsync;
    await session.release();
  }
  return count;
}

// --- showing the results -------------------------------------------------------------------

function showModel({ name, bytes, entry }) {
  $('model-title').textContent = entry?.title ?? name;
  $('model-description').textContent = entry?.description ?? 'Your model: its inputs are random, shaped as it declares them (open dimensions as 1; edit them below).';
  const why = entry && !entry.onnxruntimeRuns ? entry.why : entry?.note;
  $('model-why').hidden = !why;
  $('model-why').textContent = why ?? '';
  $('model-info').textContent = `${name} · ${(bytes.length / 1024).toFixed(1)} KB`;
  $('example').value = entry ? entry.file : '';
}

function showInputs(feeds) {
  $('inputs').replaceChildren(...Object.entries(feeds).map(([name, t]) => {
    const field = element('input', { type: 'text', value: t.dims.join(', '), title: `the shape of '${name}'`, spellcheck: false });
    field.dataset.name = name;
    return element('label', { className: 'input-row' }, element('code', { textContent: name }), element('span', { className: 'muted', textContent: t.type }), field);
  }));
}

function showPlan(plan, readbacks = null) {
  const c = plan.counts;
  $('plan-summary').textContent = `opset ${plan.opset} · ${countOf(c.onnxruntimeSessions, 'onnxruntime session')} (${countOf(c.onnxruntimeNodes, 'node')}) · ${countOf(c.gridsampleNodes, 'node')} on gridsample`
    + (c.unusedNodes ? ` · ${c.unusedNodes} unused` : '')
    + (readbacks === null ? '' : ` · ${countOf(readbacks, 'readback')} from the GPU per run`);
  $('plan').tBodies[0].replaceChildren(...plan.parts.map((p) => element('tr', { className: p.runsOn, title: p.nodes.map((n) => n.name || n.opType).join(', ') },
    element('td', { textContent: p.part }),
    element('td', { textContent: p.backend ? `${p.runsOn} · ${p.backend}` : p.runsOn, title: p.why ?? '' }),
    element('td', { textContent: p.nodes.length }),
    element('td', { className: 'ops', textContent: formatOps(p.ops) }),
    element('td', { className: 'io', textContent: `${p.inputs.join(', ')} → ${p.outputs.join(', ')}` }))));
  // Where each GridSample / AffineGrid node runs after the first run, and why.
  $('placement').replaceChildren(...plan.parts.flatMap((p) => p.nodes).filter((n) => n.placement).map((n) =>
    element('li', { textContent: `${n.opType} ${n.name || '(unnamed)'}: on ${n.placement.runsOn}, ${n.placement.why}` })));
}

function timingRow(label, s) {
  const cells = s.error
    ? [element('td', { colSpan: 3, className: 'failed', textContent: 'cannot run the model (below)' })]
    : [`${fixed(s.median)} ms`, `${fixed(s.p90)} ms`, s.runs].map((text) => element('td', { textContent: text }));
  return element('tr', {}, element('th', { textContent: label }), ...cells);
}

function showTiming(r, worst) {
  const alone = r.onnxruntime;
  $('timing').tBodies[0].replaceChildren(timingRow('onnxruntime-web alone', alone), timingRow('split session', r.split));
  $('ort-error').hidden = !alone.error;
  $('ort-error').textContent = alone.error ? `onnxruntime-web alone: ${alone.error}` : '';
  $('fig-split').textContent = fixed(r.split.median);
  $('fig-ort').textContent = alone.error ? 'fails' : fixed(alone.median);
  $('fig-ort').closest('.figure').classList.toggle('failed', !!alone.error);
  $('fig-ratio').textContent = alone.error ? '–' : (alone.median / r.split.median).toFixed(2);
  $('fig-diff').textContent = worst === null ? '–' : worst.toExponential(1);
  $('timing-summary').textContent = `GridSample / AffineGrid: ${(100 * r.gridsampleShare.split).toFixed(0)} % of the split session`;
  $('parts').tBodies[0].replaceChildren(...r.parts.map((p) => element('tr', { className: p.runsOn },
    element('td', { textContent: p.part }),
    element('td', { textContent: p.runsOn }),
    element('td', { className: 'ops', textContent: formatOps(p.ops) }),
    element('td', { textContent: `${fixed(p.ms)} ms` }),
    element('td', { textContent: p.onnxruntimeMs === null ? '–' : `${fixed(p.onnxruntimeMs)} ms` }))));
  $('parts-note').textContent = r.reference?.error ? `onnxruntime cannot run the gridsample parts alone: ${r.reference.error}` : '';
  $('diff').textContent = r.outputs
    ? `Largest |onnxruntime-web − split| per output: ${Object.entries(r.outputs).map(([n, o]) => `${n} ${o.maxAbsDiff.toExponential(2)} (values up to ${o.scale.toPrecision(3)})`).join(', ')}`
    : 'No comparison: onnxruntime-web alone cannot run the model.';
  showChart(r);
}

// Bars of the two medians; the split session's bar is cut into its parts' medians.
function showChart(r) {
  const width = 760;
  const left = 130;
  const rowH = 30;
  const alone = r.onnxruntime.error ? null : r.onnxruntime.median;
  const scale = Math.max(alone ?? 0, r.split.median, r.parts.reduce((a, p) => a + p.ms, 0)) || 1;
  const px = (ms) => ((width - left - 70) * ms) / scale;
  const svg = $('chart');
  svg.setAttribute('viewBox', `0 0 ${width} ${2 * rowH + 30}`);
  svg.replaceChildren();
  const rows = [
    ['onnxruntime-web', alone === null ? [] : [{ ms: alone, runsOn: 'ort-alone' }], alone === null ? 'fails' : `${fixed(alone)} ms`],
    ['split session', r.parts, `${fixed(r.split.median)} ms`],
  ];
  rows.forEach(([label, bars, value], i) => {
    const y = 6 + i * rowH;
    svg.append(svgElement('text', { x: left - 8, y: y + 15, 'text-anchor': 'end', class: 'label' }, label));
    let x = left;
    for (const b of bars) {
      svg.append(svgElement('rect', { x, y, width: Math.max(1, px(b.ms)), height: rowH - 10, class: `bar ${b.runsOn}` },
        b.part ? `part ${b.part} (${b.runsOn}): ${fixed(b.ms)} ms` : undefined));
      x += px(b.ms);
    }
    svg.append(svgElement('text', { x: x + 6, y: y + 15, class: 'value' }, value));
  });
  const legend = [['ort-alone', 'onnxruntime-web alone'], ['onnxruntime', 'split: onnxruntime parts'], ['gridsample', 'split: gridsample parts']];
  legend.forEach(([kind, text], i) => {
    svg.append(svgElement('rect', { x: left + i * 190, y: 2 * rowH + 12, width: 10, height: 10, class: `bar ${kind}` }));
    svg.append(svgElement('text', { x: left + i * 190 + 15, y: 2 * rowH + 21, class: 'legend' }, text));
  });
}

// --- the worker check ------------------------------------------------------------------------

// The split session on the page, run once on the last comparison's feeds (every node on
// gridsample, as in the worker: placement 'auto' could choose differently in each).
async function pageOutputs({ model, ep, feeds }) {
  const session = await InferenceSession.create(model.bytes, { ort, gridsample: gs, executionProviders: [ep], placement: 'gridsample' });
  try {
    return await session.run(feeds);
  } finally {
    await session.release();
  }
}

// Posts a request to the module worker; resolves to its answer.
function askWorker(request) {
  worker ??= new Worker(new URL('./vendor/onnx_worker.mjs', import.meta.url), { type: 'module' });
  return new Promise((resolve) => {
    worker.onmessage = ({ data }) => resolve(data);
    worker.onerror = (e) => resolve({ error: `the worker did not start: ${e.message || 'its module did not load (run node web/demo/vendor.mjs)'}` });
    worker.postMessage(request);
  });
}

/** Runs the last comparison's split session in the module worker and compares its outputs with the page's. */
async function runInWorker() {
  const { last } = state;
  if (!last) return;
  $('worker-run').disabled = true;
  $('worker-result').textContent = `Running ${last.model.name} in the worker…`;
  hook.worker = { status: 'running' };
  const feeds = Object.fromEntries(Object.entries(last.feeds).map(([name, t]) => [name, plainTensor(t)]));
  // One after the other, so that the worker's times are its own.
  const mine = await pageOutputs(last).catch((e) => ({ error: firstLine(e) }));
  const theirs = await askWorker({ model: last.model.bytes.slice(), ep: last.ep, feeds, runs: last.runs, warmup: WARMUP });
  $('worker-run').disabled = false;
  const error = theirs.error ?? mine.error;
  if (error) {
    hook.worker = { status: 'error', error };
    $('worker-result').textContent = `The worker check failed: ${error}`;
    return;
  }
  const outputs = compareOutputs(theirs.outputs, mine);
  const worst = Math.max(0, ...Object.values(outputs).map((o) => o.maxAbsDiff));
  hook.worker = { status: 'done', file: last.model.name, ep: last.ep, outputs, maxDiff: worst, split: theirs.split };
  $('worker-result').textContent = `${last.model.name} in a module worker (${last.ep}): ${worst === 0 ? 'the same outputs as on the page' : `outputs differ from the page's by up to ${worst.toExponential(2)}`}; `
    + `split session median ${fixed(theirs.split.median)} ms, p90 ${fixed(theirs.split.p90)} ms over ${countOf(theirs.split.runs, 'run')}.`;
}

// --- wiring ------------------------------------------------------------------------------

function wire() {
  $('example').addEventListener('change', (e) => e.target.value && openExample(e.target.value));
  const rerun = () => {
    const model = state.last?.model;
    if (!model) return undefined;
    try {
      return compare(model, panelDims());
    } catch (e) {
      return fail(e, model.name);
    }
  };
  $('ep').addEventListener('change', rerun);
  $('run').addEventListener('click', rerun);
  $('worker-run').addEventListener('click', runInWorker);
  $('open').addEventListener('click', () => $('file').click());
  $('file').addEventListener('change', (e) => {
    const [file] = e.target.files;
    e.target.value = '';
    if (file) openFile(file);
  });
  const zone = $('drop-zone');
  zone.addEventListener('dragenter', (e) => { e.preventDefault(); zone.classList.add('dragging'); });
  zone.addEventListener('dragover', (e) => e.preventDefault());
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('dragging');
    const [file] = e.dataTransfer.files;
    if (file) openFile(file);
  });
}

async function start() {
  if (navigator.gpu) $('ep').append(element('option', { value: 'webgpu', textContent: 'webgpu' }));
  if (query.has('ep')) $('ep').value = query.get('ep');
  if (query.has('runs')) $('runs').value = query.get('runs');
  wire();
  gs = await load();
  $('fig-backend').textContent = `gridsample ${gs.backend} · onnxruntime-web ${ort.env.versions.web}`;
  state.examples = (await (await fetch('models/index.json')).json()).models;
  $('example').replaceChildren(element('option', { value: '', textContent: '(your file)', disabled: true }),
    ...state.examples.map((m) => element('option', { value: m.file, textContent: m.title })));
  Object.assign(hook, { ready: true, examples: state.examples.map((m) => m.file) });
  await openExample(query.get('model') ?? state.examples[0].file);
}

/** For the test: opens an example with an execution provider (and input shapes); resolves when its results are shown. */
hook.open = (file, ep, dims) => {
  $('ep').value = ep;
  return openExample(file, dims);
};
hook.runInWorker = runInWorker;

start().catch((e) => fail(e, 'the page'));
