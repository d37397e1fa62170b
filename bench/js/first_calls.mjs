// First calls after load() in fresh Node processes, warm-up on and off (make bench's "First calls" table): the rows of the issue "full speed from the first call".
//
// Each measurement is a new process (`node first_calls.mjs --child WORKLOAD WARMUP`): load()
// timed, inputs made, then 110 calls timed one by one; the first ten are compared with ten
// steady calls (the median of the last 50, times ten). img2d: 1x3x512x512 float32 NCHW, heap
// tensors and `out` (a frame loop's shape); rgba8: a 1024x1024 RGBA warpAffine through the
// copying API into one `out` array. The parent takes the median of PROCESSES runs per row.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PROCESSES = 5;
const CALLS = 110;

async function child(workload, warmUp) {
  const t0 = performance.now();
  const { load } = await import('../../js/node.mjs');
  const gs = await load({ variant: 'simd', warmUp });
  const loadMs = performance.now() - t0;
  const a = 0.3, s = 0.9;
  const theta = [s * Math.cos(a), -s * Math.sin(a), 0.02, s * Math.sin(a), s * Math.cos(a), -0.03];
  let call;
  if (workload === 'img2d') {
    const S = 512;
    const x = gs.tensorFrom({ data: Float32Array.from({ length: 3 * S * S }, (_, i) => ((i * 7919) % 1000) / 1000), shape: [1, 3, S, S] });
    const grid = gs.affineGrid({ data: Float32Array.from(theta), shape: [1, 2, 3] }, [1, 3, S, S]);
    const g = gs.tensorFrom(grid);
    const out = gs.tensor('float32', [1, 3, S, S]);
    call = () => gs.gridSample(x, g, { out });
  } else {
    const S = 1024;
    const data = Uint8ClampedArray.from({ length: 4 * S * S }, (_, i) => (i * 7919) % 251);
    const out = new Uint8ClampedArray(4 * S * S);
    call = () => gs.warpAffine({ data, width: S, height: S }, theta, { out });
  }
  const times = [];
  for (let i = 0; i < CALLS; ++i) {
    const c0 = performance.now();
    call();
    times.push(performance.now() - c0);
  }
  const last = times.slice(-50).sort((p, q) => p - q);
  const steady10 = 10 * last[25];
  const first10 = times.slice(0, 10).reduce((p, q) => p + q, 0);
  process.stdout.write(JSON.stringify({ loadMs, first: times[0], first10, steady10 }));
}

const median = (v) => [...v].sort((p, q) => p - q)[v.length >> 1];

/**
 * Runs the fresh processes; returns rows {workload, warmUp, loadMs, first, first10, steady10,
 * ratio} (medians over the processes; ratio = first10 / steady10 per process, then the median).
 */
export function measureFirstCalls(log = () => {}) {
  const script = fileURLToPath(import.meta.url);
  const rows = [];
  for (const workload of ['img2d', 'rgba8']) {
    for (const warmUp of [false, true]) {
      const runs = [];
      for (let p = 0; p < PROCESSES; ++p) {
        const out = execFileSync(process.execPath, [script, '--child', workload, String(warmUp)], { encoding: 'utf8' });
        const r = JSON.parse(out);
        runs.push({ ...r, ratio: r.first10 / r.steady10 });
      }
      const row = { workload, warmUp };
      for (const k of ['loadMs', 'first', 'first10', 'steady10', 'ratio']) row[k] = median(runs.map((r) => r[k]));
      log(`  ${workload} warmUp ${warmUp}: load ${row.loadMs.toFixed(0)} ms, first call ${row.first.toFixed(1)} ms, first ten ${row.first10.toFixed(1)} ms = ${row.ratio.toFixed(2)}x ten steady (${row.steady10.toFixed(1)} ms)`);
      rows.push(row);
    }
  }
  return rows;
}

/** The report's section for measureFirstCalls' rows. */
export function renderFirstCalls(rows) {
  const lines = [
    '## First calls in a fresh Node process',
    '',
    `Each row: the median over ${PROCESSES} new processes (\`bench/js/first_calls.mjs\`) of \`load()\`'s time, the first call, the first ten calls, and those ten against ten steady calls (target: at most 2x).`,
    'img2d: heap tensors and `out`; rgba8: the copying API into one `out` array, whose first call also allocates and first touches 8 MiB of wasm memory.',
    '',
    '| workload | load({ warmUp }) | load() ms | first call ms | first 10 calls ms | 10 steady calls ms | first 10 / steady 10 |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    lines.push(`| ${r.workload} | ${r.warmUp} | ${r.loadMs.toFixed(0)} | ${r.first.toFixed(1)} | ${r.first10.toFixed(1)} | ${r.steady10.toFixed(1)} | ${r.ratio.toFixed(2)}x |`);
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4] === 'true');
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(renderFirstCalls(measureFirstCalls(console.error)));
}
