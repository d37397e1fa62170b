// How long the worker pool's next tiny call waits after 16 aborted 2048x2048 RGBA bicubic calls (issue 26: aborted bands kept the workers busy), median of 5 rounds; standalone, not part of make bench.
//
//   node bench/js/pool_abort.mjs [ENTRY]   # ENTRY: the package's node.mjs (default: this checkout's),
//                                          # e.g. another checkout's, to compare before and after
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const entry = process.argv[2] ? pathToFileURL(resolve(process.argv[2])).href : '../../js/node.mjs';
const { createPool } = await import(entry);
const pool = await createPool({ workers: 2 });
const big = { data: new Uint8ClampedArray(2048 * 2048 * 4).map((_, i) => i * 7), width: 2048, height: 2048 };
const tiny = { data: new Uint8ClampedArray(8 * 8 * 4), width: 8, height: 8 };
const m = [0.9, 0.1, 0, -0.1, 0.9, 0];
await pool.warpAffine(tiny, m);
let t = performance.now();
await pool.warpAffine(tiny, m);
const idle = performance.now() - t;
const waits = [];
for (let round = 0; round < 5; round++) {
  const c = new AbortController();
  const calls = Array.from({ length: 16 }, () => pool.warpAffine(big, m, { mode: 'bicubic', signal: c.signal }).catch(() => {}));
  await new Promise((r) => setTimeout(r, 5));
  c.abort();
  await Promise.all(calls);
  t = performance.now();
  await pool.warpAffine(tiny, m);
  waits.push(performance.now() - t);
}
waits.sort((a, b) => a - b);
console.log(`idle tiny call ${idle.toFixed(2)} ms; after 16 aborted calls: median ${waits[2].toFixed(1)} ms (all ${waits.map((v) => v.toFixed(1)).join(', ')})`);
await pool.terminate();
