// gridsample/core (core_node.mjs, core.cjs, core_browser.mjs): it loads the core wasm module, gives every golden case the full build's bytes, has no other operator, and a Vite page of it ships that one module.
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

import { compare, listCases, loadCase, runCase } from './lib/cases.mjs';
import { serveStatic } from './lib/static_server.mjs';

const JS = fileURLToPath(new URL('../../js/', import.meta.url));
const CASES = fileURLToPath(new URL('../cases', import.meta.url));
const CORE_WASM = join(JS, 'dist', 'gridsample-core-simd.wasm');
const CHROMIUM = process.env.GRIDSAMPLE_CHROMIUM || '/usr/bin/chromium';
// The issue's budget for the SIMD core module (issue 47).
const CORE_BUDGET = 150 * 1024;

// What the API object of gridsample/core has: the full build's other operators are not there.
const CORE_KEYS = ['affineGrid', 'backend', 'dtypes', 'gridSample', 'heapSize', 'heapUsed', 'prepareAffineGrid', 'prepareGridSample', 'target', 'tensor', 'tensorFrom', 'threads', 'variant'];
const ABSENT = ['warpAffine', 'warpPerspective', 'remap', 'rotationMatrix', 'perspectiveTransform', 'gridSampleChannelsLast', 'warpFlow', 'multiScaleDeformableAttention'];

// The files load() reads: resource_node.mjs's readFile of node:fs/promises, wrapped before the
// entry points are imported.
const read = [];
const readFile = fsp.readFile;
fsp.readFile = (path, ...rest) => {
  read.push(String(path));
  return readFile(path, ...rest);
};
syncBuiltinESMExports();
const core = await import('../../js/core_node.mjs');
const full = await import('../../js/node.mjs');
const { libraryRules } = await import('../../js/core/api.mjs');

/** load(options) of `entry` and the .wasm files it read. */
async function loaded(entry, options) {
  const from = read.length;
  const gs = await entry.load({ warmUp: false, ...options });
  return { gs, wasm: read.slice(from).filter((p) => p.endsWith('.wasm')) };
}

describe('gridsample/core in Node', () => {
  test(`load() reads gridsample-core-simd.wasm alone, a module under ${CORE_BUDGET / 1024} KB and under half the full build`, async () => {
    const { gs, wasm } = await loaded(core);
    assert.deepEqual(wasm, [CORE_WASM]);
    assert.equal(gs.backend, 'wasm-simd128');
    assert.equal(gs.variant, 'simd');
    assert.equal(gs.threads, 1);
    const bytes = statSync(CORE_WASM).size;
    assert.ok(bytes <= CORE_BUDGET, `${bytes} bytes`);
    assert.ok(bytes < statSync(join(JS, 'dist', 'gridsample-simd.wasm')).size / 2, `${bytes} bytes`);
  });

  test('the API object has GridSample, AffineGrid and heap tensors alone: no warp is there', async () => {
    for (const options of [{}, { variant: 'scalar' }]) {
      const { gs, wasm } = await loaded(core, options);
      assert.deepEqual(Object.keys(gs).sort(), CORE_KEYS, JSON.stringify(options));
      for (const name of ABSENT) assert.equal(name in gs, false, `${name} (${JSON.stringify(options)})`);
      if (options.variant) {
        // Node's fallback without SIMD128: the full scalar build, with the core's functions alone.
        assert.deepEqual(wasm, [join(JS, 'dist', 'gridsample-scalar.wasm')]);
        assert.equal(gs.backend, 'wasm-scalar');
      }
    }
    // gridsample/webgpu and gridsample/onnx ask a module's rules: the core's say what is missing.
    const rules = libraryRules((await loaded(core)).gs);
    assert.throws(() => rules.multiScaleDeformableAttention([1, 4, 1, 2], [[2, 2]], [0], [1, 1, 1, 1, 1, 2], [1, 1, 1, 1, 1]), { name: 'TypeError', message: /gridsample\/core/ });
    assert.throws(() => rules.warpTableLayout(null, 0, 2, 2), { name: 'TypeError', message: /gridsample\/core/ });
  });

  test('every golden case (GridSample, AffineGrid): passes and gives the full build\'s bytes, copying and heap tensors', async () => {
    const gs = (await loaded(core)).gs;
    const reference = (await loaded(full, { variant: 'simd' })).gs;
    const names = listCases(CASES);
    assert.ok(names.length >= 521, `${names.length} cases`);
    for (const name of names) {
      const c = loadCase(CASES, name);
      for (const path of ['copy', 'heap']) {
        const y = runCase(gs, c, path);
        const r = compare(c, y);
        assert.ok(r.passed, `${name} (${path}): ${r.error ?? `max error ${r.maxAbsError} > ${r.atol}`}`);
        const z = runCase(reference, c, path);
        const bytes = (t) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
        assert.ok(bytes(y).equals(bytes(z)), `${name} (${path}): not the full build's bytes`);
      }
    }
  });

  test('one thread and its builds: numThreads > 1, \'simd-threads\' and the browser\'s \'scalar\' are RangeErrors that say so', async () => {
    for (const options of [{ numThreads: 2 }, { variant: 'simd-threads' }]) {
      await assert.rejects(core.load(options), { name: 'RangeError', message: /gridsample\/core has only its 'simd' and 'scalar' builds here, on one thread; import 'gridsample' for the others/ });
    }
    assert.equal((await loaded(core, { numThreads: 1 })).gs.threads, 1);
    // The browser entry has the core module alone: no scalar fallback to bundle.
    const browser = await import('../../js/core_browser.mjs');
    await assert.rejects(browser.load({ variant: 'scalar' }), { name: 'RangeError', message: /^load: options\.variant: expected 'simd' or 'auto', got "scalar" \(gridsample\/core has only its 'simd' build here, on one thread; import 'gridsample' for the others\)$/ });
  });

  test('CommonJS (core.cjs): the same load(), simdSupported and DTYPE_NAMES', async () => {
    const cjs = createRequire(import.meta.url)('../../js/core.cjs');
    assert.deepEqual(Object.keys(cjs).sort(), ['DTYPE_NAMES', 'load', 'simdSupported']);
    const { gs, wasm } = await loaded(cjs);
    assert.deepEqual(wasm, [CORE_WASM]);
    assert.deepEqual(Object.keys(gs).sort(), CORE_KEYS);
  });
});

describe('gridsample/core in a Vite page (headless Chromium)', () => {
  let work;
  let server;
  let browser;

  before(async () => {
    // The package folder as node_modules/gridsample: its exports map resolves gridsample/core.
    work = mkdtempSync(join(tmpdir(), 'gridsample-core-page-'));
    mkdirSync(join(work, 'node_modules'));
    symlinkSync(JS, join(work, 'node_modules', 'gridsample'), 'dir');
    writeFileSync(join(work, 'index.html'), '<!doctype html><html><body><script type="module" src="./main.js"></script></body></html>');
    writeFileSync(join(work, 'main.js'), `import { load } from 'gridsample/core';
const axis = [-1, -0.6, -0.2, 0.2, 0.6, 1];
load().then((gs) => {
  const y = gs.gridSample({ data: Float32Array.from({ length: 16 }, (_, i) => i), shape: [1, 1, 4, 4] },
    { data: Float32Array.from(axis.flatMap((y) => axis.flatMap((x) => [x, y]))), shape: [1, 6, 6, 2] });
  window.__results = { backend: gs.backend, keys: Object.keys(gs).sort(), row: Array.from(y.data.slice(0, 6)) };
}, (e) => { window.__results = { error: String(e && e.stack || e) }; });
`);
    const { build } = await import('vite');
    const nodeEnv = process.env.NODE_ENV;
    await build({ root: work, configFile: false, logLevel: 'error', base: './', build: { outDir: join(work, 'dist'), emptyOutDir: true } });
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
    server = await serveStatic(join(work, 'dist'));
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('the bundle holds the core module as its only .wasm, and the page fetches it alone and runs', async () => {
    const wasm = readdirSync(join(work, 'dist'), { recursive: true }).filter((f) => f.endsWith('.wasm'));
    assert.equal(wasm.length, 1, wasm.join(', '));
    assert.match(wasm[0], /gridsample-core-simd[^/]*\.wasm$/);
    assert.deepEqual(readFileSync(join(work, 'dist', wasm[0])), readFileSync(CORE_WASM));
    const page = await browser.newPage();
    try {
      await page.goto(`${server.origin}/index.html`);
      await page.waitForFunction(() => window.__results !== undefined, null, { timeout: 30000 });
      const r = await page.evaluate(() => window.__results);
      assert.equal(r.error, undefined, r.error);
      assert.equal(r.backend, 'wasm-simd128');
      assert.deepEqual(r.keys, CORE_KEYS);
      const row = [0, 0.15, 0.55, 0.95, 1.35, 0.75]; // the README example's first row
      assert.ok(r.row.every((v, i) => Math.abs(v - row[i]) < 1e-6), `row ${r.row.join(', ')}`);
    } finally {
      await page.close();
    }
    assert.deepEqual(server.requests.filter((p) => p.endsWith('.wasm')), [`/${wasm[0]}`]);
  });
});
