// Latency of a frame loop (make bench's "Loops" table): 200 img2d calls in a row through the copying API without and with `out`, and on heap tensors, with p50 and p90 per call.
//
// A person waits on each call of a loop (an animation, a video), so the tail matters: without
// `out` every call returns a new 3 MiB array and the garbage collector runs now and then.
// Run in make bench's process after the workloads (the module is warm).

import { img2dData } from './frame_calls.mjs';
import { percentile } from './timing.mjs';

const CALLS = 200;
const S = 512;

/** Rows {way, p50, p90} for `gs` (a loaded module). */
export function measureLoops(gs, log = () => {}) {
  const { x, grid } = img2dData(gs, S);
  const hx = gs.tensorFrom(x);
  const hg = gs.tensorFrom(grid);
  const hy = gs.tensor('float32', [1, 3, S, S]);
  const out = new Float32Array(3 * S * S);
  const ways = [
    ['copying API, a new output per call', () => gs.gridSample(x, grid)],
    ['copying API, `out` reused', () => gs.gridSample(x, grid, { out })],
    ['heap tensors, `out` reused', () => gs.gridSample(hx, hg, { out: hy })],
  ];
  const rows = [];
  try {
    for (const [way, call] of ways) {
      for (let i = 0; i < 5; ++i) call();
      const times = [];
      for (let i = 0; i < CALLS; ++i) {
        const t0 = performance.now();
        call();
        times.push(performance.now() - t0);
      }
      const row = { way, p50: percentile(times, 0.5), p90: percentile(times, 0.9) };
      log(`  ${way}: p50 ${row.p50.toFixed(2)} ms, p90 ${row.p90.toFixed(2)} ms`);
      rows.push(row);
    }
  } finally {
    hx.dispose();
    hg.dispose();
    hy.dispose();
  }
  return rows;
}

/** The report's section for measureLoops' rows. */
export function renderLoops(rows) {
  const lines = [
    '## Loops: latency per call',
    '',
    `img2d (1x3x512x512 float32, bilinear) called ${CALLS} times in a row on our wasm SIMD build, after 5 calls not counted (\`bench/js/loop_latency.mjs\`); target: p90 within 1.2x of p50 with \`out\`.`,
    '',
    '| way | p50 ms | p90 ms | p90 / p50 |',
    '| --- | ---: | ---: | ---: |',
  ];
  for (const r of rows) lines.push(`| ${r.way} | ${r.p50.toFixed(2)} | ${r.p90.toFixed(2)} | ${(r.p90 / r.p50).toFixed(2)}x |`);
  return `${lines.join('\n')}\n`;
}
