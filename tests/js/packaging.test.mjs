// Packaging: npm pack, install the tarball in a fresh project, use it from Node (ESM, CJS, TypeScript) and from a Vite bundle in headless Chromium.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';

import { serveStatic } from './lib/static_server.mjs';
import { BASIC, PRINTED_ATOL } from './lib/onnx_examples.mjs';

const run = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const PACKAGE = join(HERE, '..', '..', 'js');
const BIN = join(HERE, 'node_modules', '.bin');
const CHROMIUM = process.env.GRIDSAMPLE_CHROMIUM || '/usr/bin/chromium';

// The files `npm pack` must ship, and nothing else.
const SHIPPED = [
  'LICENSE', 'README.md', 'browser.mjs', 'cli.mjs', 'core.mjs', 'index.cjs', 'index.d.cts', 'index.d.ts', 'node.mjs', 'package.json',
  'pixel_space.mjs',
  'dist/gridsample-scalar.cjs', 'dist/gridsample-scalar.mjs', 'dist/gridsample-scalar.wasm',
  'dist/gridsample-simd.cjs', 'dist/gridsample-simd.mjs', 'dist/gridsample-simd.wasm',
];

async function sh(file, args, options = {}) {
  try {
    return await run(file, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  } catch (e) {
    throw new Error(`${file} ${args.join(' ')} failed (${e.code}):\n${e.stdout || ''}\n${e.stderr || ''}`);
  }
}

function assertExampleRow(result, where) {
  assert.ok(!result.error, `${where}: ${result.error}`);
  assert.deepEqual(result.shape, BASIC.yShape, where);
  for (let i = 0; i < BASIC.y.length; ++i) {
    assert.ok(Math.abs(result.data[i] - BASIC.y[i]) <= PRINTED_ATOL, `${where}: element ${i} is ${result.data[i]}, expected ${BASIC.y[i]}`);
  }
}

// The ONNX documentation example, written out for the consumer project (no test imports there).
const EXAMPLE_JS = `// Runs the ONNX GridSample documentation example with a loaded gridsample module.
export function example(gs) {
  const axis = [-1, -0.6, -0.2, 0.2, 0.6, 1];
  const x = { data: Float32Array.from({ length: 16 }, (_, i) => i), shape: [1, 1, 4, 4] };
  const grid = { data: Float32Array.from(axis.flatMap((y) => axis.flatMap((x) => [x, y]))), shape: [1, 6, 6, 2] };
  const y = gs.gridSample(x, grid, { mode: 'bilinear', paddingMode: 'zeros', alignCorners: false });
  return { backend: gs.backend, shape: y.shape, data: Array.from(y.data) };
}
`;

let work;
let app;
let tarball;
let packInfo;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'gridsample-pack-'));
  const { stdout } = await sh('npm', ['pack', '--json', '--pack-destination', work], { cwd: PACKAGE });
  packInfo = JSON.parse(stdout)[0];
  tarball = join(work, packInfo.filename);
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2));
  writeFileSync(join(app, 'example.js'), EXAMPLE_JS);
  // Everything but the CLI's PNG codec is in the tarball; that comes from the npm cache, which
  // tests/js's install of the same version filled (the registry only if the cache was cleared).
  await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: app });
});

after(() => {
  // GRIDSAMPLE_KEEP_TMP=1 keeps the consumer project for a look after a failure.
  if (work && !process.env.GRIDSAMPLE_KEEP_TMP) rmSync(work, { recursive: true, force: true });
  else if (work) console.log(`# kept ${work}`);
});

describe('npm pack', () => {
  test('the tarball ships exactly the package files; the only dependency is the CLI\'s PNG codec', () => {
    const files = packInfo.files.map((f) => f.path).sort();
    assert.deepEqual(files, [...SHIPPED].sort());
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', 'gridsample', 'package.json'), 'utf8'));
    assert.equal(manifest.name, 'gridsample');
    assert.equal(manifest.license, 'MIT');
    const licence = readFileSync(join(app, 'node_modules', 'gridsample', 'LICENSE'), 'utf8');
    assert.equal(licence, readFileSync(join(HERE, '..', '..', 'LICENSE'), 'utf8'), 'the shipped LICENSE is the repository\'s');
    assert.match(licence, /^MIT License\n/);
    assert.deepEqual(manifest.dependencies, { pngjs: '^7.0.0' });
    assert.equal(manifest.peerDependencies, undefined);
    console.log(`# tarball ${packInfo.filename}: ${packInfo.size} bytes packed, ${packInfo.unpackedSize} unpacked`);
  });
});

describe('Node.js consumer', () => {
  test('ESM import resolves node.mjs and computes the ONNX example', async () => {
    const script = `import { load } from 'gridsample';
import { example } from './example.js';
console.log(JSON.stringify({ resolved: import.meta.resolve('gridsample'), ...example(await load()) }));`;
    writeFileSync(join(app, 'esm.mjs'), script);
    const { stdout } = await sh(process.execPath, ['esm.mjs'], { cwd: app });
    const r = JSON.parse(stdout);
    assert.match(r.resolved, /node_modules\/gridsample\/node\.mjs$/);
    assertExampleRow(r, 'ESM');
  });

  test("the README's Node.js example runs as written", async () => {
    const readme = readFileSync(join(app, 'node_modules', 'gridsample', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Node.js'));
    const code = section.slice(section.indexOf('```js\n') + 6, section.indexOf('\n```', section.indexOf('```js\n')));
    assert.match(code, /gs\.gridSample/);
    writeFileSync(join(app, 'readme-example.mjs'), code);
    const { stdout } = await sh(process.execPath, ['readme-example.mjs'], { cwd: app });
    assert.match(stdout, /wasm-simd128|wasm-scalar/);
    assert.match(stdout, /\[ 1, 1, 6, 6 \]/);
    assert.match(stdout, /\[ 0, 0\.15, 0\.55, 0\.95, 1\.35, 0\.75 \]/);
  });

  test('CommonJS require resolves index.cjs and computes the ONNX example', async () => {
    const script = `const { load, simdSupported } = require('gridsample');
import('./example.js').then(async ({ example }) => {
  const r = example(await load({ variant: 'scalar' }));
  console.log(JSON.stringify({ resolved: require.resolve('gridsample'), simd: simdSupported(), ...r }));
});`;
    writeFileSync(join(app, 'cjs.cjs'), script);
    const { stdout } = await sh(process.execPath, ['cjs.cjs'], { cwd: app });
    const r = JSON.parse(stdout);
    assert.match(r.resolved, /node_modules\/gridsample\/index\.cjs$/);
    assert.equal(r.backend, 'wasm-scalar');
    assertExampleRow(r, 'CJS');
  });

  test('TypeScript consumers type-check against index.d.ts (ESM) and index.d.cts (CJS)', async () => {
    writeFileSync(join(app, 'use.mts'), `import { load, simdSupported, DTYPE_NAMES, type GridSample, type HeapTensor, type Tensor } from 'gridsample';
const gs: GridSample = await load({ variant: simdSupported() ? 'simd' : 'scalar' });
const y: Tensor<'float32'> = gs.gridSample({ data: new Float32Array(16), shape: [1, 1, 4, 4], dtype: 'float32' },
  { data: new Float32Array(8), dims: [1, 2, 2, 2] }, { mode: 'bicubic', paddingMode: 'border', alignCorners: 1 });
const f: Float32Array = y.data;
const h: HeapTensor<'uint8'> = gs.tensor('uint8', [2, 3]);
const u8: Uint8Array | Uint8ClampedArray = h.data;
h.dispose();
const g = gs.affineGrid({ data: new Float64Array(6), shape: [1, 2, 3], dtype: 'float64' }, [1n, 1n, 4n, 4n], { align_corners: 0 });
const d: Float64Array = g.data;
const backend: 'wasm-simd128' | 'wasm-scalar' = gs.backend;
// The result's dtype follows x: from the array class, or from dtype / type.
const grid = { data: new Float32Array(8), shape: [1, 2, 2, 2] };
const a: Tensor<'float32'> = gs.gridSample({ data: new Float32Array(16), shape: [1, 1, 4, 4] }, grid);
const b: Tensor<'float16'> = gs.gridSample({ data: new Uint16Array(16), shape: [1, 1, 4, 4], dtype: 'float16' }, grid);
const c: Uint8Array | Uint8ClampedArray = gs.gridSample({ data: new Uint8ClampedArray(16), shape: [1, 1, 4, 4] }, grid).data;
const e: Tensor<'int16'> = gs.gridSample({ data: new Int16Array(16), dims: [1, 1, 4, 4], type: 'int16' }, grid);
const heapX = gs.tensorFrom({ data: new Float64Array(16), shape: [1, 1, 4, 4] });
const fromHeap: Float64Array = gs.gridSample(heapX, grid, { out: gs.tensor('float64', [1, 1, 2, 2]) }).data;
console.log(a, b, c, e, fromHeap);
// @ts-expect-error: a float32 x gives a float32 result
const wrong: Tensor<'uint8'> = gs.gridSample({ data: new Float32Array(16), shape: [1, 1, 4, 4] }, grid);
console.log(wrong);
console.log(f.length, u8.length, d.length, backend, DTYPE_NAMES.length);
// @ts-expect-error: not an ONNX mode
gs.gridSample({ data: new Float32Array(1), shape: [1, 1, 1] }, { data: new Float32Array(1), shape: [1, 1, 1] }, { mode: 'trilinear' });
// @ts-expect-error: alignCorners is boolean or 0/1
gs.gridSample({ data: new Float32Array(1), shape: [1, 1, 1] }, { data: new Float32Array(1), shape: [1, 1, 1] }, { alignCorners: 2 });
// @ts-expect-error: data must be a typed array
gs.gridSample({ data: [1, 2], shape: [1, 1, 2] }, { data: new Float32Array(1), shape: [1, 1, 1] });
// @ts-expect-error: unknown dtype
gs.tensor('float8', [1]);
`);
    writeFileSync(join(app, 'use.cts'), `import gridsample = require('gridsample');
gridsample.load({ variant: 'scalar' }).then((gs: gridsample.GridSample) => {
  const r: gridsample.Tensor = gs.affineGrid({ data: new Float32Array(6), shape: [1, 2, 3] }, [1, 1, 4, 4]);
  console.log(r.shape, gridsample.simdSupported(), gridsample.DTYPE_NAMES[0]);
});
// @ts-expect-error: HeapTensor is not constructible
new (null as unknown as typeof import('gridsample').HeapTensor)();
`);
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022',
        lib: ['es2022', 'dom'], noEmit: true, skipLibCheck: false, types: [],
      },
      files: ['use.mts', 'use.cts'],
    }));
    await sh(join(BIN, 'tsc'), ['-p', app], { cwd: app });
  });
});

describe('browser consumer (Vite bundle, headless Chromium)', () => {
  let server;
  let context;

  before(async () => {
    writeFileSync(join(app, 'index.html'), `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>gridsample consumer</title></head>
<body><script type="module" src="./main.js"></script></body></html>
`);
    writeFileSync(join(app, 'main.js'), `// Page of the packaging test: auto and scalar variants, a module worker and a classic worker.
import { load, simdSupported } from 'gridsample';
import { example } from './example.js';

function fromWorker(worker) {
  return new Promise((resolve, reject) => {
    worker.onmessage = (e) => resolve(e.data);
    worker.onerror = (e) => reject(new Error('worker: ' + e.message));
  });
}

async function main() {
  const results = { simdSupported: simdSupported() };
  results.auto = example(await load());
  results.scalar = example(await load({ variant: 'scalar' }));
  results.moduleWorker = await fromWorker(new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }));
  // Classic workers cannot import: only a bundle (not Vite's dev server) makes them work.
  if (import.meta.env.PROD) results.classicWorker = await fromWorker(new Worker(new URL('./worker.js', import.meta.url)));
  return results;
}
main().then((r) => { window.__results = r; }, (e) => { window.__results = { error: String(e && e.stack || e) }; });
`);
    writeFileSync(join(app, 'worker.js'), `// Worker of the packaging test: loads gridsample inside the worker and runs the example.
import { load } from 'gridsample';
import { example } from './example.js';
load().then((gs) => postMessage(example(gs)), (e) => postMessage({ error: String(e && e.stack || e) }));
`);
    // Unbundled ES modules straight from node_modules, as from a CDN.
    writeFileSync(join(app, 'raw.html'), `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>gridsample unbundled</title></head>
<body><script type="module">
import { load } from '/node_modules/gridsample/browser.mjs';
import { example } from '/example.js';
Promise.all([load(), load({ variant: 'scalar' })]).then(
  ([a, b]) => { window.__results = { auto: example(a), scalar: example(b) }; },
  (e) => { window.__results = { error: String(e && e.stack || e) }; });
</script></body></html>
`);
    const { build } = await import('vite');
    // build() sets NODE_ENV=production for the whole process; the dev server test needs it unset.
    const nodeEnv = process.env.NODE_ENV;
    await build({
      root: app,
      configFile: false,
      logLevel: 'error',
      base: './', // relative asset URLs: the page is served from /dist/, as from any sub-path
      build: { outDir: join(app, 'dist'), emptyOutDir: true },
    });
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
    server = await serveStatic(app);
    const { chromium } = await import('playwright-core');
    context = await chromium.launchPersistentContext(mkdtempSync(join(work, 'chromium-profile-')), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  after(async () => {
    if (context) await context.close();
    if (server) await server.close();
  });

  async function results(path) {
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
    page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
    await page.goto(path.startsWith('http') ? path : `${server.origin}${path}`);
    try {
      await page.waitForFunction(() => window.__results !== undefined, null, { timeout: 20000 });
    } catch (e) {
      throw new Error(`${path}: no results (${e.message}); page problems: ${problems.join('; ') || 'none'}`);
    }
    const r = await page.evaluate(() => window.__results);
    await page.close();
    assert.deepEqual(problems, []);
    assert.ok(!r.error, r.error);
    return r;
  }

  test('the bundle emits both .wasm files as assets', () => {
    const assets = readdirSync(join(app, 'dist', 'assets'));
    assert.ok(assets.some((f) => /^gridsample-simd.*\.wasm$/.test(f)), assets.join(', '));
    assert.ok(assets.some((f) => /^gridsample-scalar.*\.wasm$/.test(f)), assets.join(', '));
  });

  test('bundled page: auto (SIMD) and scalar in the page, module and classic workers', async () => {
    const r = await results('/dist/index.html');
    assert.equal(r.simdSupported, true, 'Chromium has wasm SIMD128');
    assert.equal(r.auto.backend, 'wasm-simd128');
    assert.equal(r.scalar.backend, 'wasm-scalar');
    assert.equal(r.moduleWorker.backend, 'wasm-simd128');
    assert.equal(r.classicWorker.backend, 'wasm-simd128');
    for (const k of ['auto', 'scalar', 'moduleWorker', 'classicWorker']) assertExampleRow(r[k], k);
    // The wasm came from the bundle's assets, not from node_modules.
    assert.ok(server.requests.some((p) => /^\/dist\/assets\/gridsample-simd.*\.wasm$/.test(p)), server.requests.join(' '));
  });

  test('Vite dev server (dependencies pre-bundled): page and module worker', async () => {
    const { createServer } = await import('vite');
    const dev = await createServer({
      root: app, configFile: false, logLevel: 'error', server: { host: '127.0.0.1', port: 0, strictPort: false },
    });
    await dev.listen();
    try {
      const r = await results(new URL('index.html', dev.resolvedUrls.local[0]).href);
      assert.equal(r.auto.backend, 'wasm-simd128');
      assert.equal(r.scalar.backend, 'wasm-scalar');
      assert.equal(r.moduleWorker.backend, 'wasm-simd128');
      for (const k of ['auto', 'scalar', 'moduleWorker']) assertExampleRow(r[k], `dev ${k}`);
    } finally {
      await dev.close();
    }
  });

  test('unbundled ES modules from node_modules (CDN style)', async () => {
    const r = await results('/raw.html');
    assert.equal(r.auto.backend, 'wasm-simd128');
    assert.equal(r.scalar.backend, 'wasm-scalar');
    assertExampleRow(r.auto, 'auto');
    assertExampleRow(r.scalar, 'scalar');
    assert.ok(server.requests.includes('/node_modules/gridsample/dist/gridsample-scalar.wasm'), server.requests.join(' '));
  });
});
