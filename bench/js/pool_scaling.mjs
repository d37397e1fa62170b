// The worker pool's rows of the benchmark: createPool with 2 workers against one instance on this thread, on RGBA warps from 256x256 to 2048x2048 (the break-even size and the 2048x2048 bicubic target), and their section of bench/RESULTS.md.
import { createPool, load } from '../../js/node.mjs';
import { SPLIT_COST } from '../../js/pool/create_pool.mjs';
import { coresText } from './report_scaling.mjs';
import { calibrate, stats, timeInRounds } from './timing.mjs';

/** Side lengths of the square RGBA images timed, the break-even search's steps. */
export const POOL_SIDES = [256, 512, 1024, 2048];
/** Issue 16's target: the pool on 2 workers at least this much faster on 2048x2048 RGBA bicubic. */
const POOL_TARGET = 1.5;

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

const ms = (v) => (v < 10 ? v.toFixed(3) : v.toFixed(1));

/**
 * The "Worker pool" section: per mode and side the instance, the pool on 1 worker (every call
 * whole) and on 2 (split), the speed-up, the break-even side and the target; `cores` is
 * gridsample_cores's report (whether the 2 cores were independent during the run).
 */
export function renderPoolScaling(rows, cores) {
  const target = rows.find((r) => r.mode === 'bicubic' && r.side === 2048);
  const speedUp = target ? target.instance.median / target.split.median : NaN;
  const status = !target ? 'not measured' : speedUp >= POOL_TARGET ? `**met** (${speedUp.toFixed(2)}x)` : `**missed** (${speedUp.toFixed(2)}x)`;
  return [
    '## Worker pool (createPool, 2 workers, Node worker_threads)',
    '',
    'A pixel-space rotation (17 degrees, scale 1.1) of an RGBA uint8 image of the side given: one instance on the',
    'calling thread (`gs.warpAffine`, the image copied in and out as the pool does), the pool on 1 worker (each call',
    'sent whole: the cost of the messages and copies) and on 2 workers splitting every call into row bands (the split',
    'threshold set to 0 for this table; the pool itself splits from 32M output values x taps and 4 taps per byte',
    'copied). Medians in ms of',
    'samples taken in rounds (bench/js/timing.mjs); every split result checked to be the same bytes as the instance\'s.',
    '',
    `Cores during the run (bench/native/cores.cc): ${coresText(cores)}.`,
    '',
    '| mode | side | instance ms | pool, 1 worker ms | pool, 2 workers ms | 2 workers vs instance |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map((r) => `| ${r.mode} | ${r.side} | ${ms(r.instance.median)} | ${ms(r.whole.median)} | ${ms(r.split.median)} | ${(r.instance.median / r.split.median).toFixed(2)}x |`),
    '',
    `Break-even (smallest side from which 2 workers beat the instance at every larger side): bilinear ${breakEven(rows, 'bilinear') ?? 'none'}, bicubic ${breakEven(rows, 'bicubic') ?? 'none'}.`,
    `Target (issue 16): the pool >= ${POOL_TARGET}x one instance on 2048x2048 RGBA bicubic: ${status}.`,
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(renderPoolScaling(await poolScaling({ log: console.error })));
}
