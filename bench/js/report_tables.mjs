// RESULTS.md's tables of the workloads: the summary (WebAssembly, native, threads), the SIMD targets with the dispatch check, and one table per workload.

import { ms, ratio, table, usable } from './report_format.mjs';
import { WASM_FLOORS, statusCell } from './report_targets.mjs';
import { baselineText } from './workloads.mjs';

function checkCell(res, impl, implsById) {
  if (!res || res.status !== 'ok') return '';
  if (!res.check) return impl.floor || impl.baseline ? '' : 'reference';
  const c = res.check;
  const d = c.maxDiff === 0 ? '0' : Number.isFinite(c.maxDiff) ? c.maxDiff.toExponential(1) : 'inf';
  const against = c.against && c.against !== 'simd' ? ` vs ${implsById[c.against]?.short ?? c.against}` : '';
  return c.ok ? `${d}${against}` : `**MISMATCH** ${d}${against} (${c.bad ?? '?'} > ${c.tol})`;
}

export function workloadSection(w, results, impls, implsById, evaluations) {
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
export const DISPATCH_SLACK = 1.1;
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
export function dispatchTable(workloads, results, targets) {
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

export function summaryTables(workloads, results, impls) {
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
