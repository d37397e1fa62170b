// The worker pool's rows of the benchmark: createPool with 2 workers against one instance on this thread, on RGBA warps from 128x128 to 2048x2048 (the break-even size and the 2048x2048 bicubic target).
import { createPool, load } from '../../js/node.mjs';
import { SPLIT_COST } from '../../js/pool.mjs';
import { calibrate, stats, timeInRounds } from './timing.mjs';

/** Side lengths of the square RGBA images timed, the break-even search's steps. */
export const POOL_SIDES = [128, 256, 384, 512, 768, 1024, 2048];

// A deterministic RGBA image.
function image(side) {
  const data = new Uint8ClampedArray(side * side * 4);
  let s = 12345;
  for (let i = 0; i < data.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    data[i] = s >>> 24;
  }
  return { data, width: side, height: side };
}

/**
 * Times, per side and mode (bilinear, bicubic), a pixel-space rotation of an RGBA image by one
 * instance on this thread ('instance'), by a pool of 1 worker (every call whole: the cost of
 * sending it) and by a pool of `workers` splitting every call ('split'). Returns rows
 * { side, mode, instance, whole, split } of stats() (ms per call).
 */
export async function poolScaling({ workers = 2, sides = POOL_SIDES, log = () => {}, timing = {} } = {}) {
  const gs = await load({ variant: 'simd' });
  const one = await createPool({ workers: 1, variant: 'simd' });
  const many = await createPool({ workers, variant: 'simd', [SPLIT_COST]: 0 });
  const rows = [];
  try {
    for (const mode of ['bilinear', 'bicubic']) {
      for (const side of sides) {
        const im = image(side);
        const m = gs.rotationMatrix([side / 2, side / 2], 17, 1.1);
        const options = { mode, space: 'pixel' };
        const same = Buffer.from((await many.warpAffine(im, m, options)).data).equals(Buffer.from(gs.warpAffine(im, m, options).data));
        if (!same) throw new Error(`pool_scaling: the pool's ${side}x${side} ${mode} warp differs from the instance's`);
        const entries = {
          instance: await calibrate(() => gs.warpAffine(im, m, options), timing),
          whole: await calibrate(() => one.warpAffine(im, m, options), timing),
          split: await calibrate(() => many.warpAffine(im, m, options), timing),
        };
        await timeInRounds(Object.values(entries), timing);
        const row = { side, mode };
        for (const [k, e] of Object.entries(entries)) {
          if (e.error) throw e.error;
          row[k] = stats(e.samples, e.batch);
        }
        rows.push(row);
        log(`  pool ${mode} ${side}x${side}: instance ${row.instance.median.toFixed(3)} ms, 1 worker ${row.whole.median.toFixed(3)} ms, ${workers} workers ${row.split.median.toFixed(3)} ms (${(row.instance.median / row.split.median).toFixed(2)}x)`);
      }
    }
  } finally {
    await Promise.all([one.terminate(), many.terminate()]);
  }
  return rows;
}

/** The smallest side from which the split pool beats the instance at every larger side, or null. */
export function breakEven(rows, mode) {
  const mine = rows.filter((r) => r.mode === mode).sort((a, b) => a.side - b.side);
  let side = null;
  for (let i = mine.length - 1; i >= 0 && mine[i].split.median < mine[i].instance.median; i--) side = mine[i].side;
  return side;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await poolScaling({ log: console.log });
  for (const mode of ['bilinear', 'bicubic']) console.log(`break-even ${mode}: ${breakEven(rows, mode)}`);
}
