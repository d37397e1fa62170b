// First calls after load() in fresh Node processes and fresh headless Chromium pages, warm-up on and off (make bench's "First calls" tables): the rows of the issue "full speed from the first call".
//
// Each measurement is a new process (`node first_calls.mjs --child WORKLOAD WARMUP`): load()
// timed, inputs made, then 110 calls timed one by one; the first ten are compared with ten
// steady calls (the median of the last 40, times ten). img2d: 1x3x512x512 float32 NCHW, heap
// tensors and `out` (a frame loop's shape); rgba8: a 1024x1024 RGBA warpAffine through the
// copying API into one `out` array (both from frame_calls.mjs). The parent takes the median of PROCESSES runs per row.
// Chromium: each measurement a new browser context (no HTTP or code cache: a first visit) whose
// page imports the package's browser entry from the demo server and makes 120 calls: the
// demo's frame (a 512x512 RGBA warpAffine on heap tensors, as the demo's worker does, the
// angle moving) and img2d as above, timed the same way.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { startDemoServer } from '../../web/demo/server.mjs';
import { img2dCall, rgba8Call } from './frame_calls.mjs';
import { percentile } from './timing.mjs';

const PROCESSES = 5;
const CALLS = 110;
const PAGES = 3;
const PAGE_CALLS = 120;
const CHROMIUM = process.env.GRIDSAMPLE_CHROMIUM || '/usr/bin/chromium';

// Times `calls` calls of `call` one by one: the first, the first ten, and ten steady calls (the
// median of the last 40, times ten). Self-contained: the Chromium rows run it in the page too.
function timeCalls(call, calls) {
  const times = [];
  for (let i = 0; i < calls; ++i) {
    const c0 = performance.now();
    call();
    times.push(performance.now() - c0);
  }
  const last = times.slice(-40).sort((p, q) => p - q);
  const first10 = times.slice(0, 10).reduce((p, q) => p + q, 0);
  return { first: times[0], first10, steady10: 10 * last[20] };
}

async function child(workload, warmUp) {
  const t0 = performance.now();
  const { load } = await import('../../js/node.mjs');
  const gs = await load({ variant: 'simd', warmUp });
  const loadMs = performance.now() - t0;
  const call = workload === 'img2d' ? img2dCall(gs) : rgba8Call(gs);
  process.stdout.write(JSON.stringify({ loadMs, ...timeCalls(call, CALLS) }));
}


// One row from its runs' {loadMs, first, first10, steady10}: medians, and the median of the
// runs' first10 / steady10; logged.
function summarise(label, workload, warmUp, runs, log) {
  const row = { workload, warmUp };
  const withRatio = runs.map((r) => ({ ...r, ratio: r.first10 / r.steady10 }));
  for (const k of ['loadMs', 'first', 'first10', 'steady10', 'ratio']) row[k] = percentile(withRatio.map((r) => r[k]), 0.5);
  log(`  ${label}${workload} warmUp ${warmUp}: load ${row.loadMs.toFixed(0)} ms, first call ${row.first.toFixed(1)} ms, first ten ${row.first10.toFixed(1)} ms = ${row.ratio.toFixed(2)}x ten steady (${row.steady10.toFixed(1)} ms)`);
  return row;
}

// The table of both sections.
function firstCallsTable(rows) {
  return [
    '| workload | load({ warmUp }) | load() ms | first call ms | first 10 calls ms | 10 steady calls ms | first 10 / steady 10 |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map((r) => `| ${r.workload} | ${r.warmUp} | ${r.loadMs.toFixed(0)} | ${r.first.toFixed(1)} | ${r.first10.toFixed(1)} | ${r.steady10.toFixed(1)} | ${r.ratio.toFixed(2)}x |`),
  ];
}

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
        runs.push(JSON.parse(execFileSync(process.execPath, [script, '--child', workload, String(warmUp)], { encoding: 'utf8' })));
      }
      rows.push(summarise('', workload, warmUp, runs, log));
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
    ...firstCallsTable(rows),
  ];
  return `${lines.join('\n')}\n`;
}

// In the page: load() timed, then `calls` calls of `op` timed by timeCalls (which the caller
// defines in the page first). Serialised into the page by page.evaluate, so it uses nothing
// of this module; its inputs are written out here (the page cannot import frame_calls.mjs).
async function pageRun({ op, warmUp, calls }) {
  const t0 = performance.now();
  const gs = await (await import('/js/browser.mjs')).load({ variant: 'simd', warmUp });
  const loadMs = performance.now() - t0;
  const S = 512;
  let call;
  if (op === 'warpAffine') {  // as web/demo's worker (worker_jobs.mjs): heap tensors made when the picture arrives
    const src = gs.tensor('uint8', [S, S, 4]);
    src.data.set(new Uint8Array(4 * S * S).map((_, i) => (i * 7919) % 251));
    const out = gs.tensor('uint8', [S, S, 4]);
    let f = 0;
    call = () => {
      const a = 0.01 * f++, s = 0.9;
      const theta = Float32Array.from([s * Math.cos(a), -s * Math.sin(a), 0.02, s * Math.sin(a), s * Math.cos(a), -0.03]);
      gs.warpAffine(src, theta, { out });
    };
  } else {
    const x = gs.tensorFrom({ data: new Float32Array(3 * S * S).map((_, i) => ((i * 7919) % 1000) / 1000), shape: [1, 3, S, S] });
    const g = gs.tensorFrom(gs.affineGrid({ data: Float32Array.from([0.86, -0.27, 0.02, 0.27, 0.86, -0.03]), shape: [1, 2, 3] }, [1, 3, S, S]));
    const out = gs.tensor('float32', [1, 3, S, S]);
    call = () => gs.gridSample(x, g, { out });
  }
  return { loadMs, ...timeCalls(call, calls) };
}

/**
 * The same rows in headless Chromium (fresh browser contexts; ops warpAffine, the demo's frame,
 * and gridSample, img2d), or {skipped: reason} without Chromium or playwright-core.
 */
export async function measureFirstCallsChromium(log = () => {}) {
  if (!existsSync(CHROMIUM)) return { skipped: `no Chromium at ${CHROMIUM} (GRIDSAMPLE_CHROMIUM names another)` };
  const { chromium } = await import('playwright-core');
  const server = await startDemoServer({ port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--no-first-run', '--disable-gpu'] });
  const rows = [];
  try {
    for (const op of ['warpAffine', 'gridSample']) {
      // 1000 ms: long enough here for V8's optimised code to arrive before the first call
      // (its compiler runs on background threads, which compete for this machine's 2 cores).
      for (const warmUp of [false, true, 1000]) {
        const runs = [];
        for (let k = 0; k < PAGES; ++k) {
          const context = await browser.newContext();
          try {
            const page = await context.newPage();
            await page.goto(new URL('/js/package.json', server.url).href);
            await page.evaluate(`globalThis.timeCalls = ${timeCalls}`);
            runs.push(await page.evaluate(pageRun, { op, warmUp, calls: PAGE_CALLS }));
          } finally {
            await context.close();
          }
        }
        const workload = op === 'warpAffine' ? "rgba 512x512 (the demo's frame)" : 'img2d';
        rows.push(summarise('Chromium ', workload, warmUp, runs, log));
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return { rows };
}

/** The report's section for measureFirstCallsChromium's result. */
export function renderFirstCallsChromium({ rows, skipped }) {
  const lines = [
    '## First calls in a fresh Chromium page',
    '',
    `Headless Chromium (${CHROMIUM}), each row the median over ${PAGES} new browser contexts (no cache: a first visit) of \`load()\`'s time, the first call, the first ten calls, and those ten against ten steady calls (target: at most 2x). The demo's frame: a 512x512 RGBA \`warpAffine\` on heap tensors made before the first call (as the demo's worker does), the angle moving per call; img2d: heap tensors and \`out\`. On this 2-core machine Chromium's own threads (its optimising compiler among them) compete with the page.`,
    '',
  ];
  if (skipped) return `${lines.join('\n')}Not measured: ${skipped}.\n`;
  return `${[...lines, ...firstCallsTable(rows)].join('\n')}\n`;
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4] === 'true');
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(renderFirstCalls(measureFirstCalls(console.error)));
  console.log(renderFirstCallsChromium(await measureFirstCallsChromium(console.error)));
}
