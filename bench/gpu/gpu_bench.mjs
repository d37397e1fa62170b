#!/usr/bin/env node
// gridsample/webgpu on a real GPU (Node, the npm package webgpu: Dawn on Vulkan): times the standard workloads and writes their inputs, outputs and times for torch_bench.py, which runs PyTorch's CUDA grid_sample on the same data and GPU (bench/gpu/README.md). On SwiftShader the times mean nothing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { load } from '../../js/node.mjs';
import { createGpu } from '../../js/webgpu/index.mjs';
import { percentile } from '../js/timing.mjs';
import { makeWorkloads } from '../js/workloads.mjs';

const USAGE = `usage: node bench/gpu/gpu_bench.mjs --out DIR [--only a,b] [--batch K] [--rounds R]
  Times gridsample/webgpu's GridSample on img2d, cubic2d, vol3d, cubic3d and the LivePortrait
  5-D warp (live5d) and writes DIR/manifest.json with each workload's inputs and output (.bin,
  float32), shapes, options and times. Environment: VK_ICD_FILENAMES may pick the Vulkan driver.`;

const { values: args } = parseArgs({
  options: { out: { type: 'string' }, only: { type: 'string' }, batch: { type: 'string', default: '20' }, rounds: { type: 'string', default: '15' }, help: { type: 'boolean' } },
});
if (args.help || !args.out) {
  console.log(USAGE);
  process.exit(args.help ? 0 : 2);
}
const BATCH = Number(args.batch);
const ROUNDS = Number(args.rounds);

// The LivePortrait warp: vol3d's feature volume sampled along a dense deformation (vol3d's
// affine grid bent by smooth offsets of up to 0.05), as the example model's grid input.
function live5d(vol) {
  const grid = new Float32Array(vol.grid.data);
  for (let i = 0; i < grid.length; ++i) grid[i] += 0.05 * Math.sin(0.37 * i) * Math.cos(0.011 * i);
  return { ...vol, name: 'live5d', summary: 'LivePortrait 5-D warp: 1x32x16x64x64 along a bent 1x16x64x64x3 grid, trilinear/zeros', grid: { data: grid, shape: vol.grid.shape } };
}

const all = makeWorkloads();
const byName = new Map(all.map((w) => [w.name, w]));
const chosen = [byName.get('img2d'), byName.get('cubic2d'), byName.get('vol3d'), byName.get('cubic3d'), live5d(byName.get('vol3d'))]
  .filter((w) => !args.only || args.only.split(',').includes(w.name));

// The npm package webgpu: beside this script (run_on_device.sh puts it there), else the tests'.
const { create, globals } = await import('webgpu').catch(() => import('../../tests/js/node_modules/webgpu/index.js'));
Object.assign(globalThis, globals);
const navigatorGpu = create([]);
globalThis.keepGpu = navigatorGpu; // collected, it would abort the process
const adapter = await navigatorGpu.requestAdapter({ powerPreference: 'high-performance' });
if (!adapter) throw new Error('no WebGPU adapter (VK_ICD_FILENAMES, libvulkan1?)');
const { maxStorageBufferBindingSize, maxBufferSize } = adapter.limits;
const device = await adapter.requestDevice({ requiredLimits: { maxStorageBufferBindingSize, maxBufferSize } });
const gpu = await createGpu({ device, wasm: await load() });
const info = adapter.info;
console.log(`adapter: ${info.vendor} ${info.architecture} ${info.device} ${info.description}`);

const done = () => device.queue.onSubmittedWorkDone();

mkdirSync(args.out, { recursive: true });
const manifest = { adapter: { vendor: info.vendor, architecture: info.architecture, device: info.device, description: info.description }, batch: BATCH, rounds: ROUNDS, workloads: [] };
for (const w of chosen) {
  const options = { mode: w.mode, paddingMode: w.paddingMode, alignCorners: w.alignCorners };
  const x = gpu.upload(w.x);
  const grid = gpu.upload(w.grid);
  const out = await gpu.gridSample(x, grid, options);
  for (let i = 0; i < 3; ++i) await gpu.gridSample(x, grid, { ...options, out });
  await done();
  // A call as an application makes it (submitted alone, waited for), and the kernel's own time:
  // BATCH calls recorded into one encoder, one submission, divided by BATCH.
  const single = [];
  const batched = [];
  for (let r = 0; r < ROUNDS; ++r) {
    let t0 = performance.now();
    await gpu.gridSample(x, grid, { ...options, out });
    await done();
    single.push(performance.now() - t0);
    const encoder = device.createCommandEncoder();
    for (let i = 0; i < BATCH; ++i) await gpu.gridSample(x, grid, { ...options, out, encoder });
    t0 = performance.now();
    device.queue.submit([encoder.finish()]);
    await done();
    batched.push((performance.now() - t0) / BATCH);
  }
  const y = await gpu.read(out);
  for (const [suffix, data] of [['x', w.x.data], ['grid', w.grid.data], ['y', y.data]]) {
    writeFileSync(join(args.out, `${w.name}.${suffix}.bin`), new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }
  const entry = {
    name: w.name, summary: w.summary, options, tol: w.tol,
    x: w.x.shape, grid: w.grid.shape, y: y.shape,
    webgpu: { callMedianMs: percentile(single, 0.5), callP90Ms: percentile(single, 0.9), kernelMedianMs: percentile(batched, 0.5), kernelP90Ms: percentile(batched, 0.9) },
  };
  manifest.workloads.push(entry);
  console.log(`${w.name}: call ${entry.webgpu.callMedianMs.toFixed(3)} ms (p90 ${entry.webgpu.callP90Ms.toFixed(3)}), kernel ${entry.webgpu.kernelMedianMs.toFixed(3)} ms (p90 ${entry.webgpu.kernelP90Ms.toFixed(3)})`);
  for (const t of [x, grid, out]) t.dispose();
}
writeFileSync(join(args.out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`wrote ${join(args.out, 'manifest.json')}`);
process.exit(0);
