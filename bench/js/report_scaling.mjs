// The scaling model (bench/README.md, "Scaling model") and RESULTS.md's sections on what it rests on: memory bandwidth, the cores' independence and the estimated scaling.

import { ms, ratio, table, usable } from './report_format.mjs';

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
    // Y (N, C, O...), or (N, O..., C) channels-last (workloads.mjs, layout)
    const [n, c, ...spatial] = w.layout === 'nhwc' ? [w.yShape[0], w.yShape.at(-1), ...w.yShape.slice(1, -1)] : w.yShape;
    const pixels = n * spatial.reduce((a, b) => a * b, 1);
    return pixels * (c * TAPS[w.mode] ** spatial.length + 16);
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

export function bandwidthSection(scaling) {
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

export function scalingSection(workloads, results, scaling) {
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
