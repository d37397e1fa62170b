// Two wasm threads against one when calls come one at a time (issue 44, item 7): load({ numThreads: 2 }) against load({ numThreads: 1 }) called back to back, alternating, and after a pause (5 ms, a frame's 16 ms), and their section of bench/RESULTS.md.
import { setTimeout as sleep } from 'node:timers/promises';

import { load } from '../../js/node.mjs';
import { coresText } from './report_scaling.mjs';
import { img2dData, THETA } from './frame_calls.mjs';
import { stats } from './timing.mjs';

/** Rounds per pattern, and calls of each instance per round (the "worst of 3 runs of 9"). */
const ROUNDS = 3;
const CALLS = 9;

/** How calls come: `gap` ms of sleep before each call; `together`: one instance's calls in a row. */
export const PATTERNS = [
  { name: 'back to back', together: true, gap: 0 },
  { name: 'alternating', together: false, gap: 0 },
  { name: 'alternating, 5 ms before each', together: false, gap: 5 },
  { name: 'alternating, 16 ms before each (a frame)', together: false, gap: 16 },
];

// The calls timed, each made for one instance: vol3d (1x32x16x64x64 trilinear) with the copying
// API and with heap tensors, img2d (1x3x512x512) copying, and a 1024x1024 RGBA bicubic warp
// (the calls). The copying calls write into an `out` array made once: a fresh result
// array of 8 MB took 22 ms to fill here where a reused one took 0.4 ms (the kernel's page
// faults, paid by whichever instance's call meets them), which drowned the threads' difference.
const WORKLOADS = [
  { name: 'vol3d, copying into out', make: (gs) => vol3d(gs, false) },
  { name: 'vol3d, heap tensors', make: (gs) => vol3d(gs, true) },
  { name: 'img2d, copying into out', make: img2d },
  { name: 'rgba8 1024x1024 bicubic, copying into out', make: rgba8Bicubic },
];

const VOL3D = [1, 32, 16, 64, 64];

function vol3d(gs, heap) {
  const x = { data: Float32Array.from({ length: 32 * 16 * 64 * 64 }, (_, i) => ((i * 7919) % 1000) / 1000), shape: VOL3D };
  const [a, b, c, d, e, f] = THETA;
  const grid = gs.affineGrid({ data: Float32Array.of(a, b, 0, c, d, e, 0, f, 0, 0, 1, 0), shape: [1, 3, 4] }, VOL3D);
  if (!heap) {
    const out = new Float32Array(x.data.length);
    return () => gs.gridSample(x, grid, { out });
  }
  const hx = gs.tensorFrom(x);
  const hg = gs.tensorFrom(grid);
  const out = gs.tensor('float32', VOL3D);
  return () => gs.gridSample(hx, hg, { out });
}

function img2d(gs) {
  const { x, grid } = img2dData(gs);
  const out = new Float32Array(x.data.length);
  return () => gs.gridSample(x, grid, { out });
}

function rgba8Bicubic(gs, side = 1024) {
  const image = { data: Uint8ClampedArray.from({ length: 4 * side * side }, (_, i) => (i * 7919) % 251), width: side, height: side };
  const out = new Uint8ClampedArray(image.data.length);
  return () => gs.warpAffine(image, THETA, { mode: 'bicubic', out });
}

// A call's result as base64 of its bytes: a typed array, or an object with one in `data` (an
// image, a heap tensor's view).
function bytesOf(result) {
  const a = ArrayBuffer.isView(result) ? result : result.data;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
}

// One round of `pattern`: CALLS timed calls of each of `calls` ([one thread, two]); returns
// the per-call times of each.
async function round(pattern, calls) {
  const times = calls.map(() => []);
  const timed = async (i) => {
    if (pattern.gap) await sleep(pattern.gap);
    const t = performance.now();
    calls[i]();
    times[i].push(performance.now() - t);
  };
  if (pattern.together) {
    for (let i = 0; i < calls.length; i++) for (let k = 0; k < CALLS; k++) await timed(i);
  } else {
    for (let k = 0; k < CALLS; k++) for (let i = 0; i < calls.length; i++) await timed((i + k) % calls.length);
  }
  return times;
}

/**
 * Per workload and pattern, ROUNDS rounds of CALLS calls of each instance (the rounds start
 * with the other instance in turn): rows { workload, pattern, one, two, worst } where one and
 * two are stats() of every call (ms) and worst is the smallest per-round ratio of medians
 * (one thread's over two threads').
 */
export async function measureThreadPatterns({ threads = 2, log = () => {} } = {}) {
  const one = await load({ numThreads: 1 });
  const two = await load({ numThreads: threads });
  const rows = [];
  for (const w of WORKLOADS) {
    const calls = [w.make(one), w.make(two)];
    const [a, b] = calls.map((c) => bytesOf(c()));
    if (a !== b) throw new Error(`thread_patterns: ${w.name}: the two instances' results differ`);
    for (const pattern of PATTERNS) {
      const all = [[], []];
      let worst = Infinity;
      for (let r = 0; r < ROUNDS; r++) {
        const times = await round(pattern, r % 2 ? [...calls].reverse() : calls);
        if (r % 2) times.reverse();
        times.forEach((t, i) => all[i].push(...t));
        worst = Math.min(worst, stats(times[0]).median / stats(times[1]).median);
      }
      const row = { workload: w.name, pattern: pattern.name, one: stats(all[0]), two: stats(all[1]), worst };
      rows.push(row);
      log(`  ${w.name}, ${pattern.name}: 1 thread ${row.one.median.toFixed(2)} ms, ${threads} threads ${row.two.median.toFixed(2)} ms (${(row.one.median / row.two.median).toFixed(2)}x, worst round ${worst.toFixed(2)}x)`);
    }
  }
  return rows;
}

const ms = (v) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
const ratio = (v) => `${v.toFixed(2)}x${v < 1 ? ' (slower)' : ''}`;

/** The section "Threads, calls one at a time"; `cores` is gridsample_cores's report. */
export function renderThreadPatterns(rows, cores) {
  return [
    '## Threads, calls one at a time (wasm, Node)',
    '',
    '`load({ numThreads: 2 })` against `load({ numThreads: 1 })` (two instances, as an app makes them), called',
    'back to back (9 calls of one, then 9 of the other), alternating between the two, and alternating with a sleep',
    'of 5 ms or 16 ms (a frame) before each call; 3 rounds of 9 calls each, the rounds starting with either',
    'instance in turn. Medians and p90 in ms of all 27 calls; "worst round" is the smallest ratio of one round\'s',
    'medians. `bench/js/thread_patterns.mjs`; `node bench/js/thread_patterns.mjs` prints this section alone.',
    '',
    `Cores during the run (bench/native/cores.cc): ${coresText(cores)}.`,
    '',
    '| call | pattern | 1 thread ms (p90) | 2 threads ms (p90) | 1 / 2 threads | worst round |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
    ...rows.map((r) => `| ${r.workload} | ${r.pattern} | ${ms(r.one.median)} (${ms(r.one.p90)}) | ${ms(r.two.median)} (${ms(r.two.p90)}) | ${ratio(r.one.median / r.two.median)} | ${ratio(r.worst)} |`),
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(renderThreadPatterns(await measureThreadPatterns({ log: console.error })));
  process.exit(0);
}
