// Tiny calls (issue 47 item 3): an 8x8 GridSample, a 28x28 spatial transformer (AffineGrid then GridSample) and 8x8 RGBA image warps, 1,000 calls a round, us per call, unprepared and prepared (gs.prepareGridSample, gs.prepareAffineGrid), typed arrays and heap tensors; with --baseline, another checkout's package timed alternately in the same run.
//
//   node bench/js/tiny_calls.mjs [--baseline DIR]   # DIR: another checkout's js/ with its dist/ (built by make wasm)
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';

import { percentile } from './timing.mjs';

const CALLS = 1000;
const ROUNDS = 15;
const JS = fileURLToPath(new URL('../../js', import.meta.url));

// Deterministic values in [-1.1, 1.1).
const ramp = (n, seed) => Float32Array.from({ length: n }, (_, i) => (((i * 37 + seed * 11) % 101) / 101) * 2.2 - 1.1);

/**
 * The scenarios of one loaded module: name -> a function making one call. Prepared scenarios
 * are left out where the package has no prepare functions (a baseline from before them).
 */
function scenarios(gs) {
  const out = {};
  for (const side of [8, 28]) {
    const x = { data: ramp(side * side, 1), shape: [1, 1, side, side] };
    const grid = { data: ramp(side * side * 2, 2), shape: [1, side, side, 2] };
    const y = new Float32Array(side * side);
    const [hx, hg, hy] = [gs.tensorFrom(x), gs.tensorFrom(grid), gs.tensor('float32', [1, 1, side, side])];
    out[`gridSample ${side}x${side}, typed arrays`] = () => gs.gridSample(x, grid, { out: y });
    out[`gridSample ${side}x${side}, heap tensors`] = () => gs.gridSample(hx, hg, { out: hy });
    if (gs.prepareGridSample) {
      const prepared = gs.prepareGridSample(x, grid);
      out[`prepared gridSample ${side}x${side}, typed arrays`] = () => prepared.run(x, grid, { out: y });
      out[`prepared gridSample ${side}x${side}, heap tensors`] = () => prepared.run(hx, hg, { out: hy });
    }
  }
  // A spatial transformer's sampler on MNIST: theta (1, 2, 3) -> grid (1, 28, 28, 2) -> y.
  const theta = { data: Float32Array.from([0.9, -0.2, 0.05, 0.2, 0.9, -0.1]), shape: [1, 2, 3] };
  const size = [1, 1, 28, 28];
  const image = { data: ramp(28 * 28, 3), shape: size };
  const grid = new Float32Array(28 * 28 * 2);
  const y = new Float32Array(28 * 28);
  const gridTensor = { data: grid, shape: [1, 28, 28, 2] };
  out['spatial transformer 28x28 (affineGrid, gridSample)'] = () => {
    gs.affineGrid(theta, size, { out: grid });
    gs.gridSample(image, gridTensor, { out: y });
  };
  if (gs.prepareAffineGrid) {
    const grids = gs.prepareAffineGrid(theta, size);
    const sample = gs.prepareGridSample(image, gridTensor);
    out['prepared spatial transformer 28x28'] = () => {
      grids.run(theta, { out: grid });
      sample.run(image, gridTensor, { out: y });
    };
  }
  // An 8x8 RGBA image warped (an icon, a sprite): heap tensors, so that only the call is timed.
  if (gs.warpAffine) {
    const rgba = gs.tensorFrom({ data: Uint8Array.from(ramp(8 * 8 * 4, 4), (v) => Math.round((v + 1.1) * 100)), shape: [8, 8, 4] });
    const target = gs.tensor('uint8', [8, 8, 4]);
    const map = gs.tensorFrom({ data: ramp(8 * 8 * 2, 5).map((v) => (v + 1.1) * 3.5), shape: [8, 8, 2] });
    out['warpAffine 8x8 RGBA, heap tensors'] = () => gs.warpAffine(rgba, [0.9, -0.2, 0.05, 0.2, 0.9, -0.1], { out: target });
    out['warpAffine 8x8 RGBA in pixel space, heap tensors'] = () => gs.warpAffine(rgba, [0.9, -0.2, 1, 0.2, 0.9, -1], { space: 'pixel', out: target });
    out['remap 8x8 RGBA, heap tensors'] = () => gs.remap(rgba, map, undefined, { out: target });
  }
  return out;
}

/**
 * {calls, rounds, impls: {after, before?}, results: {scenario: {impl: {median, p90}}}}: us per
 * call, each round `calls` calls, the implementations alternating round by round.
 */
export async function measureTinyCalls({ baseline = null, log = () => {} } = {}) {
  const roots = { after: JS, ...(baseline ? { before: resolve(baseline) } : {}) };
  const impls = {};
  for (const [name, root] of Object.entries(roots)) {
    const { load } = await import(join(root, 'node.mjs'));
    impls[name] = scenarios(await load({ variant: 'simd' }));
  }
  const names = Object.keys(impls.after);
  const samples = {};
  for (const name of names) {
    samples[name] = {};
    for (const impl of Object.keys(impls)) if (impls[impl][name]) samples[name][impl] = [];
  }
  for (let round = -2; round < ROUNDS; ++round) { // two untimed rounds first
    for (const name of names) {
      for (const [impl, list] of Object.entries(samples[name])) {
        const call = impls[impl][name];
        const t = performance.now();
        for (let i = 0; i < CALLS; ++i) call();
        if (round >= 0) list.push((performance.now() - t) * 1000 / CALLS);
      }
    }
  }
  const results = {};
  for (const name of names) {
    results[name] = {};
    for (const [impl, list] of Object.entries(samples[name])) {
      results[name][impl] = { median: percentile(list, 0.5), p90: percentile(list, 0.9) };
    }
    log(`  ${name}: ${Object.entries(results[name]).map(([i, v]) => `${i} ${v.median.toFixed(2)} us`).join(', ')}`);
  }
  return { calls: CALLS, rounds: ROUNDS, impls: Object.keys(impls), results };
}

/** The report's section. */
export function renderTinyCalls(r) {
  const cell = (v) => (v ? `${v.median.toFixed(2)} (${v.p90.toFixed(2)})` : '-');
  return `${[
    '## Tiny calls: prepared and unprepared',
    '',
    `\`bench/js/tiny_calls.mjs\`: us per call, median (p90) of ${r.rounds} rounds of ${r.calls} calls, Node, the SIMD build, one thread. A prepared call (\`gs.prepareGridSample(...).run\`) crosses into the wasm once and allocates nothing; an unprepared one of shapes seen before three times (allocate, call, free) or once with heap tensors only (\`tests/js/prepared_calls.test.mjs\` counts them).${r.impls.length > 1 ? ' `before`: the baseline package given with `--baseline`, timed alternately in the same run.' : ''}`,
    '',
    `| call | ${r.impls.join(' | ')} |`,
    `| --- | ${r.impls.map(() => '---:').join(' | ')} |`,
    ...Object.entries(r.results).map(([name, v]) => `| ${name} | ${r.impls.map((i) => cell(v[i])).join(' | ')} |`),
  ].join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--baseline');
  console.log(renderTinyCalls(await measureTinyCalls({ baseline: at > 0 ? process.argv[at + 1] : null, log: console.error })));
}
