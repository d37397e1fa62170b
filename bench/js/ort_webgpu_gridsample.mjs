// onnxruntime-web's WebGPU GridSample beside ours on SwiftShader (issue 46 item 3): for GridSample models of every mode, padding and align (opset 16, 4-D float32), float16 and 5-D ones, whether onnxruntime-web's WebGPU provider runs each, how far its every element is from our wasm build, and the GPU readbacks per run of it alone and of gridsample/onnx's split on WebGPU. Correctness and coverage only: timings on SwiftShader mean nothing.
//
//   node bench/js/ort_webgpu_gridsample.mjs [--json]   # prints the section (or its rows); make bench includes it
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { load } from '../../js/node.mjs';
import { InferenceSession } from '../../js/onnx.mjs';
import { randomFeeds } from '../../js/onnx/timing.mjs';
import { f16ToNumber } from '../../tests/js/lib/halfs.mjs';
import { encodeModel } from '../../tests/js/lib/onnx_model.mjs';
import { countReadbacks, ortWebGpu } from '../../tests/js/lib/ort_webgpu.mjs';

// Opset 16's mode names (opset 20 renamed bilinear and bicubic).
const MODE_16 = { linear: 'bilinear', nearest: 'nearest', cubic: 'bicubic' };

/** The models: [{ label, opset, dtype, x, grid, attrs }]. */
function cases() {
  const list = [];
  for (const mode of ['linear', 'nearest', 'cubic']) {
    for (const padding of ['zeros', 'border', 'reflection']) {
      for (const align of [0, 1]) {
        list.push({ label: `4-D float32 ${mode} ${padding} align ${align}`, opset: 16, dtype: 'float32', x: [2, 3, 11, 13], grid: [2, 9, 7, 2], attrs: { mode: MODE_16[mode], padding_mode: padding, align_corners: align } });
      }
    }
  }
  for (const mode of ['linear', 'nearest', 'cubic']) {
    list.push({ label: `4-D float16 ${mode} zeros align 0`, opset: 16, dtype: 'float16', x: [2, 3, 11, 13], grid: [2, 9, 7, 2], attrs: { mode: MODE_16[mode], padding_mode: 'zeros', align_corners: 0 } });
  }
  list.push({ label: '5-D float32 linear zeros align 0 (opset 20)', opset: 20, dtype: 'float32', x: [1, 2, 5, 6, 7], grid: [1, 3, 4, 5, 3], attrs: { mode: 'linear', padding_mode: 'zeros', align_corners: 0 } });
  return list;
}

function model(c) {
  const y = [c.x[0], c.x[1], ...c.grid.slice(1, -1)];
  return encodeModel({
    opset: c.opset,
    irVersion: c.opset >= 20 ? 9 : 8,
    nodes: [{ op: 'GridSample', inputs: ['X', 'grid'], outputs: ['Y'], attrs: c.attrs }],
    inputs: [{ name: 'X', dtype: c.dtype, dims: c.x }, { name: 'grid', dtype: c.dtype, dims: c.grid }],
    outputs: [{ name: 'Y', dtype: c.dtype, dims: y }],
  });
}

// Readbacks of one run, after a first.
async function readbacks(session, feeds) {
  await session.run(feeds);
  const [, count] = await countReadbacks(() => session.run(feeds));
  return count;
}

// Values of an onnxruntime tensor as numbers (float16 bits as their value).
const numbers = (t) => (t.type === 'float16' ? Array.from(t.data, f16ToNumber) : Array.from(t.data));

// One row per case: { label, runs: true | error, maxDiff, off, count, readbacks: { alone, split } }.
async function measureHere(log) {
  const { skip, ort } = await ortWebGpu('ort.webgpu.mjs');
  if (skip) return { error: `no WebGPU here: ${skip}` };
  const gs = await load({ variant: 'simd' });
  const rows = [];
  for (const c of cases()) {
    const bytes = model(c);
    const row = { label: c.label };
    const split = await InferenceSession.create(bytes, { ort, gridsample: gs, executionProviders: ['webgpu'] });
    const feeds = randomFeeds(ort, split.inputMetadata, { ranges: { grid: [-1.2, 1.2] }, seed: 46 });
    // The oracle: our wasm build on the same values.
    const oracle = await InferenceSession.create(bytes, { ort, gridsample: gs, executionProviders: ['wasm'] });
    const want = numbers((await oracle.run(feeds)).Y);
    await oracle.release();
    row.readbacks = { split: await readbacks(split, feeds) };
    await split.release();
    let alone;
    try {
      alone = await ort.InferenceSession.create(bytes, { executionProviders: ['webgpu'] });
      const got = numbers((await alone.run(feeds)).Y);
      const tolerance = c.dtype === 'float16' ? 2 ** -10 : 1e-5;
      let maxDiff = 0;
      let off = 0;
      for (let i = 0; i < want.length; ++i) {
        const d = Math.abs(got[i] - want[i]);
        if (!(d <= tolerance * Math.max(1, Math.abs(want[i])))) off += 1;
        if (d > maxDiff || Number.isNaN(d)) maxDiff = Number.isNaN(d) ? NaN : d;
      }
      Object.assign(row, { runs: true, maxDiff, off, count: want.length });
      row.readbacks.alone = await readbacks(alone, feeds);
    } catch (e) {
      // onnxruntime's own reason, after its OrtRun() preamble.
      const message = String(e?.message ?? e).replace(/\s+/g, ' ');
      const at = message.indexOf('Status Message: ');
      row.runs = (at >= 0 ? message.slice(at + 16) : message).slice(0, 200);
    } finally {
      await alone?.release();
    }
    log(`  ${c.label}: ${row.runs === true ? `max |diff| ${row.maxDiff}, ${row.off} of ${row.count} off` : `fails: ${row.runs}`}`);
    rows.push(row);
  }
  return { version: ort.env.versions?.web ?? '?', rows };
}

/** The section "onnxruntime-web's WebGPU GridSample and ours (SwiftShader)". */
export function renderOrtWebGpu(result) {
  const out = [
    "## onnxruntime-web's WebGPU GridSample and ours (SwiftShader)",
    '',
    'GridSample models (X 2x3x11x13 at a 2x9x7 grid in [-1.2, 1.2]; opset 16 unless said) on onnxruntime-web\'s WebGPU',
    'provider alone and through gridsample/onnx on WebGPU, in Node on SwiftShader (the npm package webgpu): whether',
    'onnxruntime runs each, its largest difference from our wasm build over every element and how many elements',
    'are off by more than 1e-5 (float16: 2^-10) of their scale, and GPU readbacks per run (outputs on the CPU; 0',
    'alone where onnxruntime ran the node on its CPU instead).',
    'Coverage and correctness only; `bench/js/ort_webgpu_gridsample.mjs`.',
    '',
  ];
  if (result.error) return [...out, `Not measured: ${result.error}`, ''].join('\n');
  out.push(`onnxruntime-web ${result.version}.`, '',
    '| model | onnxruntime-web WebGPU | max \\|diff\\| from gridsample | elements off | readbacks per run: alone / split |',
    '| --- | --- | ---: | ---: | ---: |');
  for (const r of result.rows) {
    const runs = r.runs === true ? 'runs' : `fails: ${r.runs.replace(/\|/g, '\\|')}`;
    const diff = r.runs === true ? r.maxDiff.toExponential(1) : '';
    const off = r.runs === true ? `${r.off} of ${r.count}` : '';
    out.push(`| ${r.label} | ${runs} | ${diff} | ${off} | ${r.readbacks.alone ?? '-'} / ${r.readbacks.split} |`);
  }
  out.push('');
  return out.join('\n');
}

/**
 * The rows, measured in a process of their own: onnxruntime-web's WebGPU build needs
 * navigator.gpu and V8's --liftoff-only (tests/js/lib/ort_webgpu.mjs), which would slow every
 * wasm module the bench compiles after it.
 */
export function measureOrtWebGpu({ log = () => {} } = {}) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600000 });
  if (r.status !== 0) return { error: `its process exited with ${r.status ?? r.signal}: ${(r.stderr ?? '').trim().split('\n').at(-1)}` };
  const result = JSON.parse(r.stdout);
  for (const row of result.rows ?? []) log(`  ${row.label}: ${row.runs === true ? `max |diff| ${row.maxDiff}, ${row.off} of ${row.count} off` : `fails: ${row.runs}`}`);
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await measureHere(process.argv.includes('--json') ? () => {} : console.error);
  console.log(process.argv.includes('--json') ? JSON.stringify(result) : renderOrtWebGpu(result));
  process.exit(0);
}
