// Packaging for browsers: the installed tarball bundled by Vite (build and dev server) and webpack 5, and unbundled from node_modules, in headless Chromium: pages, module and classic workers, the threaded build on cross-origin isolated pages and the worker pool with and without isolation.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { assertExampleRow, BASIC_MODEL, installConsumer, removeConsumer } from './lib/packaging_consumer.mjs';
import { assertPoolExample, assertThreadsExample, closeThreadsPages, ISOLATION_HEADERS, pageResults, POOL_WORKER_MARK, PTHREAD_WORKER_MARK, pthreadWorkerScripts, scriptsWith, threadsPages, THREADS_FILES } from './lib/packaging_pages.mjs';

/** Each of the pool's two workers fetched its script from the bundle: a path matching `pattern`. */
function assertPoolWorkerScripts(requests, pattern) {
  const scripts = scriptsWith(POOL_WORKER_MARK, requests, app);
  assert.equal(scripts.length, 2, `pool worker scripts fetched: ${scripts.join(', ') || 'none'}; requests: ${requests.join(' ')}`);
  for (const path of scripts) assert.match(path, pattern);
}

let work;
let app;

before(async () => {
  ({ work, app } = await installConsumer('gridsample-pack-browser-'));
  for (const [name, text] of Object.entries(THREADS_FILES)) writeFileSync(join(app, name), text);
});

after(() => removeConsumer(work));

describe('browser consumer (Vite bundle, headless Chromium)', () => {
  let server;
  let isolatedServer; // the same files with COOP/COEP: wasm threads
  let context;
  let nodeOracle;

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
    // gridsample/onnx with the app's onnxruntime-web, in the page and in a module worker.
    writeFileSync(join(app, 'onnx_example.js'), `// The ONNX page's example: the GridSample documentation example as a model, through gridsample/onnx.
import { InferenceSession } from 'gridsample/onnx';
const MODEL = Uint8Array.from(${JSON.stringify([...BASIC_MODEL])});
export async function onnxExample(ort) {
  ort.env.wasm.numThreads = 1;
  const axis = [-1, -0.6, -0.2, 0.2, 0.6, 1];
  // placement 'gridsample': the node runs on the bundled package, whichever placement is faster.
  const session = await InferenceSession.create(MODEL, { ort, executionProviders: ['wasm'], placement: 'gridsample' });
  const { Y } = await session.run({
    X: new ort.Tensor('float32', Float32Array.from({ length: 16 }, (_, i) => i), [1, 1, 4, 4]),
    grid: new ort.Tensor('float32', Float32Array.from(axis.flatMap((y) => axis.flatMap((x) => [x, y]))), [1, 6, 6, 2]),
  });
  await session.release();
  return { runsOn: session.plan().parts.map((p) => p.runsOn), shape: Y.dims, data: Array.from(Y.data), isOrt: Y instanceof ort.Tensor };
}
`);
    writeFileSync(join(app, 'onnx.html'), `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>gridsample/onnx consumer</title></head>
<body><script type="module">
import * as ort from 'onnxruntime-web';
import { onnxExample } from './onnx_example.js';
const worker = new Worker(new URL('./onnx_worker.js', import.meta.url), { type: 'module' });
const fromWorker = new Promise((resolve, reject) => { worker.onmessage = (e) => resolve(e.data); worker.onerror = (e) => reject(new Error('worker: ' + e.message)); });
Promise.all([onnxExample(ort), fromWorker]).then(
  ([page, moduleWorker]) => { window.__results = { page, moduleWorker }; },
  (e) => { window.__results = { error: String(e && e.stack || e) }; });
</script></body></html>
`);
    writeFileSync(join(app, 'onnx_worker.js'), `// Module worker of the ONNX page: gridsample/onnx and onnxruntime-web inside the worker.
import * as ort from 'onnxruntime-web';
import { onnxExample } from './onnx_example.js';
onnxExample(ort).then((r) => postMessage(r), (e) => postMessage({ error: String(e && e.stack || e) }));
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
    // The ONNX page on its own: onnxruntime-web's bundle splits into chunks, which Vite's
    // default 'iife' workers cannot hold (and 'es' workers break the classic worker above).
    await build({
      root: app,
      configFile: false,
      logLevel: 'error',
      base: './',
      build: { outDir: join(app, 'dist-onnx'), emptyOutDir: true, rollupOptions: { input: join(app, 'onnx.html') } },
      worker: { format: 'es' },
    });
    // The threads page (threaded glue, its pthread worker script) with Vite's defaults.
    await build({
      root: app,
      configFile: false,
      logLevel: 'error',
      base: './',
      build: { outDir: join(app, 'dist-threads'), emptyOutDir: true, rollupOptions: { input: join(app, 'threads.html') } },
    });
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
    ({ server, isolatedServer, nodeOracle, context } = await threadsPages(app));
  });

  after(() => closeThreadsPages({ server, isolatedServer, context }));

  /** A Vite plugin that pushes the dev server's request URLs onto `requested`. */
  const recordRequests = (requested) => ({
    name: 'record-requests',
    configureServer: (s) => { s.middlewares.use((req, res, next) => { requested.push(req.url); next(); }); },
  });

  /** Vite's dev server served the pool's two module workers their script, the package's own. */
  function assertDevPoolWorkers(requested) {
    const workers = requested.filter((url) => url === '/node_modules/gridsample/pool/pool_worker.mjs?worker_file&type=module');
    assert.equal(workers.length, 2, `pool worker scripts fetched: ${workers.length}; requests: ${requested.join(' ')}`);
    assert.ok(scriptsWith(POOL_WORKER_MARK, requested, app).length >= 1, `pool/serve.mjs was not fetched: ${requested.join(' ')}`);
  }

  function results(path, options) {
    return pageResults(context, path.startsWith('http') ? path : `${server.origin}${path}`, options);
  }

  /** The results of `path` on the isolated server, and the paths that page requested. */
  async function isolatedResults(path, options) {
    const from = isolatedServer.requests.length;
    const r = await pageResults(context, `${isolatedServer.origin}${path}`, options);
    return { r, requested: isolatedServer.requests.slice(from) };
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

  test('bundled gridsample/onnx with onnxruntime-web: page and module worker', async () => {
    const r = await results('/dist-onnx/onnx.html');
    for (const k of ['page', 'moduleWorker']) {
      assert.deepEqual(r[k].runsOn, ['gridsample'], k);
      assert.equal(r[k].isOrt, true, `${k}: results are onnxruntime tensors`);
      assertExampleRow(r[k], `gridsample/onnx ${k}`);
    }
  });

  test('Vite dev server (dependencies pre-bundled): page and module worker; not isolated, the SIMD fallback and createPool', async () => {
    const { createServer } = await import('vite');
    const requested = [];
    const dev = await createServer({
      root: app, configFile: false, logLevel: 'error', server: { host: '127.0.0.1', port: 0, strictPort: false },
      plugins: [recordRequests(requested)],
    });
    await dev.listen();
    try {
      const r = await results(new URL('index.html', dev.resolvedUrls.local[0]).href);
      assert.equal(r.auto.backend, 'wasm-simd128');
      assert.equal(r.scalar.backend, 'wasm-scalar');
      assert.equal(r.moduleWorker.backend, 'wasm-simd128');
      for (const k of ['auto', 'scalar', 'moduleWorker']) assertExampleRow(r[k], `dev ${k}`);
      const from = requested.length;
      const t = await results(new URL('threads.html', dev.resolvedUrls.local[0]).href);
      for (const k of ['page', 'moduleWorker']) assertThreadsExample(t[k], `dev ${k}, not isolated`, { isolated: false, node: nodeOracle });
      assertPoolExample(t.pool, 'Vite dev pool, not isolated', { isolated: false, node: nodeOracle.pool });
      assertDevPoolWorkers(requested.slice(from));
    } finally {
      await dev.close();
    }
  });

  test('Vite bundle, cross-origin isolated: load({ numThreads: 2 }) runs the threaded build in the page and a module worker, the same bytes as the SIMD build; createPool splits a warp between 2 workers', async () => {
    const assets = readdirSync(join(app, 'dist-threads', 'assets'));
    assert.ok(assets.some((f) => /^gridsample-simd-threads.*\.wasm$/.test(f)), assets.join(', '));
    assert.ok(assets.some((f) => /^gridsample-simd-threads\.worker.*\.js$/.test(f)), `no pthread worker script emitted: ${assets.join(', ')}`);
    const { r, requested } = await isolatedResults('/dist-threads/threads.html');
    for (const k of ['page', 'moduleWorker']) assertThreadsExample(r[k], `Vite ${k}`, { isolated: true, node: nodeOracle });
    // The page and the module worker each start a pthread worker from the bundle's script.
    const scripts = pthreadWorkerScripts(requested, app);
    assert.equal(scripts.length, 2, `pthread worker scripts fetched: ${scripts.join(', ') || 'none'}; requests: ${requested.join(' ')}`);
    for (const path of scripts) assert.match(path, /^\/dist-threads\/assets\/gridsample-simd-threads\.worker.*\.js$/);
    // The pool too (its shared input in shared memory here).
    assertPoolExample(r.pool, 'Vite pool, isolated', { isolated: true, node: nodeOracle.pool });
    assertPoolWorkerScripts(requested, /^\/dist-threads\/assets\/pool_worker-[\w-]+\.js$/);
  });

  test('Vite bundle, not isolated: load({ numThreads: 2 }) falls back to the SIMD build on one thread, the same bytes; createPool splits a warp between 2 module workers from the bundled pool worker, the same bytes as one instance', async () => {
    const from = server.requests.length;
    const r = await results('/dist-threads/threads.html');
    for (const k of ['page', 'moduleWorker']) assertThreadsExample(r[k], `Vite ${k}, not isolated`, { isolated: false, node: nodeOracle });
    const requested = server.requests.slice(from);
    assert.deepEqual(pthreadWorkerScripts(requested, app), []);
    assert.ok(!requested.some((p) => /simd-threads.*\.wasm$/.test(p)), `the threaded .wasm was fetched: ${requested.join(' ')}`);
    assertPoolExample(r.pool, 'Vite pool, not isolated', { isolated: false, node: nodeOracle.pool });
    assertPoolWorkerScripts(requested, /^\/dist-threads\/assets\/pool_worker-[\w-]+\.js$/);
  });

  test('Vite dev server with COOP/COEP headers: threads in the page and a module worker; createPool', async () => {
    const { createServer } = await import('vite');
    const requested = [];
    const dev = await createServer({
      root: app, configFile: false, logLevel: 'error',
      server: { host: '127.0.0.1', port: 0, strictPort: false, headers: ISOLATION_HEADERS },
      plugins: [recordRequests(requested)],
    });
    await dev.listen();
    try {
      const r = await results(new URL('threads.html', dev.resolvedUrls.local[0]).href);
      for (const k of ['page', 'moduleWorker']) assertThreadsExample(r[k], `dev ${k}`, { isolated: true, node: nodeOracle });
      const scripts = pthreadWorkerScripts(requested, app);
      assert.equal(scripts.length, 2, `pthread worker scripts fetched: ${scripts.join(', ') || 'none'}; requests: ${requested.join(' ')}`);
      assertPoolExample(r.pool, 'Vite dev pool, isolated', { isolated: true, node: nodeOracle.pool });
      assertDevPoolWorkers(requested);
    } finally {
      await dev.close();
    }
  });

  test('unbundled, isolated: threads from node_modules; without the pthread worker script (404) load() falls back and variant simd-threads rejects', async () => {
    const ok = await isolatedResults('/raw_threads.html');
    assertThreadsExample(ok.r.page, 'unbundled', { isolated: true, node: nodeOracle });
    assert.deepEqual(ok.r.named, { backend: 'wasm-simd128-threads' });
    assert.deepEqual(pthreadWorkerScripts(ok.requested, app), [
      '/node_modules/gridsample/dist/gridsample-simd-threads.worker.js',
      '/node_modules/gridsample/dist/gridsample-simd-threads.worker.js',
    ]);
    // A bundle or server that leaves the worker script out: no hang, one thread.
    const gone = /gridsample-simd-threads\.worker\.js$/;
    const missing = await isolatedResults('/raw_threads.html', {
      route: [gone, (route) => route.fulfill({ status: 404, headers: ISOLATION_HEADERS, body: 'not found' })],
      allow: /^(HTTP 404|request failed): .*gridsample-simd-threads\.worker\.js$/,
    });
    const page = missing.r.page;
    assert.deepEqual([page.crossOriginIsolated, page.backend, page.threads, page.runs], [true, 'wasm-simd128', 1, 0]);
    assert.deepEqual([page.differ, page.hash], [0, nodeOracle.hash], 'unbundled fallback: the bytes');
    assert.match(missing.r.named.error, /^Error: load: could not instantiate the gridsample wasm from .*gridsample-simd-threads\.wasm: a pthread worker failed to start/);
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

describe('browser consumer (webpack 5 bundle, headless Chromium)', () => {
  let server;
  let isolatedServer;
  let context;
  let nodeOracle;
  let stats;
  const out = () => join(app, 'dist-webpack');

  before(async () => {
    // webpack's defaults for a production build of the threads page; it has no HTML entry, so
    // the page is written beside the bundle.
    const { default: webpack } = await import('webpack');
    stats = await new Promise((resolve, reject) => {
      webpack({
        mode: 'production',
        context: app,
        entry: { threads: './threads_page.js' },
        output: { path: out(), clean: true },
        performance: { hints: false },
      }, (error, result) => (error ? reject(error) : resolve(result)));
    });
    writeFileSync(join(out(), 'threads.html'), `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>gridsample threads (webpack)</title></head>
<body><script src="./threads.js"></script></body></html>
`);
    ({ server, isolatedServer, nodeOracle, context } = await threadsPages(app));
  });

  after(() => closeThreadsPages({ server, isolatedServer, context }));

  test('the bundle builds without errors and emits the three .wasm files and the pthread worker script', () => {
    const info = stats.toJson({ all: false, errors: true, warnings: true, assets: true });
    assert.deepEqual(info.errors.map((e) => e.message), []);
    const emitted = info.assets.map((a) => ({ name: a.name, from: a.info.sourceFilename }));
    for (const variant of ['simd', 'scalar', 'simd-threads']) {
      assert.ok(emitted.some((a) => a.from === `node_modules/gridsample/dist/gridsample-${variant}.wasm`), `${variant}: ${JSON.stringify(emitted)}`);
    }
    const scripts = readdirSync(out()).filter((f) => f.endsWith('.js') && readFileSync(join(out(), f), 'utf8').includes(PTHREAD_WORKER_MARK));
    assert.equal(scripts.length, 1, `chunks with the pthread worker: ${scripts.join(', ') || 'none'}`);
    // Emscripten's worker can import a glue named at run time (Module.mainScriptUrlOrBlob, which
    // gridsample never sets): webpack warns that it cannot follow that import().
    for (const w of info.warnings) console.log(`# webpack warning: ${w.message.split('\n')[0]} (${w.moduleName || 'no module'})`);
  });

  test('cross-origin isolated: load({ numThreads: 2 }) runs the threaded build in the page and a module worker, the same bytes as the SIMD build; createPool splits a warp between 2 workers', async () => {
    const from = isolatedServer.requests.length;
    const r = await pageResults(context, `${isolatedServer.origin}/dist-webpack/threads.html`);
    for (const k of ['page', 'moduleWorker']) assertThreadsExample(r[k], `webpack ${k}`, { isolated: true, node: nodeOracle });
    const requested = isolatedServer.requests.slice(from);
    const scripts = pthreadWorkerScripts(requested, app);
    assert.equal(scripts.length, 2, `pthread worker scripts fetched: ${scripts.join(', ') || 'none'}; requests: ${requested.join(' ')}`);
    assert.ok(scripts.every((p) => p.startsWith('/dist-webpack/')), scripts.join(', '));
    assertPoolExample(r.pool, 'webpack pool, isolated', { isolated: true, node: nodeOracle.pool });
    assertPoolWorkerScripts(requested, /^\/dist-webpack\/gridsample-pool\.js$/);
  });

  test('not isolated: load({ numThreads: 2 }) falls back to the SIMD build on one thread, the same bytes; createPool splits a warp between 2 module workers from the bundled pool worker, the same bytes as one instance', async () => {
    const from = server.requests.length;
    const r = await pageResults(context, `${server.origin}/dist-webpack/threads.html`);
    for (const k of ['page', 'moduleWorker']) assertThreadsExample(r[k], `webpack ${k}, not isolated`, { isolated: false, node: nodeOracle });
    const requested = server.requests.slice(from);
    assert.deepEqual(pthreadWorkerScripts(requested, app), []);
    const threadedWasm = stats.toJson({ all: false, assets: true }).assets
      .find((a) => a.info.sourceFilename === 'node_modules/gridsample/dist/gridsample-simd-threads.wasm').name;
    assert.ok(!requested.includes(`/dist-webpack/${threadedWasm}`), `the threaded .wasm was fetched: ${requested.join(' ')}`);
    assertPoolExample(r.pool, 'webpack pool, not isolated', { isolated: false, node: nodeOracle.pool });
    assertPoolWorkerScripts(requested, /^\/dist-webpack\/gridsample-pool\.js$/);
  });
});
