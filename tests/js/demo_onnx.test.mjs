// Browser test of web/demo/onnx.html in headless Chromium: every example model's plan and split session against onnxruntime-web on the wasm and WebGPU execution providers, the split session in a module worker, and malformed model files.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

import * as ort from 'onnxruntime-web';

import { load } from '../../js/node.mjs';
import { InferenceSession } from '../../js/onnx.mjs';
import { randomFeeds } from '../../js/onnx/timing.mjs';
import { startDemoServer } from '../../web/demo/server.mjs';
import { WEBGPU_FLAGS, within } from './lib/chromium_webgpu.mjs';
import { skip } from './lib/node_webgpu.mjs';
import { TIMED_REASON } from './lib/placement_reasons.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const DEMO = join(HERE, '..', '..', 'web', 'demo');
const OUTPUT = join(HERE, 'output');
const CHROMIUM = process.env.GRIDSAMPLE_CHROMIUM || '/usr/bin/chromium';
const EXAMPLES = JSON.parse(readFileSync(join(DEMO, 'models', 'index.json'), 'utf8')).models;
// Our nodes: GridSample, AffineGrid, and on wasm a deformable-attention chain fused into one node.
const OUR_OPS = new Set(['GridSample', 'AffineGrid', 'MultiScaleDeformableAttention']);

ort.env.wasm.numThreads = 1;

// The page's split session against onnxruntime-web's own: float32 models within 1e-4; float16
// ones within a float16 unit in the last place at 1 (onnxruntime samples float16 in float32
// and does not round to float16: index.json's note).
const tolerance = (entry) => (entry.inputs.some((i) => i.dtype === 'float16') ? 2 ** -11 : 1e-4);

// On WebGPU (SwiftShader, on the CPU) a run takes seconds: flow_warp runs at a smaller shape
// (it leaves H and W open), and the two models with large fixed shapes are left out; their data
// paths (onnxruntime part -> GridSample nodes -> onnxruntime part, GridSample -> onnxruntime)
// are stn28's, gridsample_1d's and gridsample_3d_cubic's.
const WEBGPU_DIMS = { 'flow_warp.onnx': { image: [1, 3, 64, 96], flow: [1, 2, 64, 96] } };
const WEBGPU_LEFT_OUT = new Set(['deformable_attention.onnx', 'liveportrait_warp.onnx']);

// onnxruntime's message quoted in index.json's `why`, e.g. 'Only 4-D or 5-D tensor is supported'.
const quotedReason = (entry) => /\('([^']+)'\)/.exec(entry.why)?.[1];

let server;
let browser;
let gs;
// file -> the plans gridsample/onnx makes in Node for either outcome of placement 'auto' (which
// times both on the machine it runs on, so the page may choose either): `onnxruntime`, after a
// first run at index.json's shapes (every node onnxruntime can run left to it); `split`, every
// node of ours on gridsample, as on WebGPU, where placement keeps the split.
const plans = new Map();

before(async () => {
  // The page's vendor/ (the bundled worker), as `make demo` builds it.
  try {
    execFileSync(process.execPath, [join(DEMO, 'vendor.mjs')], { stdio: 'pipe' });
  } catch (e) {
    throw new Error(`node web/demo/vendor.mjs failed (scripts/npm_ci.sh web/demo installs what it needs): ${e.stderr}`, { cause: e });
  }
  gs = await load();
  for (const entry of EXAMPLES) {
    const bytes = readFileSync(join(DEMO, 'models', entry.file));
    const session = await InferenceSession.create(bytes, { ort, gridsample: gs, executionProviders: ['wasm'], placement: 'onnxruntime' });
    const dims = Object.fromEntries(entry.inputs.map((t) => [t.name, t.dims]));
    await session.run(randomFeeds(ort, session.inputMetadata, { dims }));
    const split = await InferenceSession.create(bytes, { ort, gridsample: gs, executionProviders: ['wasm'], placement: 'gridsample' });
    plans.set(entry.file, { onnxruntime: session.plan(), split: split.plan() });
    await Promise.all([session.release(), split.release()]);
  }
  server = await startDemoServer({ port: 0 });
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', ...WEBGPU_FLAGS],
  });
});

after(async () => {
  if (shared) await shared.then(({ page }) => page.close(), () => {});
  if (browser) await browser.close();
  if (server) await server.close();
});

// Opens onnx.html and waits for its first model; `problems` collects page errors, failed
// requests and console errors (onnxruntime's own log lines aside: it logs what it falls back
// on, and the page shows its failures itself).
async function openPage(query = '?runs=1&warmup=0') {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/\[[WE]:onnxruntime:/.test(m.text())) problems.push(`console error: ${m.text()}`);
  });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  page.on('crash', () => problems.push('the page crashed'));
  await page.goto(`${server.url}onnx.html${query}`);
  try {
    await page.waitForFunction(() => ['done', 'error'].includes(window.__onnxResults?.status) && window.__onnxResults.ready, null, { timeout: 60000 });
  } catch (e) {
    throw new Error(`the page did not finish its first model: ${e.message}\npage problems: ${problems.join('\n') || 'none'}`, { cause: e });
  }
  return { page, problems };
}

// The isolated page (the server's default), opened once for the tests after the first (each
// opening loads onnxruntime-web and times the first model: 8 s): each test opens the model it
// needs with its execution provider, and checks its page problems, those of the tests before it
// included.
let shared;
const sharedPage = () => (shared ??= openPage());

// The page's results for one example on one execution provider (a copy, functions left out).
async function results(page, file, ep, dims, problems) {
  await within(240, `${file} on ${ep}`, page.evaluate(([f, e, d]) => window.__onnxResults.open(f, e, d), [file, ep, dims]), problems);
  return page.evaluate(() => JSON.parse(JSON.stringify(window.__onnxResults)));
}

// The example the page shows on wasm at index.json's shapes, as it opens the first one by itself
// (null once it has been asked for anything else): what results() would open again.
const shownOnWasm = (page) => page.evaluate(() => {
  const h = window.__onnxResults;
  return h.status === 'done' && h.ep === 'wasm' && h.seq === 1 ? h.file : null;
});

// results(), or the page's results as they are where it shows `file` on wasm already.
async function resultsOnWasm(page, file, problems) {
  if (await shownOnWasm(page) === file) return page.evaluate(() => JSON.parse(JSON.stringify(window.__onnxResults)));
  return results(page, file, 'wasm', undefined, problems);
}

const text = async (page, selector) => (await page.locator(selector).textContent()).trim();

// What every comparison must show: the plan Node makes, in the table too, and the split
// session's outputs equal to onnxruntime-web's, or onnxruntime-web's error where it fails.
async function checkExample(page, entry, r, ep) {
  const what = `${entry.file} (${ep})`;
  assert.equal(r.status, 'done', `${what}: ${r.error}`);
  assert.equal(r.file, entry.file);
  assert.equal(r.ep, ep);
  // Where our parts run depends on the provider: on WebGPU with 'webgpu', else on wasm; on WebGPU
  // the split is kept. Placement 'auto' on wasm keeps what it measured faster in the page: the
  // plan is Node's for the same outcome, less the reasons (the page's carry its times).
  const placed = (plan) => ({
    ...plan,
    placement: undefined,
    parts: plan.parts.map(({ backend: _b, why: _w, ...p }) => ({ ...p, nodes: p.nodes.map((n) => ({ ...n, placement: n.placement?.runsOn })) })),
  });
  const moved = r.plan.parts.some((p) => p.nodes.some((n) => n.placement?.runsOn === 'onnxruntime'));
  const expected = plans.get(entry.file)[moved ? 'onnxruntime' : 'split'];
  assert.deepEqual(placed(r.plan), placed(expected), `${what}: the page's plan is the one gridsample/onnx makes in Node`);
  const ours = r.plan.parts.filter((p) => p.runsOn === 'gridsample');
  for (const p of ours) assert.equal(p.backend, ep === 'webgpu' ? 'webgpu' : 'wasm', `${what}: part ${p.part} runs on ${p.backend} (${p.why})`);
  if (ep === 'webgpu') assert.equal(moved, false, `${what}: on WebGPU the split is kept`);
  for (const p of ours) assert.ok(Object.keys(p.ops).every((op) => OUR_OPS.has(op)), `${what}: part ${p.part} on gridsample has ${Object.keys(p.ops)}`);
  assert.equal(await page.locator('#plan tbody tr').count(), r.plan.parts.length, `${what}: plan rows`);
  assert.equal(await page.locator('#plan tbody tr.gridsample').count(), ours.length, `${what}: highlighted gridsample rows`);
  assert.equal(r.parts.length, r.plan.parts.length, `${what}: per-part times`);
  assert.ok(r.split.median > 0 && r.split.runs > 0, `${what}: split session times ${JSON.stringify(r.split)}`);
  assert.equal(await page.locator('#chart rect.bar.gridsample').count(), ours.length + 1, `${what}: chart bars of the gridsample parts (and the legend's)`);

  if (r.onnxruntime.error) {
    assert.equal(entry.onnxruntimeRuns, false, `${what}: onnxruntime-web failed on a model it runs: ${r.onnxruntime.error}`);
    assert.ok(r.onnxruntime.error.includes(quotedReason(entry)), `${what}: onnxruntime-web's error '${r.onnxruntime.error}' is not index.json's '${quotedReason(entry)}'`);
    assert.ok(await page.locator('#ort-error').isVisible(), `${what}: onnxruntime-web's error is not shown`);
    assert.ok((await text(page, '#ort-error')).includes(r.onnxruntime.error));
    assert.equal(await text(page, '#fig-ort'), 'fails');
    assert.equal(r.outputs, null);
    return;
  }
  assert.equal(entry.onnxruntimeRuns, true, `${what}: onnxruntime-web runs a model index.json says it cannot`);
  assert.ok(r.onnxruntime.median > 0, `${what}: onnxruntime-web times ${JSON.stringify(r.onnxruntime)}`);
  assert.deepEqual(Object.keys(r.outputs).sort(), entry.outputs.map((o) => o.name).sort());
  for (const [name, o] of Object.entries(r.outputs)) {
    assert.ok(o.maxAbsDiff <= tolerance(entry), `${what}: output ${name} differs from onnxruntime-web's by ${o.maxAbsDiff} (tolerance ${tolerance(entry)})`);
  }
  assert.match(await text(page, '#diff'), /^Largest \|onnxruntime-web − split\| per output: /);
  assert.equal(Number(await text(page, '#fig-ratio')).toFixed(2), (r.onnxruntime.median / r.split.median).toFixed(2));
}

describe('web/demo/onnx.html in headless Chromium', () => {
  test('every example on the wasm execution provider: the plan, and the split session equals onnxruntime-web or runs where it fails', async () => {
    // The server isolates its pages (COOP/COEP) unless asked not to: most sites are not.
    const { page, problems } = await openPage('?runs=1&warmup=0&isolated=0');
    assert.deepEqual(await page.evaluate(() => window.__onnxResults.examples), EXAMPLES.map((m) => m.file));
    assert.equal(await page.evaluate(() => self.crossOriginIsolated), false, 'the page must work without cross-origin isolation');
    // Unbundled: the package's own files and its generated ONNX schema, @bufbuild/protobuf's ES
    // modules through the import map, onnxruntime-web's .mjs build.
    for (const path of ['/js/onnx.mjs', '/js/onnx/timing.mjs', '/js/browser.mjs', '/js/dist/gridsample-simd.wasm', '/js/dist/onnx_pb.mjs',
      '/web/demo/node_modules/@bufbuild/protobuf/dist/esm/index.js', '/web/demo/node_modules/@bufbuild/protobuf/dist/esm/codegenv2/index.js',
      '/web/demo/node_modules/onnxruntime-web/dist/ort.webgpu.min.mjs']) {
      assert.ok(server.requests.includes(path), `${path} not requested`);
    }
    // The spatial transformer at 28x28 and flow_warp: placement 'auto' timed whole runs of the
    // split and of onnxruntime alone in the page, kept the faster, and the page says so.
    const TIMED_NODES = { 'stn28.onnx': 2, 'flow_warp.onnx': 1 };
    for (const entry of EXAMPLES) {
      const r = await resultsOnWasm(page, entry.file, problems);
      await checkExample(page, entry, r, 'wasm');
      assert.equal(await text(page, '#model-title'), entry.title);
      assert.equal(await text(page, '#model-description'), entry.description);
      const alone = r.onnxruntime.error ? 'fails' : `${r.onnxruntime.median.toFixed(2)} ms (${(r.onnxruntime.median / r.split.median).toFixed(2)}x)`;
      console.log(`# ${entry.file} (wasm, 1 run): split session ${r.split.median.toFixed(2)} ms, onnxruntime-web ${alone}`);
      if (TIMED_NODES[entry.file]) {
        const { split, onnxruntime } = r.plan.placement.measured;
        const on = onnxruntime.median <= split.median ? 'onnxruntime' : 'gridsample';
        const reasons = await page.locator('#placement li').allTextContents();
        assert.equal(reasons.length, TIMED_NODES[entry.file], entry.file);
        for (const line of reasons) assert.match(line, new RegExp(`^(AffineGrid|GridSample) \\S+: on ${on}, ${TIMED_REASON}$`), entry.file);
      }
    }
    assert.deepEqual(Object.keys(TIMED_NODES).filter((f) => !EXAMPLES.some((m) => m.file === f)), [], 'examples whose placement is checked');
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'demo-onnx.png'), fullPage: true });
    await page.close();
    assert.deepEqual(problems, []);
  });

  test('a module Web Worker runs the same split session and gives the same outputs as the page', async () => {
    const { page, problems } = await sharedPage();
    // The worker runs the page's last comparison.
    for (const file of ['stn28.onnx', 'gridsample_3d_cubic.onnx']) {
      await resultsOnWasm(page, file, problems);
      await page.getByRole('button', { name: 'Run the split session in a worker' }).click();
      await page.waitForFunction(() => ['done', 'error'].includes(window.__onnxResults.worker?.status), null, { timeout: 30000 });
      const w = await page.evaluate(() => window.__onnxResults.worker);
      assert.equal(w.status, 'done', `${file} in the worker: ${w.error}`);
      assert.equal(w.file, file);
      for (const [name, o] of Object.entries(w.outputs)) assert.equal(o.maxAbsDiff, 0, `${file}: output ${name} in the worker differs from the page's by ${o.maxAbsDiff}`);
      assert.ok(w.split.median > 0);
      assert.match(await text(page, '#worker-result'), new RegExp(`^${file.replace('.', '\\.')} in a module worker \\(wasm\\): the same outputs as on the page; `));
    }
    assert.ok(server.requests.includes('/web/demo/vendor/onnx_worker.mjs'), 'the worker is vendor.mjs\'s bundle');
    assert.deepEqual(problems, []);
  });

  test('a malformed model, picked or dropped, is a one-line error and the page stays usable', async () => {
    const { page, problems } = await sharedPage();
    const title = await text(page, '#model-title');
    let s = 12345;
    const garbage = Buffer.from(Array.from({ length: 4096 }, () => { s = (s * 1103515245 + 12345) % 2147483648; return s >>> 23; }));
    await page.locator('#file').setInputFiles({ name: 'garbage.onnx', mimeType: 'application/octet-stream', buffer: garbage });
    await page.waitForFunction(() => window.__onnxResults.status === 'error');
    const status = await text(page, '#status');
    assert.match(status, /^garbage\.onnx: gridsample\/onnx: .*not a valid ONNX model/);
    assert.ok(!status.includes('\n'), `not one line: ${status}`);
    assert.equal(await page.locator('#status.error').count(), 1);
    assert.equal(await text(page, '#model-title'), title, 'the last model stays');

    // A truncated model, dropped on the drop zone.
    const truncated = readFileSync(join(DEMO, 'models', 'stn28.onnx')).subarray(0, 3000);
    const transfer = await page.evaluateHandle((b64) => {
      const dt = new DataTransfer();
      dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'truncated.onnx'));
      return dt;
    }, truncated.toString('base64'));
    const before = await page.evaluate(() => window.__onnxResults.seq);
    await page.dispatchEvent('#drop-zone', 'dragenter', { dataTransfer: transfer });
    await page.dispatchEvent('#drop-zone', 'drop', { dataTransfer: transfer });
    await page.waitForFunction((n) => window.__onnxResults.seq > n && window.__onnxResults.status === 'error', before);
    assert.match(await text(page, '#status'), /^truncated\.onnx: gridsample\/onnx: .*not a valid ONNX model/);

    // Still usable: another example from the menu, then the same one again with a new shape.
    await page.locator('#example').selectOption('flow_warp.onnx');
    await page.waitForFunction(() => window.__onnxResults.status === 'done' && window.__onnxResults.file === 'flow_warp.onnx', null, { timeout: 60000 });
    assert.equal(await text(page, '#model-title'), EXAMPLES.find((m) => m.file === 'flow_warp.onnx').title);
    for (const input of ['image', 'flow']) await page.locator(`#inputs input[data-name="${input}"]`).fill(`1, ${input === 'image' ? 3 : 2}, 64, 96`);
    const seq = await page.evaluate(() => window.__onnxResults.seq);
    await page.getByRole('button', { name: 'Run and time' }).click();
    await page.waitForFunction((n) => window.__onnxResults.seq > n && window.__onnxResults.status === 'done', seq, { timeout: 60000 });
    const r = await page.evaluate(() => window.__onnxResults);
    assert.ok(r.outputs.output.maxAbsDiff <= 1e-4, `flow_warp at 64x96: ${r.outputs.output.maxAbsDiff}`);
    assert.equal(await page.locator('#inputs input[data-name="image"]').inputValue(), '1, 3, 64, 96');
    assert.deepEqual(problems, []);
  });

  // Last on the shared page: the malformed-model test picks an example from the menu, which runs
  // on the provider the page shows (wasm, as the worker test left it).
  test('every example on the webgpu execution provider (SwiftShader): the split session equals onnxruntime-web', async (t) => {
    const { page, problems } = await sharedPage();
    const gpu = await page.evaluate(async () => {
      if (!navigator.gpu) return { reason: 'navigator.gpu is missing' };
      const adapter = await navigator.gpu.requestAdapter();
      if (!adapter) return { reason: 'navigator.gpu.requestAdapter() gave no adapter' };
      return { description: `${adapter.info.vendor} ${adapter.info.architecture} ${adapter.info.description}`.trim(), f16: adapter.features.has('shader-f16') };
    });
    if (gpu.reason) {
      t.skip(skip(`WebGPU is unavailable in this Chromium (${CHROMIUM} ${WEBGPU_FLAGS.join(' ')}): ${gpu.reason}`).skip);
      return;
    }
    assert.ok(await page.locator('#ep option[value="webgpu"]').count(), 'the page offers webgpu where navigator.gpu exists');
    console.log(`# WebGPU adapter: ${gpu.description}${gpu.f16 ? '' : ', no shader-f16'}`);
    t.diagnostic(`left out on WebGPU (seconds per run on SwiftShader): ${[...WEBGPU_LEFT_OUT].join(', ')}`);
    for (const entry of EXAMPLES.filter((m) => !WEBGPU_LEFT_OUT.has(m.file))) {
      const r = await results(page, entry.file, 'webgpu', WEBGPU_DIMS[entry.file], problems);
      if (!gpu.f16 && entry.inputs.some((i) => i.dtype === 'float16')) {
        // onnxruntime's WebGPU kernels for the model's float16 nodes need shader-f16: the split
        // session's onnxruntime part fails as onnxruntime-web does, and the page says why.
        assert.equal(r.status, 'error', `${entry.file} (webgpu): ran without shader-f16`);
        assert.match(r.error, /f16/);
        assert.equal(await page.locator('#status.error').count(), 1);
        console.log(`# ${entry.file} (webgpu): not run, the adapter has no shader-f16: ${r.error}`);
        continue;
      }
      await checkExample(page, entry, r, 'webgpu');
      // The split session's parts hand their tensors on on the GPU: nothing is read back.
      assert.equal(r.readbacks, 0, `${entry.file} (webgpu): readbacks per run`);
      assert.match(await text(page, '#plan-summary'), /· 0 readbacks from the GPU per run$/);
      assert.match(await text(page, '#fig-backend'), /^gridsample webgpu · onnxruntime-web [\d.]+ \(webgpu\)$/);
    }
    assert.deepEqual(problems, []);
  });
});
