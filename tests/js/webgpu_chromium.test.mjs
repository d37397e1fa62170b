// gridsample/webgpu in headless Chromium on SwiftShader, the product's real host: every golden case through the GPU equals the wasm build in the same page bit for bit (sign of zero aside; AffineGrid within an ulp), and other dtypes go through the wasm fallback; multiScaleDeformableAttention gives the wasm build's bits; hostile calls name the argument at fault; batched calls keep the page's order.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

import { listCases } from './lib/cases.mjs';
import { WEBGPU_FLAGS, within } from './lib/chromium_webgpu.mjs';
import { serveStatic } from './lib/static_server.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CASES = join(ROOT, 'tests', 'cases');
const CHROMIUM = process.env.GRIDSAMPLE_CHROMIUM || '/usr/bin/chromium';

let server;
let browser;
let page;
let adapter;
const problems = [];

before(async () => {
  server = await serveStatic(ROOT);
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update', ...WEBGPU_FLAGS],
  });
  page = await browser.newPage();
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('crash', () => problems.push('the page crashed'));
  await page.goto(`${server.origin}/tests/js/browser/webgpu_cases.html`);
  try {
    adapter = await within(120, 'starting gridsample/webgpu in the page', page.evaluate(() => window.casesReady), problems);
  } catch (e) {
    throw new Error(`the page did not start gridsample/webgpu: ${e.message} ${problems.join('; ')}`, { cause: e });
  }
});

after(async () => {
  await browser?.close();
  await server?.close();
});

describe('gridsample/webgpu in Chromium (SwiftShader): every golden case equals the wasm build', () => {
  const counts = new Map();
  for (const name of listCases(CASES)) {
    test(name, async () => {
      const c = JSON.parse(readFileSync(join(CASES, `${name}.json`), 'utf8'));
      const a = c.attrs;
      const options = c.op === 'GridSample'
        ? { mode: a.mode, paddingMode: a.padding_mode, alignCorners: a.align_corners }
        : { alignCorners: a.align_corners };
      const r = await within(120, `case ${name}`, page.evaluate((spec) => window.runCase(spec), { op: c.op, inputs: c.inputs, size: c.inputs.size?.value, options }), problems);
      assert.deepEqual(r.shapes[0], r.shapes[1]);
      const floats = ['float32', 'float16'];
      const onGpu = floats.includes(r.dtype) && (c.op === 'AffineGrid' || floats.includes(c.inputs.grid.dtype));
      assert.equal(r.ranOn, onGpu ? 'webgpu' : 'wasm');
      if (c.op === 'AffineGrid') {
        assert.ok(r.maxRel <= 2 ** -23, `${name}: ${JSON.stringify(r)}`);
      } else {
        assert.equal(r.diffs, 0, `${name}: ${r.diffs} of ${r.count} elements differ from the wasm build, first ${JSON.stringify(r.first)}`);
      }
      const key = `${c.op} rank ${c.rank} ${r.dtype} ${r.ranOn}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    });
  }
  test('importImage: an ImageBitmap and an OffscreenCanvas on the GPU by copies, their pixels, warped as the wasm build warps them', async () => {
    for (const [width, height] of [[70, 33], [64, 8]]) {
      const r = await within(120, 'importImage', page.evaluate((size) => window.runImport(size), { width, height }), problems);
      for (const [name, v] of Object.entries(r)) {
        assert.deepEqual(v.size, [width, height, Math.ceil((4 * width) / 256) * 256], `${name}: size and row stride`);
        assert.equal(v.pixelsDiffer, 0, `${name}: its pixels on the GPU`);
        // uint8 bilinear: the wasm build's blend is fixed point (within 1 level of the GPU's).
        assert.ok(v.warpLargest <= 1, `${name} ${width}x${height}: ${JSON.stringify(v)}`);
      }
    }
  });
  test('multiScaleDeformableAttention: the wasm build\'s bits (float32 and float16, D not a multiple of 8, non-finite locations)', async () => {
    for (const spec of [
      { N: 2, Lq: 7, M: 3, D: 11, P: 3, levels: [[4, 6], [1, 5], [1, 1]], dtype: 'float32', special: true },
      { N: 1, Lq: 20, M: 8, D: 32, P: 4, levels: [[8, 10], [4, 5], [2, 3], [1, 1]], dtype: 'float32', special: false },
      { N: 2, Lq: 5, M: 2, D: 5, P: 2, levels: [[3, 7], [2, 1]], dtype: 'float16', special: true },
    ]) {
      const r = await within(120, 'multiScaleDeformableAttention', page.evaluate((s) => window.runAttention(s), spec), problems);
      assert.deepEqual(r.shapes[0], r.shapes[1]);
      assert.equal(r.ranOn, 'webgpu');
      assert.equal(r.diffs, 0, `${JSON.stringify(spec)}: ${r.diffs} of ${r.count} elements differ from the wasm build`);
    }
  });
  test('hostile calls (webgpu_hostile.test.mjs\'s, in Chromium): the argument named, the page\'s next error still uncaptured, a destroyed device\'s call rejected', async () => {
    const r = await within(120, 'hostile calls', page.evaluate(() => window.runHostile()), problems);
    assert.match(r.encoder, /^TypeError: gridSample: options\.encoder: expected a GPUCommandEncoder, got an object$/);
    assert.match(r.foreign, /^TypeError: gridSample: grid: its GPUBuffer belongs to another GPUDevice/);
    assert.equal(r.destroyed, 'TypeError: gridSample: x: its GPUBuffer was destroyed');
    assert.equal(r.mapped, 'TypeError: gridSample: x: its GPUBuffer is mapped; unmap() it before the call');
    assert.equal(r.finished, 'TypeError: gridSample: options.encoder: this GPUCommandEncoder was finished; record into a new one');
    assert.equal(r.disposed, 'TypeError: gridSample: x: this GPU tensor was disposed');
    assert.equal(r.uncaptured, true, 'the page\'s invalid createBuffer raised no uncapturederror');
    assert.match(r.afterDestroy, /^Error: gridSample: the GPU device was lost \(destroyed/);
  });
  test('batched calls (webgpu_batch.test.mjs\'s, in Chromium): a chain of 197 calls, the page\'s own copy and writeBuffer right after a call, a destroyed buffer\'s error at flush()', async () => {
    const r = await within(120, 'batched calls', page.evaluate((spec) => window.runBatched(spec), { calls: 197 }), problems);
    assert.equal(r.chain, 0, 'elements of the chain\'s result that differ from the wasm build');
    assert.equal(r.pageCopy, 0, 'elements of the page\'s own copy that differ (its submission came before the call\'s work)');
    assert.equal(r.pageWrite, 0, 'elements that differ: the call read the page\'s later writeBuffer');
    assert.equal(r.destroyed, 'Error: flush: earlier GPU work of gridsample was not done: gridSample: x: its GPUBuffer was destroyed');
  });
  test('conformance counts per operator, rank, dtype and backend', () => {
    console.log(`gridsample/webgpu golden cases in Chromium on ${adapter}:\n  ${[...counts].sort().map(([k, v]) => `${k}: ${v}`).join('\n  ')}`);
    assert.ok(counts.size > 0);
  });
});
