// What a gridsample/webgpu call costs around its kernel (issue 46 item 1): every dispatch cut to 0 workgroups (GPUComputePassEncoder's dispatchWorkgroups wrapped), so that only the WebGPU API and JavaScript remain, in headless Chromium on SwiftShader and in Node with Dawn; hand-written WebGPU floors beside them. SwiftShader's kernel timings mean nothing; these are host costs.
//
//   node bench/js/gpu_call_cost.mjs [--json] [--baseline DIR]   # DIR: another checkout's js/ (git worktree), measured in the same run, round by round in turn
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { WEBGPU_FLAGS } from '../../tests/js/lib/chromium_webgpu.mjs';
import { nodeWebGpu } from '../../tests/js/lib/node_webgpu.mjs';
import { serveStatic } from '../../tests/js/lib/static_server.mjs';
import { percentile } from './timing.mjs';

const CHROMIUM = process.env.GRIDSAMPLE_CHROMIUM || '/usr/bin/chromium';
const CALLS = 200;
const ROUNDS = 15;
const REPEATS = 3;
const JS = fileURLToPath(new URL('../../js', import.meta.url));

/**
 * Per implementation (`impls`: name -> {gs, gpu, device}), per-call microseconds {median, p90}
 * over `rounds` rounds of `calls` calls (a 1x3x64x64 float32 gridSample into one `out`; the
 * grid, x and out on the GPU): awaited one by one then one read(); all issued, then awaited
 * together and one read(); each awaited and read. Also hand-written floors: an error scope
 * pushed and awaited; a cached bind group in an encoder of its own, submitted; all dispatches
 * in one pass. The implementations take turns round by round (the order alternating), so that
 * a shared machine's load falls on both alike. Self-contained: the page runs it too.
 */
async function callCosts(impls, { calls, rounds }) {
  const pass = GPUComputePassEncoder.prototype;
  const dispatch = pass.dispatchWorkgroups;
  pass.dispatchWorkgroups = function zero() { return dispatch.call(this, 0, 0, 0); };
  const S = 64;
  const tensors = [];
  const scenariosOf = async ({ gs, gpu, device }) => {
    const x = gpu.upload({ data: new Float32Array(3 * S * S).map((_, i) => i % 7), shape: [1, 3, S, S] });
    const grid = gpu.upload(gs.affineGrid({ data: Float32Array.from([0.9, -0.2, 0.01, 0.2, 0.9, -0.02]), shape: [1, 2, 3] }, [1, 3, S, S]));
    const out = await gpu.gridSample(x, grid);
    tensors.push(x, grid, out);
    await gpu.read(out);
    const module = device.createShaderModule({ code: '@group(0) @binding(0) var<storage, read_write> y: array<f32>; @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) { y[g.x] = 1.0; }' });
    const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: out.buffer } }] });
    const record = (p) => { p.setPipeline(pipeline); p.setBindGroup(0, group); p.dispatchWorkgroups(1); };
    return {
      awaited: async () => {
        for (let i = 0; i < calls; ++i) await gpu.gridSample(x, grid, { out });
        await gpu.read(out);
      },
      issued: async () => {
        const all = [];
        for (let i = 0; i < calls; ++i) all.push(gpu.gridSample(x, grid, { out }));
        await Promise.all(all);
        await gpu.read(out);
      },
      read: async () => {
        for (let i = 0; i < calls / 10; ++i) {
          await gpu.gridSample(x, grid, { out });
          await gpu.read(out);
        }
      },
      scope: async () => {
        for (let i = 0; i < calls; ++i) {
          device.pushErrorScope('validation');
          await device.popErrorScope();
        }
      },
      submit: async () => {
        for (let i = 0; i < calls; ++i) {
          const e = device.createCommandEncoder();
          const p = e.beginComputePass();
          record(p);
          p.end();
          device.queue.submit([e.finish()]);
          await null;
        }
        await device.queue.onSubmittedWorkDone();
      },
      onePass: async () => {
        const e = device.createCommandEncoder();
        const p = e.beginComputePass();
        for (let i = 0; i < calls; ++i) record(p);
        p.end();
        device.queue.submit([e.finish()]);
        await device.queue.onSubmittedWorkDone();
      },
    };
  };
  const result = {};
  try {
    const scenarios = {};
    for (const [impl, api] of Object.entries(impls)) {
      scenarios[impl] = await scenariosOf(api);
      result[impl] = {};
    }
    const names = Object.keys(impls);
    for (const name of Object.keys(Object.values(scenarios)[0])) {
      const per = name === 'read' ? calls / 10 : calls;
      const times = Object.fromEntries(names.map((impl) => [impl, []]));
      for (const impl of names) await scenarios[impl][name]();
      for (let r = 0; r < rounds; ++r) {
        for (const impl of r % 2 ? [...names].reverse() : names) {
          const t0 = performance.now();
          await scenarios[impl][name]();
          times[impl].push(((performance.now() - t0) * 1000) / per);
        }
      }
      for (const impl of names) {
        const t = times[impl].sort((a, b) => a - b);
        result[impl][name] = { median: t[t.length >> 1], p90: t[Math.floor(0.9 * (t.length - 1))] };
      }
    }
  } finally {
    pass.dispatchWorkgroups = dispatch;
    for (const t of tensors) t.dispose();
  }
  return result;
}

// The page's run: the packages under `roots` (name -> a path the server serves), each on a
// device of its own.
async function pageRun({ roots, calls, rounds, costs }) {
  const impls = {};
  for (const [impl, root] of Object.entries(roots)) {
    const { load } = await import(`${root}/browser.mjs`);
    const { createGpu } = await import(`${root}/webgpu/index.mjs`);
    const gs = await load({ variant: 'simd' });
    const device = await (await navigator.gpu.requestAdapter()).requestDevice();
    impls[impl] = { gs, gpu: await createGpu({ device, wasm: gs }), device };
  }
  const measure = new Function(`return (${costs})`)();
  try {
    return await measure(impls, { calls, rounds });
  } finally {
    for (const { device } of Object.values(impls)) device.destroy();
  }
}

// Per implementation ('after': this checkout; 'before': the baseline), the rounds of every
// repeat pooled: {median, p90} per scenario.
function pool(runs) {
  const out = {};
  for (const [impl, list] of Object.entries(runs)) {
    out[impl] = {};
    for (const name of Object.keys(list[0])) {
      out[impl][name] = { median: percentile(list.map((r) => r[name].median), 0.5), p90: percentile(list.map((r) => r[name].p90), 0.5) };
    }
  }
  return out;
}


async function measureChromium(roots, log) {
  if (!existsSync(CHROMIUM)) return { skipped: `no Chromium at ${CHROMIUM}` };
  const { chromium } = await import('playwright-core');
  const dir = mkdtempSync(join(tmpdir(), 'gs-call-cost-'));
  for (const [impl, root] of Object.entries(roots)) symlinkSync(root, join(dir, impl));
  const server = await serveStatic(dir);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', ...WEBGPU_FLAGS] });
  const runs = Object.fromEntries(Object.keys(roots).map((k) => [k, []]));
  try {
    const page = await browser.newPage();
    await page.goto(`${server.origin}/after/package.json`);
    const served = Object.fromEntries(Object.keys(roots).map((impl) => [impl, `/${impl}`]));
    for (let k = 0; k < REPEATS; ++k) {
      const r = await page.evaluate(pageRun, { roots: served, calls: CALLS, rounds: ROUNDS, costs: String(callCosts) });
      for (const impl of Object.keys(roots)) {
        runs[impl].push(r[impl]);
        log(`  Chromium ${impl}, repeat ${k + 1}: awaited ${r[impl].awaited.median.toFixed(1)} us per call`);
      }
    }
  } finally {
    await browser.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return pool(runs);
}

async function measureNode(roots, log) {
  const setup = await nodeWebGpu();
  if (setup.skip) return { skipped: setup.skip };
  const runs = Object.fromEntries(Object.keys(roots).map((k) => [k, []]));
  const apis = {};
  for (const [impl, root] of Object.entries(roots)) {
    apis[impl] = { load: (await import(join(root, 'node.mjs'))).load, createGpu: (await import(join(root, 'webgpu/index.mjs'))).createGpu };
  }
  for (let k = 0; k < REPEATS; ++k) {
    const impls = {};
    for (const [impl, api] of Object.entries(apis)) {
      const device = await (await setup.gpu.requestAdapter()).requestDevice();
      const gs = await api.load({ variant: 'simd' });
      impls[impl] = { gs, gpu: await api.createGpu({ device, wasm: gs }), device };
    }
    const r = await callCosts(impls, { calls: CALLS, rounds: ROUNDS });
    for (const [impl, { device }] of Object.entries(impls)) {
      device.destroy();
      runs[impl].push(r[impl]);
      log(`  Node ${impl}, repeat ${k + 1}: awaited ${r[impl].awaited.median.toFixed(1)} us per call`);
    }
  }
  return pool(runs);
}

// Both hosts, in this process.
async function measureHere(baseline, log) {
  const roots = { after: JS, ...(baseline ? { before: resolve(baseline) } : {}) };
  return { calls: CALLS, rounds: ROUNDS, repeats: REPEATS, chromium: await measureChromium(roots, log), node: await measureNode(roots, log) };
}

/**
 * {chromium, node}: per host, per implementation ('after', and 'before' with a baseline), per
 * scenario {median, p90} in us per call. In a process of its own (Dawn prints a warning per
 * device of 0-workgroup dispatches on its stdout), its progress lines passed to `log`.
 */
export function measureGpuCallCost({ baseline = null, log = () => {} } = {}) {
  const args = [fileURLToPath(import.meta.url), '--json', ...(baseline ? ['--baseline', baseline] : [])];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 600000 });
  for (const line of (r.stderr ?? '').split('\n').filter((l) => l.startsWith('  '))) log(line);
  // Dawn's warnings end without a newline: the result may follow one on its line.
  const out = r.stdout ?? '';
  const json = out.includes('{"calls"') ? out.slice(out.lastIndexOf('{"calls"')).split('\n')[0] : null;
  if (r.status !== 0 || !json) {
    const why = `its process exited with ${r.status ?? r.signal}: ${(r.stderr ?? '').trim().split('\n').at(-1)}`;
    return { calls: CALLS, rounds: ROUNDS, repeats: REPEATS, chromium: { skipped: why }, node: { skipped: why } };
  }
  return JSON.parse(json);
}

const LABELS = {
  awaited: `\`await gpu.gridSample(x, grid, { out })\` one by one, then one \`read()\``,
  issued: `${CALLS} calls issued, then awaited together and one \`read()\``,
  read: 'each call awaited and read back (`read()`)',
  scope: 'floor: one error scope pushed and awaited',
  submit: 'floor: a cached bind group in an encoder of its own, submitted',
  onePass: 'floor: all dispatches in one pass, one submission',
};

/** The report's section. */
export function renderGpuCallCost(r) {
  const hosts = [['Chromium (SwiftShader)', r.chromium], ['Node (Dawn, SwiftShader)', r.node]].filter(([, h]) => !h.skipped);
  const impls = hosts.length ? Object.keys(hosts[0][1]) : [];
  const cell = (v) => (v ? `${v.median.toFixed(1)} (${v.p90.toFixed(1)})` : '-');
  const lines = [
    '## WebGPU: the cost of a call around its kernel',
    '',
    `\`bench/js/gpu_call_cost.mjs\`: every dispatch cut to 0 workgroups, so that only the WebGPU API and JavaScript remain; us per call, median (p90) of ${r.rounds} rounds of ${r.calls} calls, ${r.repeats} repeats (a 1x3x64x64 float32 gridSample into one \`out\`, inputs on the GPU; with a baseline, the two take turns round by round). Calls on buffers bound before are batched: no error scope per call, bind groups and uniform blocks reused, a pipeline or bind group set only where it changes, one submission per task (or per 64 calls); a call repeating the last into its \`out\` (the same tensors of ours and options) skips its argument checks; targets <= 20 us per awaited call and <= 3 us per call issued together, in Chromium.`,
    '',
    `| per call | ${hosts.flatMap(([h]) => impls.map((i) => `${h}${impls.length > 1 ? `, ${i}` : ''}`)).join(' | ')} |`,
    `| --- | ${hosts.flatMap(() => impls.map(() => '---:')).join(' | ')} |`,
    ...Object.entries(LABELS).map(([k, label]) => `| ${label} | ${hosts.flatMap(([, h]) => impls.map((i) => cell(h[i]?.[k]))).join(' | ')} |`),
  ];
  for (const [name, h] of [['Chromium', r.chromium], ['Node', r.node]]) if (h.skipped) lines.push('', `${name}: not measured (${h.skipped}).`);
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--baseline');
  const result = await measureHere(at > 0 ? process.argv[at + 1] : null, console.error);
  console.log(process.argv.includes('--json') ? JSON.stringify(result) : renderGpuCallCost(result));
  process.exit(0);
}
