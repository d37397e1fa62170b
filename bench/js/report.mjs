// Renders bench/RESULTS.md from one run's measurements: machine, targets of issue #4, summary, memory bandwidth, the scaling model's estimates and per-workload tables.

import { baselineText } from './workloads.mjs';

// Targets of issue #4. Each is checked on this run's numbers only:
//   peer(id, x):           ours is at least x times faster than peer `id` (a list: the
//                          fastest of those peers whose output matches)
//   floor(ids, x, ours):   ours takes at most x times the fastest of the copy floors `ids`
//   faster(ours, base):    ours is faster than row `base` of the same workload: ours on the
//                          same inputs with the baseline's settings (workloads.mjs), timed in
//                          the same rounds
//   within(ours, base, x): ours takes at most x times that baseline row `base`
const peer = (id, x) => ({ kind: 'peer', id, x });
const floor = (ids, x, ours) => ({ kind: 'floor', ids, x, ours });
const faster = (ours, base) => ({ kind: 'faster', ours, base });
const within = (ours, base, x) => ({ kind: 'within', ours, base, x });
//   scales(one, many, x):  row `many` (ours on more threads) at least x times faster than row
//                          `one` (ours on one thread), timed in the same rounds
const scales = (one, many, x) => ({ kind: 'scales', one, many, x });
// Issue #16's thread scaling on 2 cores: ours on 2 threads against 1, natively and in wasm.
const twoThreads = () => [scales('native', 'native-t2', 1.8), scales('simd-t1', 'simd-t2', 1.7)];
const WASM_FLOORS = ['floor-wasm', 'floor-js'];
const padding = () => [
  peer('ort-web', 10), peer('ort-node', 4), within('simd', 'simd-base', 1.3), within('native', 'native-base', 1.3),
];
// Issue #16 with 2 threads each: ours in wasm (simd-t2, heap tensors) against onnxruntime-web
// with numThreads 2 (ort-web-t2, in a child process sampled in the same rounds).
export const TARGETS = {
  img2d: [peer('ort-web', 6), floor(WASM_FLOORS, 3, 'simd'), peer('ort-node', 8), floor(['floor-native'], 2, 'native'),
    ...twoThreads(), peer('ort-node-t2', 3), peer('ort-web-t2', 4)],
  // A small call: no slower on 2 threads (the split threshold works).
  feat2d: [peer('ort-web', 3), peer('ort-node', 4), scales('native', 'native-t2', 1)],
  nearest2d: [peer('ort-web', 10), peer('ort-node', 4), faster('simd', 'simd-base'), faster('native', 'native-base')],
  cubic2d: [peer('ort-web', 6), peer('ort-node', 4), ...twoThreads()],
  border2d: padding(),
  reflect2d: padding(),
  vol3d: [peer('ort-web', 8), peer('ort-node', 4), ...twoThreads(), peer('ort-node-t2', 8), peer('ort-web-t2', 8)],
  // Issue #30: the copying API, in wasm, no slower than onnxruntime-node natively.
  affinegrid2d: [peer('ort-web', 2), peer('ort-node', 4), scales('ort-node', 'simd-copy', 1)],
  affinegrid3d: [peer('ort-web', 2), peer('ort-node', 4), scales('ort-node', 'simd-copy', 1)],
  rgba8: [peer(['cv5', 'cv4'], 3), ...twoThreads()],
};

// Targets of the whole-model table (bench/js/onnx_models.mjs), judged by the rules of the
// kinds above on this run's medians. `of` says what is compared: 'model', the split session
// against onnxruntime-web alone on the whole model; 'parts', the split session's GridSample /
// AffineGrid parts against onnxruntime-web on the same parts (the same split with every part
// on onnxruntime). Model '*' is every model onnxruntime-web runs, met when met on each.
const onModel = (model, of, kind, x, slackMs = 0) => ({ model, of, kind, x, slackMs });
export const MODEL_TARGETS = [
  onModel('liveportrait_warp', 'model', 'peer', 5),
  onModel('*', 'model', 'within', 1.05, 0.1),
  onModel('deformable_attention', 'parts', 'peer', 2.5),
  onModel('deformable_attention', 'model', 'within', 1),
  onModel('stn28', 'model', 'within', 1.15),
];

const ms = (t) => (t >= 100 ? t.toFixed(1) : t >= 10 ? t.toFixed(2) : t.toFixed(3));
/** A speed-up as the report writes it: `3.27x`, `21.7x`. */
export const ratio = (x) => `${x >= 10 ? x.toFixed(1) : x.toFixed(2)}x`;

/** Whether a row's median may be compared: timed, and its output matches. */
export function usable(res) {
  return res && res.status === 'ok' && (!res.check || res.check.ok);
}

function why(res, label) {
  if (!res) return `${label}: not run`;
  if (res.status !== 'ok') return `${label}: ${res.status === 'n/a' ? res.error : `error (${res.error})`}`;
  return `${label}: output differs from ours`;
}

// The rule of each kind of target on two medians in ms, ours and `other` (the peer, the
// floor or the baseline): {v, met}, v being the ratio shown. peer: ours at least x times
// faster (v = other / ours); faster: ours below other (v = ours / other); floor and within:
// ours at most x times other or, with `slackMs`, other + slackMs if that is more.
function judge(kind, ours, other, x, slackMs = 0) {
  if (kind === 'peer') return { v: other / ours, met: other / ours >= x };
  const v = ours / other;
  return { v, met: kind === 'faster' ? v < 1 : ours <= Math.max(x * other, other + slackMs) };
}

const judged = ({ v, met }) => ({ value: ratio(v), status: met ? 'met' : 'missed' });

/** Evaluates one target; returns {text, value, status: 'met' | 'missed' | 'n/a'}. */
function evaluate(t, w, results, implsById) {
  const r = results[w.name];
  const label = (id) => implsById[id].label;
  if (t.kind === 'peer') {
    const ids = [].concat(t.id);
    const ours = implsById[ids[0]].vs;
    const which = ids.length > 1 ? ', whichever is faster' : '';
    const text = `${w.name}: ${label(ours)} >= ${t.x}x faster than ${ids.map(label).join(' or ')}${which}`;
    if (!usable(r[ours])) return { text, status: 'n/a', note: why(r[ours], ours) };
    const ok = ids.filter((id) => usable(r[id]));
    if (!ok.length) return { text, status: 'n/a', note: why(r[ids[0]], ids[0]) };
    return { text, ...judged(judge('peer', r[ours].time.median, Math.min(...ok.map((id) => r[id].time.median)), t.x)) };
  }
  if (t.kind === 'scales') {
    const text = `${w.name}: ${label(t.many)} >= ${t.x}x faster than ${label(t.one)}`;
    if (!usable(r[t.many])) return { text, status: 'n/a', note: why(r[t.many], t.many) };
    if (!usable(r[t.one])) return { text, status: 'n/a', note: why(r[t.one], t.one) };
    return { text, ...judged(judge('peer', r[t.many].time.median, r[t.one].time.median, t.x)) };
  }
  if (t.kind === 'floor') {
    const text = `${w.name}: ${label(t.ours)} within ${t.x}x of the copy floor`;
    if (!usable(r[t.ours])) return { text, status: 'n/a', note: why(r[t.ours], t.ours) };
    const floors = t.ids.filter((id) => usable(r[id]));
    if (!floors.length) return { text, status: 'n/a', note: why(r[t.ids[0]], t.ids[0]) };
    return { text, ...judged(judge('floor', r[t.ours].time.median, Math.min(...floors.map((id) => r[id].time.median)), t.x)) };
  }
  const than = `the same data with ${baselineText(w)}, timed in the same rounds, ${label(t.ours)}`;
  const text = t.kind === 'faster' ? `${w.name} faster than ${than}` : `${w.name} within ${t.x}x of ${than}`;
  const a = r[t.ours];
  const b = r[t.base];
  if (!usable(a)) return { text, status: 'n/a', note: why(a, t.ours) };
  if (!usable(b)) return { text, status: 'n/a', note: why(b, t.base) };
  return { text, ...judged(judge(t.kind, a.time.median, b.time.median, t.x)) };
}

function statusCell(e) {
  if (e.status === 'met') return `met (${e.value})`;
  if (e.status === 'missed') return `**missed** (${e.value})`;
  return `n/a (${e.note})`;
}

function table(header, rows) {
  // A '|' in a cell (onnxruntime's messages quote C++ conditions) would end it.
  const line = (cells) => `| ${cells.map((c) => String(c).replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function checkCell(res, impl, implsById) {
  if (!res || res.status !== 'ok') return '';
  if (!res.check) return impl.floor || impl.baseline ? '' : 'reference';
  const c = res.check;
  const d = c.maxDiff === 0 ? '0' : Number.isFinite(c.maxDiff) ? c.maxDiff.toExponential(1) : 'inf';
  const against = c.against && c.against !== 'simd' ? ` vs ${implsById[c.against]?.short ?? c.against}` : '';
  return c.ok ? `${d}${against}` : `**MISMATCH** ${d}${against} (${c.bad ?? '?'} > ${c.tol})`;
}

function workloadSection(w, results, impls, implsById, evaluations) {
  const r = results[w.name];
  const rows = [];
  for (const impl of impls) {
    const res = r[impl.id];
    if (!res) continue;
    const label = impl.baseline ? `${impl.label} (${baselineText(w)})` : impl.label;
    const targets = evaluations.filter((e) => e.rows.includes(impl.id)).map((e) => statusCell(e)).join('; ');
    if (res.status !== 'ok') {
      rows.push([label, '', '', '', '', '', '', '', res.status === 'n/a' ? res.error : `error: ${res.error}`, targets]);
      continue;
    }
    const t = res.time;
    const ours = impl.vs ? r[impl.vs] : null;
    const oursOk = ours && ours.status === 'ok';
    const speed = !impl.floor && oursOk && impl.vs ? `${ratio(t.median / ours.time.median)} (${implsById[impl.vs].short})` : '';
    const overFloor = impl.floor && oursOk ? ratio(ours.time.median / t.median) : '';
    rows.push([label, ms(t.median), ms(t.p90), ms(t.min), `${t.reps}${t.batch > 1 ? ` x ${t.batch}` : ''}`,
      (t.median * 1e6 / w.outElems).toFixed(2), speed, overFloor, checkCell(res, impl, implsById), targets]);
  }
  return [
    `### ${w.name}`,
    '',
    `${w.summary}. ${w.outElems.toLocaleString('en-US')} output elements; ${(w.inBytes / 2 ** 20).toFixed(2)} MiB in, ${(w.outBytes / 2 ** 20).toFixed(2)} MiB out.`,
    '',
    table(['implementation', 'median ms', 'p90 ms', 'min ms', 'samples', 'ns / output element', 'speed-up of ours', 'ours / floor', 'max abs diff vs ours', 'target'], rows),
    '',
  ].join('\n');
}

// The dispatch check: on every kernel, the SIMD target the library picks by default (the
// first, best, of the targets this CPU has) takes at most DISPATCH_SLACK times every lower
// target's row, all timed in the same launches of the native binary. It compares the fastest
// repetitions (min), which other work on the machine inflates least: by medians, the uint8
// channels-last row came out at 1.13x, 0.78x and 0.92x of AVX2 in three runs. 10%: the
// memory-bound float32 channels-last rows still vary by more than 5%; a target that loses as
// AVX3 once did (1.4 to 5.9 times slower) shows at once.
const DISPATCH_SLACK = 1.1;
// What each per-target row runs: the workload's own operator, or (rgba8.KERNEL) another
// channels-last kernel on rgba8's image.
const KERNEL_TEXT = {
  GridSample: 'GridSample NCHW',
  AffineGrid: 'AffineGrid',
  WarpAffineRGBA8: 'WarpAffine, uint8',
  cl_grid_u8: 'GridSampleChannelsLast, uint8, on theta\'s grid',
  cl_grid_f32: 'GridSampleChannelsLast, float32, on theta\'s grid',
  warp_f32: 'WarpAffine, float32',
};

/** The per-target table and its checks: {rows, checks: [{text, status, value}]}. */
function dispatchTable(workloads, results, targets) {
  const rows = [];
  const checks = [];
  for (const w of workloads) {
    const byKernel = results[w.name].targets ?? {};
    for (const kernel of Object.keys(byKernel).sort()) {
      const t = byKernel[kernel];
      const sub = kernel.includes('.') ? kernel.slice(kernel.indexOf('.') + 1) : null;
      const what = `${kernel} (${KERNEL_TEXT[sub ?? w.op] ?? w.op})`;
      const cells = targets.map((name) => (t[name]?.status === 'ok' ? ms(t[name].time.median) : t[name] ? 'error' : ''));
      const chosen = t[targets[0]];
      const lower = targets.slice(1).filter((name) => t[name]?.status === 'ok');
      const text = `${kernel}: the default target ${targets[0]} at most ${DISPATCH_SLACK}x the time of every lower target`;
      if (chosen?.status !== 'ok' || !lower.length) {
        checks.push({ text, status: 'n/a', note: chosen?.error ?? 'no lower target timed' });
        rows.push([what, ...cells, '', statusCell(checks.at(-1))]);
        continue;
      }
      const best = lower.reduce((a, b) => (t[a].time.min <= t[b].time.min ? a : b));
      const v = chosen.time.min / t[best].time.min;
      checks.push({ text, value: `${ratio(v)} of ${best}`, status: v <= DISPATCH_SLACK ? 'met' : 'missed' });
      rows.push([what, ...cells, `${ratio(v)} (${best})`, statusCell(checks.at(-1))]);
    }
  }
  return { rows, checks };
}

/**
 * The thread check of a row timed in the child process (ort_web_threads.mjs): how busy its two
 * busiest threads were during the samples (CPU time over the samples' wall time), and the
 * whole process's CPU time over wall time.
 */
function threadsBusyCell(res) {
  const u = res?.status === 'ok' ? res.threads : null;
  if (!u || !u.wallMs) return '';
  const pct = (ms) => `${Math.round((100 * (ms ?? 0)) / u.wallMs)}%`;
  return `${pct(u.threadMs[0])} + ${pct(u.threadMs[1])} (process ${(u.cpuMs / u.wallMs).toFixed(2)}x)`;
}

function summaryTables(workloads, results, impls) {
  const cell = (res) => (res && res.status === 'ok' ? ms(res.time.median) : res?.status === 'n/a' ? 'n/a' : 'error');
  const sp = (r, id, vs) => {
    if (usable(r[id]) && usable(r[vs])) return ratio(r[id].time.median / r[vs].time.median);
    return r[id]?.status === 'ok' && r[vs]?.status === 'ok' ? 'output differs' : '';
  };
  const fl = (r, ids, ours) => {
    const f = ids.filter((id) => usable(r[id]));
    return f.length && usable(r[ours]) ? ratio(r[ours].time.median / Math.min(...f.map((id) => r[id].time.median))) : '';
  };
  // The OpenCV.js rows: those IMPLS names that peer on (as the chart's OpenCV.js bar).
  const cvIds = impls.filter((i) => i.peer === 'OpenCV.js').map((i) => i.id);
  const wasmRows = workloads.map((w) => {
    const r = results[w.name];
    // The fastest OpenCV.js row (both versions, both layouts are in the per-workload tables).
    const cvId = cvIds.filter((id) => usable(r[id])).sort((a, b) => r[a].time.median - r[b].time.median)[0]
      ?? cvIds.find((id) => r[id]?.status === 'ok') ?? 'cv5';
    return [w.name, cell(r.simd), cell(r['simd-copy']), cell(r.scalar), cell(r['ort-web']), sp(r, 'ort-web', 'simd-copy'),
      cell(r[cvId]), sp(r, cvId, 'simd'), cell(r['plain-js']), sp(r, 'plain-js', 'simd'), fl(r, WASM_FLOORS, 'simd')];
  });
  const nativeRows = workloads.map((w) => {
    const r = results[w.name];
    return [w.name, cell(r.native), cell(r['native-ref']), sp(r, 'native-ref', 'native'), cell(r['ort-node']),
      sp(r, 'ort-node', 'native'), fl(r, ['floor-native'], 'native')];
  });
  // A scaling below 1x: 2 threads lost to 1, flagged.
  const slower = (text) => (/^0\.\d+x$/.test(text) ? `**${text}: 2 threads slower**` : text);
  const threadRows = workloads.map((w) => {
    const r = results[w.name];
    return [w.name, cell(r.native), cell(r['native-t2']), slower(sp(r, 'native', 'native-t2')), cell(r['ort-node']),
      cell(r['ort-node-t2']), sp(r, 'ort-node', 'ort-node-t2'), sp(r, 'ort-node-t2', 'native-t2')];
  });
  const wasmThreadRows = workloads.map((w) => {
    const r = results[w.name];
    return [w.name, cell(r['simd-t1']), cell(r['simd-t2']), slower(sp(r, 'simd-t1', 'simd-t2')), cell(r['ort-web']),
      cell(r['ort-web-t2']), sp(r, 'ort-web', 'ort-web-t2'), threadsBusyCell(r['ort-web-t2']), sp(r, 'ort-web-t2', 'simd-t2')];
  });
  return [
    '### WebAssembly (Node.js, one process)',
    '',
    table(['workload', 'ours SIMD ms', 'ours SIMD, copying API ms', 'ours scalar ms', 'onnxruntime-web ms', 'speed-up (copying API)', 'OpenCV.js ms (fastest row)', 'speed-up', 'plain JS ms', 'speed-up', 'ours / copy floor'], wasmRows),
    '',
    '### Native',
    '',
    table(['workload', 'ours ms', 'scalar reference ms', 'speed-up', 'onnxruntime-node ms', 'speed-up', 'ours / memcpy floor'], nativeRows),
    '',
    '### Threads (1 and 2 threads in the same rounds)',
    '',
    'Native: ours on its pool; onnxruntime-node with `intraOpNumThreads` 1 and 2.',
    '',
    table(['workload', 'ours native 1 thread ms', '2 threads ms', 'scaling', 'onnxruntime-node 1 thread ms',
      '2 threads ms', 'its scaling', 'ours faster (2 threads each)'], threadRows),
    '',
    'WebAssembly in Node: ours `simd-threads` (heap tensors), one module set to 1 and to 2 threads before each call, in the',
    'same rounds (two modules differ by up to 1.4x on one thread from process to process, which hid the scaling);',
    'onnxruntime-web with `numThreads` 1 (this',
    'process) and 2 (a child process, sampled in the same rounds). "its threads" checks that onnxruntime-web split',
    'the work: how busy the child\'s two busiest threads were during its samples (run time from',
    '`/proc/self/task/*/schedstat` over the samples\' wall time; 100% + 100% is both threads working throughout),',
    'and the whole child\'s CPU time over wall time. onnxruntime-web copies inputs and output on each `run()` and ours',
    'on heap tensors does not (the one-thread comparison pairs it with our copying API).',
    '',
    table(['workload', 'ours wasm 1 thread ms', '2 threads ms', 'scaling', 'onnxruntime-web 1 thread ms',
      '2 threads ms', 'its scaling', 'its threads', 'ours faster (2 threads each)'], wasmThreadRows),
    '',
  ].join('\n');
}

/** The parts of a model row that ran on gridsample: our median ms and onnxruntime-web's on them (null if it could not run them). */
function gridsampleParts(row) {
  const ours = row.parts.filter((p) => p.runsOn === 'gridsample');
  const sum = (key) => ours.reduce((a, p) => a + p[key], 0);
  return { ours: sum('ms'), other: ours.length && ours.every((p) => p.onnxruntimeMs !== null) ? sum('onnxruntimeMs') : null };
}

/** The two medians a model target compares, {ours, other}, or {note} saying why there are none. */
function modelMedians(row, of) {
  if (row.error) return { note: `${row.name}: split session error (${row.error})` };
  if (row.onnxruntime.error) return { note: `${row.name}: onnxruntime-web fails (${row.onnxruntime.error})` };
  if (of === 'model') return { ours: row.split.median, other: row.onnxruntime.median };
  const p = gridsampleParts(row);
  return p.other === null ? { note: `${row.name}: no onnxruntime-web time of the same parts (${row.reference.error ?? 'none on gridsample'})` } : p;
}

function modelTargetText(t) {
  const who = t.model === '*' ? 'every model onnxruntime-web runs' : t.model;
  const what = t.of === 'model' ? 'split session' : 'GridSample / AffineGrid parts on gridsample';
  const than = t.of === 'model' ? 'onnxruntime-web alone' : 'onnxruntime-web on the same parts';
  if (t.kind === 'peer') return `${who}: ${what} >= ${t.x}x faster than ${than}`;
  if (t.slackMs) return `${who}: ${what} at most ${Math.round((t.x - 1) * 100)}% or ${t.slackMs} ms slower than ${than}, whichever is larger`;
  return t.x === 1 ? `${who}: ${what} not slower than ${than}` : `${who}: ${what} within ${t.x}x of ${than}`;
}

/** Evaluates one of MODEL_TARGETS on the model rows; returns {text, value, status} as evaluate() does. */
function evaluateModelTarget(t, rows) {
  const text = modelTargetText(t);
  const chosen = rows.filter((row) => (t.model === '*' ? !row.error && !row.onnxruntime.error : row.name === t.model));
  if (!chosen.length) return { text, status: 'n/a', note: t.model === '*' ? 'no model ran on both' : `${t.model}: not run` };
  const each = chosen.map((row) => ({ row, ...modelMedians(row, t.of) }));
  const missing = each.find((e) => e.note);
  if (missing) return { text, status: 'n/a', note: missing.note };
  for (const e of each) Object.assign(e, judge(t.kind, e.ours, e.other, t.x, t.slackMs));
  const figures = (e) => `${ratio(e.v)}, ${ms(e.ours)} vs ${ms(e.other)} ms`;
  const missed = each.filter((e) => !e.met);
  if (t.model !== '*') return { text, value: figures(each[0]), status: missed.length ? 'missed' : 'met' };
  if (missed.length) return { text, value: missed.map((e) => `${e.row.name} ${figures(e)}`).join('; '), status: 'missed' };
  const worst = each.reduce((a, b) => (a.v >= b.v ? a : b));
  return { text, value: `slowest relative to onnxruntime-web: ${worst.row.name} ${figures(worst)}`, status: 'met' };
}

/** Max |split - onnxruntime-web| over each output's largest magnitude (named when there are several). */
function relativeDiffCell(outputs) {
  if (!outputs) return '';
  const entries = Object.entries(outputs);
  const rel = ({ maxAbsDiff, scale }) => {
    if (Number.isNaN(maxAbsDiff)) return 'sizes differ';
    const d = scale > 0 ? maxAbsDiff / scale : maxAbsDiff;
    return d === 0 ? '0' : d.toExponential(1);
  };
  return entries.length === 1 ? rel(entries[0][1]) : entries.map(([name, o]) => `${name} ${rel(o)}`).join(', ');
}

/** The whole-model section: how it was timed, one row per model, its targets. */
function modelsSection(rows, timing) {
  const tableRows = rows.map((row) => {
    if (row.error) return [row.name, '', `error: ${row.error}`, '', '', '', '', '', '', ''];
    const ort = row.onnxruntime;
    const p = gridsampleParts(row);
    const none = !row.parts.some((q) => q.runsOn === 'gridsample');
    const partsCells = none ? ['none: placement left every node to onnxruntime', '', '']
      : p.other === null
      ? [ms(p.ours), !row.reference.error ? '' : row.reference.error === ort.error ? 'fails (as above)' : `fails: ${row.reference.error}`, '']
      : [ms(p.ours), ms(p.other), ratio(p.other / p.ours)];
    return [row.name, ort.error ? `fails: ${ort.error}` : ms(ort.median), ms(row.split.median), ms(row.split.p90),
      ort.error ? '' : ratio(ort.median / row.split.median), none ? '' : `${Math.round(100 * row.gridsampleShare.split)}%`,
      ...partsCells, relativeDiffCell(row.outputs)];
  });
  const checks = MODEL_TARGETS.map((t) => evaluateModelTarget(t, rows));
  const met = checks.filter((e) => e.status === 'met').length;
  const missed = checks.filter((e) => e.status === 'missed').length;
  return [
    '## Whole ONNX models (onnxruntime-web, wasm, 1 thread; median ms)',
    '',
    'The example models of `web/demo/models` (inputs at `index.json`\'s shapes and value ranges, seeded random values), each run',
    'by onnxruntime-web alone and by gridsample/onnx\'s split session (its GridSample /',
    'AffineGrid nodes on our wasm SIMD build, every other part an onnxruntime-web session), in this Node.js',
    `process: execution provider ${timing.sessionOptions.executionProviders.join(', ')}, \`numThreads = 1\`. Timed by \`js/onnx/timing.mjs\` (\`compareModel\`):`,
    `each session warmed up (at least ${timing.warmup} runs and 1 s: engines optimise late), then at least ${timing.runs} timed runs of each and more for ${timing.minMs / 1000} s, alternating in blocks of runs with a third, the same`,
    `split with every part on onnxruntime-web (the per-part reference), warmed up alike. Times are of whole \`run()\``,
    'calls; part times and the share come from the split session\'s profile (`run(feeds, { profile: true })`).',
    '"GridSample parts" are the parts run on gridsample (GridSample and AffineGrid nodes), next to',
    'onnxruntime-web\'s time on the same parts; "max abs diff" is the largest |split - onnxruntime-web| of each',
    'output divided by that output\'s largest magnitude. The split session places its nodes at its first run',
    '(`placement: \'auto\'`, js/onnx/placement.mjs): a node onnxruntime runs as gridsample does, and whose part saves less',
    'than its boundary costs, stays in onnxruntime\'s part.',
    '',
    table(['model', 'onnxruntime-web ms', 'split ms', 'split p90 ms', 'speed-up', 'GridSample share of split',
      'GridSample parts: ours ms', 'onnxruntime-web ms, same parts', 'speed-up, same parts', 'max abs diff / output scale'], tableRows),
    '',
    `Targets (whole models): ${met} met, ${missed} missed, ${checks.length - met - missed} not measurable.`,
    '',
    ...checks.map((e) => `- ${e.text}: ${statusCell(e)}`),
    '',
  ].join('\n');
}

// --- Scaling model (bench/README.md, "Scaling model") -------------------------------------------

// The stated assumptions and the library's splitting rule the model uses.
export const SCALING = {
  cores: [1, 2, 4, 8, 16],
  workloads: ['img2d', 'cubic2d', 'vol3d', 'rgba8', 'feat2d'],
  // Bandwidth beyond 2 cores (an assumption, not measured): each core adds what one core of
  // the measured 2-thread figure gets (B2 / 2), up to this many times B2 in all.
  bandwidthCapFactor: 4,
  // src/kernels/threads/parallel.{h,cc}: a piece is at least kMinPieceCost cost units (native; the
  // model covers native calls only, wasm's minimum is 2^19); a split call
  // has kPiecesPerThread pieces per thread (fewer when they would be smaller than that).
  minPieceCost: 2 ** 16,
  piecesPerThread: 16,
};

// Taps per output value: nearest 1, linear 2^rank, cubic 4^rank.
const TAPS = { nearest: 1, linear: 2, cubic: 4 };

/**
 * The work of one call in the library's cost units (src/kernels/threads/parallel.h, PixelCost): output
 * pixels x (channels x taps + 16); null for a workload the model does not cover.
 */
export function callCost(w) {
  if (w.op === 'GridSample') {
    const spatial = w.yShape.slice(2);
    const pixels = w.yShape[0] * spatial.reduce((a, b) => a * b, 1);
    return pixels * (w.yShape[1] * TAPS[w.mode] ** spatial.length + 16);
  }
  if (w.op === 'WarpAffineRGBA8') return w.image.width * w.image.height * (4 * 4 + 16); // bilinear, 4 channels
  return null;
}

/** The most pieces a call of `cost` units is ever cut into (1: never split). */
const maxPieces = (cost) => (cost >= 2 * SCALING.minPieceCost ? Math.floor(cost / SCALING.minPieceCost) : 1);

/** Pieces of a call of `cost` units on `cores` threads (1: not split), as PieceUnits makes them, ignoring whole tiles. */
export function pieces(cost, cores) {
  return cores <= 1 ? 1 : Math.min(SCALING.piecesPerThread * cores, maxPieces(cost));
}

/**
 * Total copy bandwidth (GB/s) on `cores` cores at one level of the memory system from the
 * measured 1- and 2-thread figures b1, b2: measured at 1 and 2; beyond, b2 / 2 per core, at
 * most SCALING.bandwidthCapFactor x b2.
 */
export function bandwidthAt(cores, b1, b2) {
  if (cores <= 1) return b1;
  return Math.min((cores * b2) / 2, SCALING.bandwidthCapFactor * b2);
}

/**
 * The model's time of one call on `cores` cores (ms) and what bounds it:
 *   compute = serialMs + (split ? splitMs : 0) + (t1Ms - serialMs) x ceil(n / cores) / n
 *   memory  = bytes / bandwidth
 *   time    = max(compute, memory)
 * Inputs, all measured in this run: t1Ms, the call on 1 thread; serialMs, the fixed part of a
 * call (a call too small to split); splitMs, what splitting a call costs (waking and joining
 * the workers); cost, the call's work in cost units (callCost), which gives its n pieces
 * (pieces()), taken by the cores as they finish (the last round of pieces may be partial);
 * bytes, input + output bytes; bandwidthGBps, the copy bandwidth on `cores` cores at the level
 * the bytes live in (bandwidthAt).
 */
export function scalingModel({ cores, t1Ms, serialMs, splitMs, cost, bytes, bandwidthGBps }) {
  const n = pieces(cost, cores);
  const parallelMs = Math.max(0, t1Ms - serialMs);
  const computeMs = serialMs + (n > 1 ? splitMs : 0) + (parallelMs * Math.ceil(n / cores)) / n;
  const memoryMs = bytes / (bandwidthGBps * 1e9) * 1e3;
  return memoryMs > computeMs ? { ms: memoryMs, bound: 'memory', computeMs, memoryMs } : { ms: computeMs, bound: 'compute', computeMs, memoryMs };
}

/** The median copy bandwidth of gridsample_membw's `size` ('large' | 'l3') on `threads` threads, or null. */
function copyBandwidth(membw, size, threads) {
  return membw?.results?.find((x) => x.size === size && x.kernel === 'copy' && x.threads === threads)?.gbps_median ?? null;
}

/** The measured inputs of the model from this run, or {error}. */
export function scalingInputs(scaling) {
  if (!scaling) return { error: 'not measured in this run' };
  const { membw, probes } = scaling;
  if (membw?.error) return { error: `bandwidth: ${membw.error}` };
  if (probes?.error) return { error: `probe calls: ${probes.error}` };
  for (const k of ['tiny', 'split']) if (!probes?.[k] || probes[k].error) return { error: `probe ${k}: ${probes?.[k]?.error ?? 'not run'}` };
  const serialMs = probes.tiny.t1;
  const splitMs = Math.max(0, probes.split.t2 - probes.split.t1 / 2 - serialMs / 2);
  const bw = (size) => ({ b1: copyBandwidth(membw, size, 1), b2: copyBandwidth(membw, size, 2) });
  return { serialMs, splitMs, l3Bytes: membw.l3_bytes, bandwidth: { l3: bw('l3'), large: bw('large') }, probes, membw };
}

/** The model's rows for the workloads of SCALING.workloads that ran natively on 1 thread. */
function scalingRows(workloads, results, inputs) {
  const rows = [];
  for (const w of workloads.filter((x) => SCALING.workloads.includes(x.name))) {
    const r = results[w.name];
    if (!usable(r.native)) continue;
    const bytes = w.inBytes + w.outBytes;
    const level = bytes <= inputs.l3Bytes ? 'l3' : 'large';
    const at = (cores, lvl = level) => scalingModel({
      cores, t1Ms: r.native.time.median, serialMs: inputs.serialMs, splitMs: inputs.splitMs, cost: callCost(w), bytes,
      bandwidthGBps: bandwidthAt(cores, inputs.bandwidth[lvl].b1, inputs.bandwidth[lvl].b2),
    });
    rows.push({ w, bytes, level, t1: r.native.time.median, t2: usable(r['native-t2']) ? r['native-t2'].time.median : null,
      model: Object.fromEntries(SCALING.cores.map((c) => [c, at(c)])), dram16: at(16, 'large'), cost: callCost(w) });
  }
  return rows;
}

function bandwidthSection(scaling) {
  const m = scaling?.membw;
  if (!m || m.error) return ['## Memory bandwidth', '', `Not measured: ${m?.error ?? 'not run'}.`, ''].join('\n');
  const by = (size, kernel, t) => m.results.find((x) => x.size === size && x.kernel === kernel && x.threads === t);
  const rows = [];
  for (const size of ['large', 'l3']) {
    for (const kernel of ['copy', 'read']) {
      const one = by(size, kernel, 1);
      const two = by(size, kernel, 2);
      if (!one || !two) continue;
      const mib = (one.buffer_bytes / 2 ** 20).toFixed(0);
      rows.push([`${size === 'large' ? 'DRAM' : 'L3-resident'}: ${mib} MiB${kernel === 'copy' ? ' to another' : ''}`,
        kernel === 'copy' ? 'copy (read + written bytes)' : 'read (sum of 64-bit words)',
        one.gbps_median.toFixed(1), two.gbps_median.toFixed(1), ratio(two.gbps_median / one.gbps_median),
        `${one.gbps_min.toFixed(1)}-${one.gbps_max.toFixed(1)}`, `${two.gbps_min.toFixed(1)}-${two.gbps_max.toFixed(1)}`]);
    }
  }
  return [
    `## Memory bandwidth (GB/s, medians of ${m.reps} repetitions)`,
    '',
    '`build/bench/gridsample_membw` (`bench/native/membw.cc`): each thread streams its contiguous half of the',
    `buffers; buffers far larger than L3 (DRAM) and of an eighth of L3 (L3 ${(m.l3_bytes / 2 ** 20).toFixed(0)} MiB${m.l3_known ? ', from /sys' : ', assumed'}), so that a copy's two`,
    'buffers fill a quarter of it. Copy: ordinary stores (as the kernels write), counted as bytes read + bytes written.',
    'A repetition is as many passes as take 20 ms; the (size, kernel, threads) repetitions are interleaved. The',
    'scaling model below uses the copy figures.',
    '',
    table(['buffers', 'kernel', '1 thread', '2 threads', '2 / 1', '1 thread range', '2 threads range'], rows),
    '',
  ].join('\n');
}

// Small times in microseconds (the probe calls), others as ms() does, with the unit.
const msOrUs = (t) => (t < 0.01 ? `${(t * 1e3).toFixed(2)} us` : `${ms(t)} ms`);
const signed = (x) => `${x >= 0 ? '+' : ''}${Math.round(x * 100)}%`;

function scalingSection(workloads, results, scaling) {
  const head = '## Estimated scaling (model)';
  const inputs = scalingInputs(scaling);
  if (inputs.error) return [head, '', `Not estimated: ${inputs.error}.`, ''].join('\n');
  const rows = scalingRows(workloads, results, inputs);
  if (!rows.length) return [head, '', `Not estimated: none of ${SCALING.workloads.join(', ')} ran natively in this run.`, ''].join('\n');
  const at = (row, c) => {
    const m = row.model[c];
    return `${ms(m.ms)} (${ratio(row.t1 / m.ms)})${m.bound === 'memory' ? ' mem' : ''}`;
  };
  const tableRows = rows.map((row) => [row.w.name, `${(row.bytes / 2 ** 20).toFixed(2)} (${row.level === 'l3' ? 'L3' : 'DRAM'})`,
    `${(row.cost / 2 ** 20).toFixed(1)}M / ${maxPieces(row.cost)}`,
    ms(row.t1), row.t2 === null ? 'error' : ms(row.t2), at(row, 2), row.t2 === null ? '' : signed(row.model[2].ms / row.t2 - 1),
    at(row, 4), at(row, 8), at(row, 16),
    `${ms(row.dram16.ms)} (${ratio(row.t1 / row.dram16.ms)})${row.dram16.bound === 'memory' ? ' mem' : ''}`]);
  const errors = rows.filter((row) => row.t2 !== null).map((row) => Math.abs(row.model[2].ms / row.t2 - 1));
  const bw = inputs.bandwidth;
  const g = (x) => (x === null ? '?' : x.toFixed(1));
  return [
    head,
    '',
    'Native, per call: time(p) = max(s + o + (t1 - s) x ceil(n / p) / n, bytes / B(p)) on p cores (o only when the',
    'call is split; bench/README.md, "Scaling model", states every assumption). Inputs measured in this run:',
    '',
    `- t1: the workload's 1-thread median (the Native table); s = ${msOrUs(inputs.serialMs)}, the fixed part of a call: the 1-thread median`,
    `  of a call too small to split (${inputs.probes.tiny.shape}); o = ${msOrUs(inputs.splitMs)}, what splitting a call costs: a call cut`,
    `  into 16 equal pieces per thread (${inputs.probes.split.shape}) took ${msOrUs(inputs.probes.split.t2)} on 2 threads and`,
    `  ${msOrUs(inputs.probes.split.t1)} on 1, o = t2 - t1 / 2 - s / 2 (both probes: ${scaling.reps.probes} repetitions, medians).`,
    '- n: pieces of the call on p threads by the library\'s rule (src/kernels/threads/parallel.h): its work in cost units',
    `  (output pixels x (channels x taps + 16)) / 2^16, at most ${SCALING.piecesPerThread} per thread ("work / max pieces" below).`,
    '- bytes: input + output bytes, each moved once. B(p): the copy bandwidth above at the level the bytes fit in',
    `  (L3 if input + output <= ${(inputs.l3Bytes / 2 ** 20).toFixed(0)} MiB, as in these repeated calls on the same buffers; else DRAM):`,
    `  L3 ${g(bw.l3.b1)} / ${g(bw.l3.b2)} GB/s, DRAM ${g(bw.large.b1)} / ${g(bw.large.b2)} GB/s on 1 / 2 threads. Beyond 2 cores (assumed):`,
    `  B2 / 2 per core, at most ${SCALING.bandwidthCapFactor} x B2. The last column puts the bytes in DRAM (a call on new data each time).`,
    '',
    `Cells: ms (speed-up over 1 thread); "mem": bandwidth-bound. Model error at 2 cores: model / measured - 1 (mean |error| ${errors.length ? `${Math.round((100 * errors.reduce((a, b) => a + b, 0)) / errors.length)}%` : 'n/a'}).`,
    '',
    table(['workload', 'MiB per call', 'work (M cost units) / max pieces', '1 core ms (measured)', '2 cores measured', '2 cores model', 'model error',
      '4 cores', '8 cores', '16 cores', '16 cores, data in DRAM'], tableRows),
    '',
  ].join('\n');
}

/** The workloads of this run with a baseline and its settings, e.g. "nearest2d: img2d's mode linear". */
function baselineList(workloads) {
  const based = workloads.filter((w) => w.baseline);
  return based.length ? based.map((w) => `${w.name}: ${baselineText(w)}`).join('; ') : 'none in this run';
}

/** What the child process running onnxruntime-web on threads said about them (ort_web_threads.mjs). */
function ortWebThreadsText(info) {
  if (!info) return 'not run';
  const fell = info.fellBack || info.numThreads !== info.requested;
  return `numThreads ${info.requested} asked in a child process; onnxruntime-web kept ${info.numThreads}${fell
    ? ` (**fell back**${info.warnings.length ? `: ${info.warnings.join(' ')}` : ''})` : ', no fallback warning'}; ${info.threadsInProcess} threads in that process`;
}

/** The whole RESULTS.md text. */
/**
 * What gridsample_cores (bench/native/cores.cc) found: whether the 2 cores were independent for
 * SIMD work during the run, which every 2-thread figure depends on.
 */
export function coresText(cores) {
  if (!cores || cores.error) return `not measured (${cores?.error ?? 'not run'})`;
  const verdict = cores.ratio_median < 1.25 ? 'two independent cores'
    : cores.ratio_median > 1.7 ? '**one core shared by both vCPUs: no 2-thread speed-up was possible**' : 'partly shared cores';
  const burst = cores.burst_ratio_median === undefined ? ''
    : `; in bursts of ${cores.burst_alone_ms.toFixed(2)} ms after 20 ms of sleep, as a call of a frame loop meets them, 2 at once took ` +
      `${cores.burst_ratio_median.toFixed(2)}x the time of one alone${cores.burst_ratio_median > 1.7 ? ' (**one core\'s worth: a short call after idle time gains nothing from a second thread here**)' : ''}`;
  return `2 threads of a SIMD multiply-add loop at once took ${cores.ratio_median.toFixed(2)}x the time of one alone ` +
    `(median of ${cores.reps}; ${cores.ratio_min.toFixed(2)}-${cores.ratio_max.toFixed(2)}): ${verdict}${burst}`;
}

export function renderReport({ env, workloads, results, models, impls, quick, method, scaling }) {
  const implsById = Object.fromEntries(impls.map((i) => [i.id, i]));
  const evaluations = {};
  const all = [];
  for (const w of workloads) {
    evaluations[w.name] = (TARGETS[w.name] || []).map((t) => {
      const e = evaluate(t, w, results, implsById);
      // Which table rows show this target: the peer's, the floor's or our own.
      e.rows = t.kind === 'peer' ? [].concat(t.id) : [t.kind === 'scales' ? t.many : t.ours];
      all.push(e);
      return e;
    });
  }
  const met = all.filter((e) => e.status === 'met').length;
  const missed = all.filter((e) => e.status === 'missed').length;
  const na = all.length - met - missed;
  const targets = env.native?.targets ?? [];
  const dispatch = dispatchTable(workloads, results, targets);
  const dispatchMet = dispatch.checks.filter((e) => e.status === 'met').length;
  const dispatchMissed = dispatch.checks.filter((e) => e.status === 'missed').length;

  const machineRows = [
    ['CPU', `${env.cpu} (${env.cores} logical cores; ${env.isa || 'no SSE4.2/AVX flags read'})`],
    ['memory, kernel', `${env.memoryGiB} GiB, ${env.kernel}`],
    ['Node.js', `${env.node} (V8 ${env.v8})`],
    ['date', env.date],
    ['load average (1 min) at start, end', `${env.loadStart}, ${env.loadEnd} (other work on the machine inflates times)`],
    ['gridsample commit', env.commit],
    ['our wasm', `${env.wasmTargets.simd}; ${env.wasmTargets.scalar}; ${env.wasmTargets.threads}`],
    ['our native', env.native ? `SIMD target ${env.native.target} (of ${targets.join(', ')}); Google Benchmark context: ${env.native.mhz} MHz, ${env.native.caches}, CPU scaling ${env.native.scaling ? 'on' : 'off'}` : 'not run'],
    ['onnxruntime-web, 2 threads', ortWebThreadsText(env.ortWebThreads)],
    ['peers', Object.entries(env.versions).map(([k, v]) => `${k} ${v}`).join(', ') + ` (OpenCV.js parallel framework: ${env.opencvParallel ?? 'unknown'})`],
  ];

  return [
    '<!-- Written by bench/run.sh (bench/js/bench.mjs) from one run; do not edit by hand. -->',
    '# gridsample benchmark results',
    '',
    quick ? `**Quick run (\`--quick\`: ${method.minReps} samples each, ${method.models.runs} runs per session of a model): for development only, not for quoting.**\n` : '',
    table(['machine', ''], machineRows),
    '',
    '## How this was measured',
    '',
    '- One run of `make bench` (`bench/run.sh`). Everything except the native binary runs in one Node.js process;',
    '  the native Google Benchmark binary gets the same input bytes through files and is launched by that process.',
    '  Every ratio below comes from this run.',
    '- Single thread everywhere but the Threads rows: `ort.env.wasm.numThreads = 1`; onnxruntime-node with',
    '  `intraOpNumThreads` and `interOpNumThreads` 1; the npm OpenCV.js build has no threads; our calls on one',
    '  thread. The Threads rows: ours natively on 2 threads of its pool (timed in the same launches as 1 thread,',
    '  and checked to write the same bytes), onnxruntime-node with `intraOpNumThreads` 2 (sampled in the same rounds),',
    '  our `simd-threads` wasm build on 2 threads (heap tensors, timed in the same rounds as the one-thread build),',
    '  and onnxruntime-web with `numThreads` 2 in a child Node process (`js/ort_web_threads.mjs`: numThreads is per',
    '  process), set up on the same input bytes and checked like the others; it times itself, one sample per request,',
    `  when its turn in this process's rounds comes (this process waiting), at most ${method.ortWebT2MaxReps ?? '?'} samples per workload, each followed`,
    '  by a pause until its spinning threads are idle (outside the timed batch).',
    '- The speed of this machine drifts (other work on it), so the implementations of a workload are timed',
    '  side by side, not one after another. WebAssembly / JS: all of a workload\'s implementations are set up and',
    `  checked, then each gets ${method.warmup} warm-up calls, the fastest of which sets its batch size (calls under ${method.minSampleMs} ms are timed in batches:`,
    '  "samples" = samples x calls per sample). Then come rounds: garbage is collected once, then every',
    '  implementation takes one sample, in an order rotated by one each round. Rounds go on until each has',
    `  ${method.minReps} samples and either ${method.maxReps} or the budget (${method.budgetMs} ms per implementation timed) is spent.`,
    '  Reported: median, p90 and min in ms (p90 of the samples: where calls are batched, of batch means,',
    '  so it shows the tail of runs of calls, not of single calls; the Loops table has per-call p90),',
    '  and the median in ns per output element.',
    '- Native: a first run of the binary checks the public API against the scalar reference (and writes its',
    `  output, compared with the peers) and times the reference: Google Benchmark, ${method.nativeRefReps} repetitions of at least`,
    `  ${method.nativeMinTime} s. Then, per workload, ${method.nativeRounds} rounds: garbage collection; the binary launched on that workload`,
    `  alone, timing the public API, the baseline settings (below; if any) and the memcpy floor (${method.nativeRoundReps} repetitions`,
    `  of at least ${method.nativeMinTime} s each, interleaved in random order); then onnxruntime-node (set up, checked, warmed up and`,
    `  batched once before the rounds) for ${method.ortNodeShare.minReps} to ${method.ortNodeShare.maxReps} samples (as many as fit in ${Math.round(method.ortNodeShare.budgetMs)} ms). Median, p90 and min are over`,
    '  the repetitions / samples of all rounds.',
    `- Baseline settings rows (${baselineList(workloads)}): ours on the workload's own inputs with the`,
    '  settings its "faster than" or "within" target compares with, timed in the same rounds as the',
    '  workload\'s other rows (wasm: one more implementation of its rounds; native: in the same launches of the',
    '  binary as the public API). They compute other values, so, like the copy floors, they are not compared with',
    '  the reference. Those targets divide our median by the baseline row\'s, never by another workload\'s rows,',
    '  which were timed at another time, when the machine may have been 2 to 3 times faster or slower.',
    '- Before timing, every output is compared with ours (wasm SIMD; onnxruntime-node with our native build;',
    '  the plain JS loop where ours is not available). A MISMATCH means different work: such a ratio',
    '  counts for no target. OpenCV.js may quantise positions to 1/32 pixel (its fixed-point maps), so its tolerance is the bound that',
    `  implies on data in [0, 1) (linear ${method.opencvTol.linear.toFixed(4)}, cubic ${method.opencvTol.cubic.toFixed(4)}); exact peers must agree within`,
    '  1e-6 (nearest), 1e-5 (linear), 1e-4 (cubic), 8-bit images 1 level. For OpenCV.js on 8-bit images the same',
    '  position bound is applied per element: 1 level + 2/64 of the value range around it (up to 9 at the image edge).',
    '- Speed-ups pair rows that move the same bytes: onnxruntime-web copies inputs into its heap and the output',
    '  out on each `run()`, so it is compared with our copying API; OpenCV.js (Mats made beforehand) and the plain',
    '  JS loop work in place, so they are compared with our heap tensors; onnxruntime-node (which copies its output',
    '  into a new array) with our native public API.',
    '- OpenCV.js gets pixel-space maps made beforehand and runs in two layouts: channels-last (the NCHW input is',
    '  transposed before timing, one `remap` per batch item; `warpAffine` for rgba8) and one NCHW plane at a time',
    '  (`convertMaps` once per batch item, then `remap` per plane), each with OpenCV.js 5 and 4 (5 is faster at',
    '  float remap, 4 at the RGBA `warpAffine`). The summary and the rgba8 target take the fastest matching row.',
    '- "speed-up of ours" is that row\'s median divided by the median of the named row of ours; "ours / floor" is',
    '  our median divided by the floor\'s.',
    '- Copy floor: one copy moving the bytes the operator must move, i.e. (input + output bytes) / 2 copied',
    '  (read + written = input + output). wasm: `memory.copy` inside a wasm instance and `TypedArray.set`, the',
    '  faster counts; native: `memcpy`.',
    '- SIMD targets: the native rounds also time the public API with dispatch forced to each SIMD target this',
    '  CPU has (`gridsample::SetTarget`), in the same launches, and for rgba8 the other channels-last kernels on',
    `  its image. The dispatch check: the default target's fastest repetition (min) is at most ${DISPATCH_SLACK}x every`,
    '  lower target\'s (the min is what other work on the machine inflates least).',
    '',
    // A run of the models alone (--only models) has no workload tables.
    ...(workloads.length ? [
      `## Targets (issues #4 and #16): ${met} met, ${missed} missed, ${na} not measurable`,
      '',
      table(['target', 'status'], all.map((e) => [e.text, statusCell(e)])),
      '',
      `## SIMD targets, native (median ms): dispatch check ${dispatchMet} met, ${dispatchMissed} missed`,
      '',
      targets.length
        ? table(['kernel', ...targets.map((t) => `${t}${t === targets[0] ? ' (default)' : ''}`), 'default / fastest lower (min)', 'check'], dispatch.rows)
        : 'Not run (no native binary, or one that does not list its targets).',
      '',
      '## Summary (median ms)',
      '',
      summaryTables(workloads, results, impls),
      `Cores during the run (bench/native/cores.cc, after the native rounds): ${coresText(scaling?.cores)}. On this VM`,
      'the two vCPUs sometimes share one physical core (then 2 threads cannot be faster than 1), and it changes over time.',
      '',
      bandwidthSection(scaling),
      scalingSection(workloads, results, scaling),
    ] : []),
    ...(models?.length ? [modelsSection(models, method.models)] : []),
    ...(workloads.length ? [
      '## Per workload',
      '',
      ...workloads.map((w) => workloadSection(w, results, impls, implsById, evaluations[w.name])),
    ] : []),
  ].join('\n');
}
