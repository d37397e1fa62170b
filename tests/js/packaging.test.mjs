// Packaging: npm pack, install the tarball in a fresh project, use it from Node (ESM, CJS, TypeScript) and from Vite and webpack bundles in headless Chromium (the threaded build on cross-origin isolated pages too, the worker pool with and without isolation).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';

import { serveStatic } from './lib/static_server.mjs';
import { BASIC, PRINTED_ATOL } from './lib/onnx_examples.mjs';
import { encodeModel } from './lib/onnx_model.mjs';
import { installPacked } from './lib/packed.mjs';

const run = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const BIN = join(HERE, 'node_modules', '.bin');
const CHROMIUM = process.env.GRIDSAMPLE_CHROMIUM || '/usr/bin/chromium';

// The files `npm pack` must ship, and nothing else.
const SHIPPED = [
  'LICENSE', 'README.md', 'api.d.cts', 'tensor_api.d.cts', 'image_api.d.cts', 'load_api.d.cts', 'pool_api.d.cts', 'browser.mjs', 'core/load_browser.mjs', 'cli.mjs', 'core/api.mjs', 'index.cjs', 'index.d.cts', 'index.d.ts', 'node.mjs', 'package.json', 'cli/onnx_commands.mjs', 'cli/npy.mjs',
  'cli/args.mjs', 'cli/files.mjs', 'cli/png.mjs', 'cli/jpeg.mjs', 'cli/flow_file.mjs', 'cli/progress.mjs', 'core/load_wasm.mjs', 'core/warm_up.mjs', 'core/dtypes.mjs', 'core/messages.mjs', 'core/plain_args.mjs', 'core/tensor_args.mjs', 'core/heap_tensor.mjs',
  'core/wasm_heap.mjs', 'core/library_rules.mjs', 'core/optional_package.mjs', 'images/warps.mjs', 'images/matrices.mjs',
  'images/flows.mjs', 'images/pixel_space.mjs', 'images/axis_line.mjs', 'core/resource_node.mjs', 'core/resource_browser.mjs',
  'pool/create_pool.mjs', 'pool/bands.mjs', 'pool/transfer.mjs', 'pool/serve.mjs', 'pool/pool_worker.mjs', 'pool/pool_worker_node.mjs',
  'onnx.mjs', 'onnx.cjs', 'onnx/graph.mjs', 'onnx/errors.mjs', 'onnx/model_proto.mjs', 'onnx/our_nodes.mjs', 'onnx/values.mjs', 'onnx/placement.mjs', 'core/modes.mjs', 'onnx/external_data.mjs', 'onnx/timing.mjs', 'onnx/gpu_nodes.mjs', 'onnx/session.mjs', 'onnx/create.mjs', 'onnx/tensor_types.mjs', 'onnx.d.ts', 'onnx.d.cts', 'onnx_api.d.cts',
  'ort.mjs', 'onnx/ort_module.mjs', 'ort.d.ts', 'transformers.mjs', 'transformers.d.ts',
  'webgpu.cjs', 'webgpu.d.ts', 'webgpu.d.cts', 'webgpu_api.d.cts', 'webgpu/index.mjs', 'webgpu/tensors.mjs', 'webgpu/dispatch.mjs', 'webgpu/grid_sample_wgsl.mjs', 'webgpu/affine_grid_wgsl.mjs', 'webgpu/wgsl_rules.mjs', 'webgpu/warps.mjs', 'webgpu/warp_wgsl.mjs', 'webgpu/gpu_images.mjs',
  'dist/gridsample-scalar.cjs', 'dist/gridsample-scalar.mjs', 'dist/gridsample-scalar.wasm',
  'dist/gridsample-simd.cjs', 'dist/gridsample-simd.mjs', 'dist/gridsample-simd.wasm',
  'dist/gridsample-simd-threads.cjs', 'dist/gridsample-simd-threads.mjs', 'dist/gridsample-simd-threads.wasm',
  'dist/gridsample-simd-threads.worker.cjs', 'dist/gridsample-simd-threads.worker.js', 'dist/onnx_pb.mjs',
];

async function sh(file, args, options = {}) {
  try {
    return await run(file, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  } catch (e) {
    throw new Error(`${file} ${args.join(' ')} failed (${e.code}):\n${e.stdout || ''}\n${e.stderr || ''}`, { cause: e });
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

// The ONNX documentation example as a GridSample-16 model.
const BASIC_MODEL = encodeModel({
  opset: 16,
  nodes: [{ op: 'GridSample', inputs: ['X', 'grid'], outputs: ['Y'], attrs: { mode: 'bilinear' } }],
  inputs: [{ name: 'X', dtype: 'float32', dims: [1, 1, 4, 4] }, { name: 'grid', dtype: 'float32', dims: [1, 6, 6, 2] }],
  outputs: [{ name: 'Y', dtype: 'float32', dims: [1, 1, 6, 6] }],
});

// The threads pages (Vite and webpack): load({ numThreads: 2 }) and the single-threaded SIMD build
// (the oracle) warp the same image, in the page and in a module worker; then, in the page,
// createPool({ workers: 2 }) and one SIMD instance warp a larger image.
const THREADS_FILES = {
  // Plain ES module without imports: the test imports it in Node too, for a third oracle.
  'threads_input.mjs': `// The threads pages' input: a 64x48 RGBA image of seeded noise, turned by 0.4 rad, moved and
// enlarged to 256x192, bicubic: about 4M cost units, a call the threaded build splits.
export function threadsInput() {
  const width = 64, height = 48;
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0, s = 7; i < data.length; ++i) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    data[i] = s >>> 24;
  }
  const a = 0.4;
  const theta = [Math.cos(a), -Math.sin(a) * height / width, 0.05, Math.sin(a) * width / height, Math.cos(a), -0.1];
  return { image: { data, width, height }, theta, options: { mode: 'bicubic', paddingMode: 'border', width: 256, height: 192 } };
}

/**
 * The pool check's input: a 1024x1024 RGBA image of seeded noise, turned by 25 degrees about its
 * centre and enlarged 1.2 times in pixel space, bicubic: 67M values x taps, 8 per byte copied,
 * a call createPool splits.
 */
export function poolInput(gs) {
  const side = 1024;
  const data = new Uint8ClampedArray(side * side * 4);
  for (let i = 0, s = 11; i < data.length; ++i) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    data[i] = s >>> 24;
  }
  return { image: { data, width: side, height: side }, matrix: gs.rotationMatrix([side / 2, side / 2], 25, 1.2), options: { space: 'pixel', mode: 'bicubic' } };
}

/** How many elements of y differ from oracle's, and the first that does (-1: none). */
export function differences(y, oracle) {
  let differ = 0;
  let first = -1;
  for (let i = 0; i < oracle.length; ++i) {
    if (y[i] !== oracle[i]) {
      differ += 1;
      if (first < 0) first = i;
    }
  }
  return { differ, first };
}

/** FNV-1a of a byte array, as 8 hex digits. */
export function fnv1a(bytes) {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; ++i) h = Math.imul(h ^ bytes[i], 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}
`,
  'threads_example.js': `// The threads example: load({ numThreads: 2 }) against load({ variant: 'simd' }) on the same warpAffine.
import { load, threadsSupported } from 'gridsample';
import { differences, fnv1a, threadsInput } from './threads_input.mjs';

// Counts the pthread starts this context posts to its workers (Emscripten's { cmd: 'run' }):
// the library starts its second thread at the first call it splits.
const posted = { run: 0 };
if (typeof Worker === 'function') {
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message && message.cmd === 'run') posted.run += 1;
    return post.call(this, message, ...rest);
  };
}

export async function threadsExample() {
  // No warm-up calls: the warp below is the threaded module's first call.
  const [threaded, single] = await Promise.all([load({ numThreads: 2, warmUp: false }), load({ variant: 'simd' })]);
  const { image, theta, options } = threadsInput();
  const runsBefore = posted.run;
  const y = threaded.warpAffine(image, theta, options).data;
  const runs = posted.run;
  const oracle = single.warpAffine(image, theta, options).data;
  const { differ, first } = differences(y, oracle);
  return {
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    threadsSupported: threadsSupported(),
    backend: threaded.backend, threads: threaded.threads, oracleBackend: single.backend,
    runsBefore, runs, length: y.length, oracleLength: oracle.length, differ, first,
    hash: fnv1a(y), oracleHash: fnv1a(oracle), distinct: new Set(oracle).size,
  };
}
`,
  'pool_example.js': `// The pool example: createPool({ workers: 2 }) splits a warpAffine into row bands between its
// module workers; the bytes must be those of one instance (variant simd) in the same context.
import { createPool, load } from 'gridsample';
import { differences, fnv1a, poolInput } from './threads_input.mjs';

// The pool's messages this context posts: 'init' starts a worker, 'band' hands it rows of a call.
const posted = { init: 0, bands: new Map() };
if (typeof Worker === 'function') {
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message && message.type === 'init') posted.init += 1;
    if (message && message.type === 'band') posted.bands.set(this, (posted.bands.get(this) || 0) + 1);
    return post.call(this, message, ...rest);
  };
}

export async function poolExample() {
  const gs = await load({ variant: 'simd' });
  const { image, matrix, options } = poolInput(gs);
  const pool = await createPool({ workers: 2 });
  const progress = [];
  const y = (await pool.warpAffine(image, matrix, { ...options, onProgress: (f) => progress.push(f) })).data;
  const oracle = gs.warpAffine(image, matrix, options).data;
  const { differ, first } = differences(y, oracle);
  await pool.terminate();
  const after = await pool.warpAffine(image, matrix, options).then(() => 'resolved', (e) => e.message);
  return {
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    workers: pool.workers, started: posted.init, bands: [...posted.bands.values()], progress,
    cls: y.constructor.name, length: y.length, oracleLength: oracle.length, differ, first,
    hash: fnv1a(y), oracleHash: fnv1a(oracle), distinct: new Set(oracle).size, after,
  };
}
`,
  'threads_page.js': `// The threads page: the example in the page and in a module worker, then the pool example in the page.
import { threadsExample } from './threads_example.js';
import { poolExample } from './pool_example.js';

const worker = new Worker(new URL('./threads_worker.js', import.meta.url), { type: 'module' });
const fromWorker = new Promise((resolve, reject) => {
  worker.onmessage = (e) => resolve(e.data);
  worker.onerror = (e) => reject(new Error('worker: ' + e.message));
});
Promise.all([threadsExample(), fromWorker])
  .then(async ([page, moduleWorker]) => ({ page, moduleWorker, pool: await poolExample() }))
  .then((r) => { window.__results = r; }, (e) => { window.__results = { error: String(e && e.stack || e) }; });
`,
  'threads_worker.js': `// Module worker of the threads page: the example inside the worker.
import { threadsExample } from './threads_example.js';
threadsExample().then((r) => postMessage(r), (e) => postMessage({ error: String(e && e.stack || e) }));
`,
  'threads.html': `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>gridsample threads</title></head>
<body><script type="module" src="./threads_page.js"></script></body></html>
`,
  // Unbundled, in the page only (an import map names the package; workers have none).
  'raw_threads.html': `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>gridsample threads unbundled</title>
<script type="importmap">{ "imports": { "gridsample": "/node_modules/gridsample/browser.mjs" } }</script></head>
<body><script type="module">
import { load } from 'gridsample';
import { threadsExample } from '/threads_example.js';
const named = load({ variant: 'simd-threads', numThreads: 2, warmUp: false }).then((gs) => ({ backend: gs.backend }), (e) => ({ error: String(e) }));
Promise.all([threadsExample(), named]).then(
  ([page, named]) => { window.__results = { page, named }; },
  (e) => { window.__results = { error: String(e && e.stack || e) }; });
</script></body></html>
`,
};

// What makes a page and its workers cross-origin isolated (SharedArrayBuffer, wasm threads).
const ISOLATION_HEADERS = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
// In Emscripten's pthread worker script (gridsample-simd-threads.worker.js), bundled or not.
const PTHREAD_WORKER_MARK = 'worker.js received unknown command';

// In the pool's worker script (pool/serve.mjs, which only pool/pool_worker.mjs imports), bundled or not.
const POOL_WORKER_MARK = 'a fault injected by a test';

/** The requested paths (under `root`, query dropped) whose file includes `mark`. */
function scriptsWith(mark, requests, root) {
  return requests.filter((url) => {
    const file = join(root, decodeURIComponent(url.replace(/[?#].*$/, '')));
    return file.startsWith(root) && existsSync(file) && readFileSync(file, 'utf8').includes(mark);
  });
}

/** The requested paths whose file is the pthread worker script. */
const pthreadWorkerScripts = (requests, root) => scriptsWith(PTHREAD_WORKER_MARK, requests, root);

/** Each of the pool's two workers fetched its script from the bundle: a path matching `pattern`. */
function assertPoolWorkerScripts(requests, pattern) {
  const scripts = scriptsWith(POOL_WORKER_MARK, requests, app);
  assert.equal(scripts.length, 2, `pool worker scripts fetched: ${scripts.join(', ') || 'none'}; requests: ${requests.join(' ')}`);
  for (const path of scripts) assert.match(path, pattern);
}

/**
 * The threads example's result `r` (from a page or worker): threads on an isolated page, the
 * single-threaded fallback elsewhere; either way the same bytes as the SIMD build there and in
 * Node (`node`: {length, hash}).
 */
function assertThreadsExample(r, where, { isolated, node }) {
  assert.ok(r && !r.error, `${where}: ${r && r.error}`);
  assert.equal(r.crossOriginIsolated, isolated, `${where}: crossOriginIsolated`);
  assert.equal(r.threadsSupported, isolated, `${where}: threadsSupported()`);
  assert.equal(r.backend, isolated ? 'wasm-simd128-threads' : 'wasm-simd128', `${where}: backend`);
  assert.equal(r.threads, isolated ? 2 : 1, `${where}: threads`);
  assert.equal(r.oracleBackend, 'wasm-simd128', `${where}: the oracle's backend`);
  // The warp, the threaded module's first call, started its second thread (and no other did).
  assert.deepEqual([r.runsBefore, r.runs], isolated ? [0, 1] : [0, 0], `${where}: pthreads started before and after the call`);
  assert.ok(r.distinct > 200, `${where}: the result is nearly constant (${r.distinct} values)`);
  assert.equal(r.differ, 0, `${where}: ${r.differ} of ${r.length} bytes differ from variant simd's, the first at ${r.first}`);
  assert.deepEqual([r.length, r.oracleLength, r.hash, r.oracleHash], [node.length, node.length, node.hash, node.hash],
    `${where}: [length, oracle length, hash, oracle hash] vs the Node SIMD build's`);
}

/**
 * The pool example's result `r` (from a page): two workers started, the 1024x1024 warp split into
 * bands that both took, the same bytes as one instance there and in Node (`node`: {length, hash}).
 */
function assertPoolExample(r, where, { isolated, node }) {
  assert.ok(r && !r.error, `${where}: ${r && r.error}`);
  assert.equal(r.crossOriginIsolated, isolated, `${where}: crossOriginIsolated`);
  assert.deepEqual([r.workers, r.started], [2, 2], `${where}: [pool.workers, workers started]`);
  // Split: a progress call per band, rising, below 1 until the last; each worker took bands.
  const { progress } = r;
  assert.ok(progress.length >= 2 && progress.every((f, i) => f > (i ? progress[i - 1] : 0)) && progress.at(-1) === 1,
    `${where}: the call was not split: progress ${progress.join(', ')}`);
  assert.equal(r.bands.length, 2, `${where}: workers that got bands: ${r.bands.length}`);
  assert.ok(r.bands.every((n) => n >= 1), `${where}: bands per worker ${r.bands.join(', ')}`);
  assert.equal(r.bands[0] + r.bands[1], progress.length, `${where}: bands handed out ${r.bands.join(' + ')}, progress calls ${progress.length}`);
  assert.equal(r.cls, 'Uint8ClampedArray', `${where}: the result's array class`);
  assert.ok(r.distinct > 200, `${where}: the result is nearly constant (${r.distinct} values)`);
  assert.equal(r.length, r.oracleLength, `${where}: the pool's result length vs one instance's`);
  assert.equal(r.differ, 0, `${where}: ${r.differ} of ${r.length} bytes differ from one instance's, the first at ${r.first}`);
  assert.deepEqual([r.length, r.oracleLength, r.hash, r.oracleHash], [node.length, node.length, node.hash, node.hash],
    `${where}: [length, oracle length, hash, oracle hash] vs the Node SIMD build's`);
  assert.equal(r.after, 'pool.warpAffine: the pool was terminated', `${where}: a call after terminate()`);
}

// What the threads pages of a bundle are opened with: a server of `app` without and one with
// COOP/COEP, the Node oracle of their warp, and Chromium.
async function threadsPages(app) {
  return {
    server: await serveStatic(app),
    isolatedServer: await serveStatic(app, { headers: ISOLATION_HEADERS }),
    nodeOracle: await nodeThreadsOracle(),
    context: await launchChromium(),
  };
}

async function closeThreadsPages({ server, isolatedServer, context }) {
  if (context) await context.close();
  if (server) await server.close();
  if (isolatedServer) await isolatedServer.close();
}

/**
 * The threads and pool examples' warpAffine by the installed package in Node (variant simd):
 * {length, hash, pool: {length, hash}}.
 */
async function nodeThreadsOracle() {
  const { load } = await import(pathToFileURL(join(app, 'node_modules', 'gridsample', 'node.mjs')).href);
  const { fnv1a, poolInput, threadsInput } = await import(pathToFileURL(join(app, 'threads_input.mjs')).href);
  const { image, theta, options } = threadsInput();
  const gs = await load({ variant: 'simd', warmUp: false });
  const y = gs.warpAffine(image, theta, options).data;
  const p = poolInput(gs);
  const pool = gs.warpAffine(p.image, p.matrix, p.options).data;
  return { length: y.length, hash: fnv1a(y), pool: { length: pool.length, hash: fnv1a(pool) } };
}

async function launchChromium() {
  const { chromium } = await import('playwright-core');
  return chromium.launchPersistentContext(mkdtempSync(join(work, 'chromium-profile-')), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * Opens `url` in a new page of `context`, waits for window.__results and returns them; fails on
 * page errors, console errors, failed requests and HTTP errors, except those matching `allow`.
 * `route` (optional) is [pattern, handler] for page.route.
 */
async function pageResults(context, url, { allow, route } = {}) {
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  if (route) await page.route(...route);
  await page.goto(url);
  try {
    await page.waitForFunction(() => window.__results !== undefined, null, { timeout: 20000 });
  } catch (e) {
    throw new Error(`${url}: no results (${e.message}); page problems: ${problems.join('; ') || 'none'}`, { cause: e });
  }
  const r = await page.evaluate(() => window.__results);
  await page.close();
  assert.deepEqual(problems.filter((p) => !(allow && allow.test(p))), []);
  assert.ok(!r.error, r.error);
  return r;
}

let work;
let app;
let packInfo;

before(async () => {
  // The package installs nothing else (dependencies.test.mjs); what its entry points use here
  // are the user's own optional peers: onnxruntime-web and the ONNX reader for gridsample/onnx,
  // the CLI's codecs.
  ({ work, app, pack: packInfo } = await installPacked('gridsample-pack-', { peers: ['onnxruntime-web', '@bufbuild/protobuf', 'pngjs', 'jpeg-js'] }));
  writeFileSync(join(app, 'example.js'), EXAMPLE_JS);
  for (const [name, text] of Object.entries(THREADS_FILES)) writeFileSync(join(app, name), text);
});

after(() => {
  // GRIDSAMPLE_KEEP_TMP=1 keeps the consumer project for a look after a failure.
  if (work && !process.env.GRIDSAMPLE_KEEP_TMP) rmSync(work, { recursive: true, force: true });
  else if (work) console.log(`# kept ${work}`);
});

describe('npm pack', () => {
  test('the tarball ships exactly the package files; no dependencies, optional peers: onnxruntime, the ONNX protobuf and the CLI\'s PNG and JPEG codecs', () => {
    const files = packInfo.files.map((f) => f.path).sort();
    assert.deepEqual(files, [...SHIPPED].sort());
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', 'gridsample', 'package.json'), 'utf8'));
    assert.equal(manifest.name, 'gridsample');
    assert.equal(manifest.license, 'MIT');
    const licence = readFileSync(join(app, 'node_modules', 'gridsample', 'LICENSE'), 'utf8');
    assert.equal(licence, readFileSync(join(HERE, '..', '..', 'LICENSE'), 'utf8'), 'the shipped LICENSE is the repository\'s');
    assert.match(licence, /^MIT License\n/);
    assert.equal(manifest.dependencies, undefined);
    // onnxruntime is the caller's own copy (gridsample/onnx takes it as options.ort), the ONNX
    // reader is gridsample/onnx's alone, the codecs the CLI's: optional peers.
    assert.deepEqual(Object.keys(manifest.peerDependencies).sort(), ['@bufbuild/protobuf', 'jpeg-js', 'onnxruntime-node', 'onnxruntime-web', 'pngjs']);
    for (const name of Object.keys(manifest.peerDependencies)) assert.equal(manifest.peerDependenciesMeta[name].optional, true, name);
    assert.ok(!packInfo.files.some((f) => /onnxruntime/.test(f.path)), 'gridsample ships no onnxruntime');
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

  test('the .wasm files are subpath exports (gridsample/gridsample-simd.wasm), loadable as wasmBinary', async () => {
    const script = `import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from 'gridsample';
import { example } from './example.js';
const out = {};
for (const variant of ['simd', 'scalar']) {
  const url = import.meta.resolve(\`gridsample/gridsample-\${variant}.wasm\`);
  const gs = await load({ variant, wasmBinary: readFileSync(fileURLToPath(url)) });
  out[variant] = { url, ...example(gs) };
}
console.log(JSON.stringify(out));`;
    writeFileSync(join(app, 'wasm-subpath.mjs'), script);
    const { stdout } = await sh(process.execPath, ['wasm-subpath.mjs'], { cwd: app });
    const r = JSON.parse(stdout);
    for (const variant of ['simd', 'scalar']) {
      assert.match(r[variant].url, new RegExp(`node_modules/gridsample/dist/gridsample-${variant}\\.wasm$`));
      assert.equal(r[variant].backend, variant === 'simd' ? 'wasm-simd128' : 'wasm-scalar');
      assertExampleRow(r[variant], `wasm subpath ${variant}`);
    }
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

  // The example as a one-node model through gridsample/onnx, with the app's onnxruntime-web.
  const ONNX_SCRIPT = (importLine) => `${importLine}
const ort = await import('onnxruntime-web');
ort.env.wasm.numThreads = 1;
const model = Uint8Array.from(${JSON.stringify([...BASIC_MODEL])});
const axis = [-1, -0.6, -0.2, 0.2, 0.6, 1];
const session = await InferenceSession.create(model, { ort });
const { Y } = await session.run({
  X: new ort.Tensor('float32', Float32Array.from({ length: 16 }, (_, i) => i), [1, 1, 4, 4]),
  grid: new ort.Tensor('float32', Float32Array.from(axis.flatMap((y) => axis.flatMap((x) => [x, y]))), [1, 6, 6, 2]),
});
console.log(JSON.stringify({ runsOn: session.plan().parts.map((p) => p.runsOn), shape: Y.dims, data: Array.from(Y.data), isOrt: Y instanceof ort.Tensor }));
await session.release();`;

  for (const [format, importLine, file] of [
    ['ESM', "import { InferenceSession } from 'gridsample/onnx';", 'onnx-esm.mjs'],
    ['CommonJS', "const { InferenceSession } = require('gridsample/onnx');", 'onnx-cjs.cjs'],
  ]) {
    test(`gridsample/onnx (${format}) runs a GridSample model with onnxruntime-web`, async () => {
      const body = ONNX_SCRIPT(importLine);
      // CommonJS has no top-level await: the same script inside an async function.
      writeFileSync(join(app, file), format === 'ESM' ? body : `${importLine}\n(async () => {\n${body.slice(importLine.length)}\n})();`);
      const { stdout } = await sh(process.execPath, [file], { cwd: app });
      const r = JSON.parse(stdout);
      assert.deepEqual(r.runsOn, ['gridsample']);
      assert.equal(r.isOrt, true, 'results are the caller\'s onnxruntime tensors');
      assertExampleRow(r, `gridsample/onnx ${format}`);
    });
  }

  for (const [format, file, script] of [
    ['ESM', 'webgpu-esm.mjs', "import { createGpu } from 'gridsample/webgpu';\ncreateGpu().catch((e) => console.log(JSON.stringify({ type: typeof createGpu, name: e.name, message: e.message })));"],
    ['CommonJS', 'webgpu-cjs.cjs', "const { createGpu } = require('gridsample/webgpu');\ncreateGpu().catch((e) => console.log(JSON.stringify({ type: typeof createGpu, name: e.name, message: e.message })));"],
  ]) {
    test(`gridsample/webgpu (${format}) resolves; where WebGPU is missing, createGpu() says so`, async () => {
      writeFileSync(join(app, file), script);
      const { stdout } = await sh(process.execPath, [file], { cwd: app });
      const r = JSON.parse(stdout);
      assert.equal(r.type, 'function');
      assert.equal(r.name, 'Error');
      assert.match(r.message, /^createGpu: WebGPU is not available here \(no navigator\.gpu\); pass options\.device/);
    });
  }

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
});

// TypeScript consumers: typescript/consumer.ts compiled as an ES module (.mts) and as CommonJS
// (.cts, `import = require`), strict and with the package's declarations checked too (no skipLibCheck).
const TS_MODULES = {
  node16: { module: 'node16', moduleResolution: 'node16' },
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'preserve', moduleResolution: 'bundler' },
};
const TS_IMPORTS = { esm: "import * as gridsample from 'gridsample';", cjs: "import gridsample = require('gridsample');" };
// The one difference: node.mjs and browser.mjs export the HeapTensor class, index.cjs only its type.
const TS_FORMAT_CHECKS = {
  esm: `export const isHeapTensor = (v: unknown): boolean => v instanceof gridsample.HeapTensor;
// @ts-expect-error: HeapTensor is not constructible
new gridsample.HeapTensor();
`,
  cjs: `// @ts-expect-error: index.cjs exports no HeapTensor class
export const isHeapTensor = (v: unknown): boolean => v instanceof gridsample.HeapTensor;
`,
};

// tsc's errors, each followed by the line it points at (the assertion that failed).
function withSourceLines(dir, output) {
  return output.replace(/^(\S+?)\((\d+),\d+\): .*$/gm, (error, file, line) => {
    try {
      return `${error}\n    ${readFileSync(join(dir, file), 'utf8').split('\n')[line - 1].trim()}`;
    } catch {
      return error;
    }
  });
}

describe('TypeScript consumer (strict, no skipLibCheck): exact result types', { concurrency: true }, () => {
  let dir;

  before(() => {
    dir = join(app, 'ts');
    mkdirSync(dir);
    const source = readFileSync(join(HERE, 'typescript', 'consumer.ts'), 'utf8');
    assert.ok(source.includes(TS_IMPORTS.esm), 'consumer.ts imports gridsample as an ES module');
    writeFileSync(join(dir, 'esm.mts'), source + TS_FORMAT_CHECKS.esm);
    writeFileSync(join(dir, 'cjs.cts'), source.replace(TS_IMPORTS.esm, TS_IMPORTS.cjs) + TS_FORMAT_CHECKS.cjs);
    // gridsample/onnx with onnxruntime-web's types: the same source as ESM and CommonJS (a .cts
    // file's import declarations compile to require()).
    const onnxSource = readFileSync(join(HERE, 'typescript', 'onnx_consumer.ts'), 'utf8');
    writeFileSync(join(dir, 'onnx_esm.mts'), onnxSource);
    writeFileSync(join(dir, 'onnx_cjs.cts'), onnxSource);
    // gridsample/ort and gridsample/transformers: ES modules only.
    writeFileSync(join(dir, 'ort_esm.mts'), readFileSync(join(HERE, 'typescript', 'ort_consumer.ts'), 'utf8'));
    // Without the DOM lib: the same source as ESM and CommonJS, and Node's own classes.
    const noDomSource = readFileSync(join(HERE, 'typescript', 'no_dom_consumer.ts'), 'utf8');
    writeFileSync(join(dir, 'no_dom_esm.mts'), noDomSource);
    writeFileSync(join(dir, 'no_dom_cjs.cts'), noDomSource);
    writeFileSync(join(dir, 'node_esm.mts'), readFileSync(join(HERE, 'typescript', 'node_consumer.ts'), 'utf8'));
  });

  for (const [name, modules] of Object.entries(TS_MODULES)) {
    test(`${name}: ESM (index.d.ts, onnx.d.ts, ort.d.ts, transformers.d.ts) and CommonJS (index.d.cts, onnx.d.cts) consumers`, async () => {
      const config = `tsconfig.${name}.json`;
      writeFileSync(join(dir, config), JSON.stringify({
        compilerOptions: {
          ...modules, strict: true, skipLibCheck: false, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'], types: [],
        },
        files: ['esm.mts', 'cjs.cts', 'onnx_esm.mts', 'onnx_cjs.cts', 'ort_esm.mts'],
      }, null, 2));
      try {
        await run(join(BIN, 'tsc'), ['-p', config], { cwd: dir, encoding: 'utf8' });
      } catch (e) {
        assert.fail(`tsc -p ${config} (${modules.module}, ${modules.moduleResolution}):\n${withSourceLines(dir, `${e.stdout}${e.stderr}`)}`);
      }
    });
  }

  // Projects without the DOM lib (issue 27: a Node-only `lib: ["es2022"]` failed with TS2503
  // "Cannot find namespace 'WebAssembly'"): es2022 alone, with Node's types (the tests' copy of
  // @types/node), and a worker's lib.
  const NO_DOM = {
    es2022: { lib: ['es2022'], types: [], files: ['no_dom_esm.mts', 'no_dom_cjs.cts'] },
    'es2022-node': { lib: ['es2022'], types: ['node'], files: ['no_dom_esm.mts', 'no_dom_cjs.cts', 'node_esm.mts'] },
    'es2022-webworker': { lib: ['es2022', 'webworker'], types: [], files: ['no_dom_esm.mts', 'no_dom_cjs.cts'] },
  };
  for (const [name, { lib, types, files }] of Object.entries(NO_DOM)) {
    test(`no DOM lib: lib ${lib.join(' + ')}, types [${types.join(', ')}] (nodenext)`, async () => {
      const config = `tsconfig.${name}.json`;
      writeFileSync(join(dir, config), JSON.stringify({
        compilerOptions: {
          ...TS_MODULES.nodenext, strict: true, skipLibCheck: false, noEmit: true, target: 'es2022', lib, types,
          typeRoots: [join(HERE, 'node_modules', '@types')],
        },
        files,
      }, null, 2));
      try {
        await run(join(BIN, 'tsc'), ['-p', config], { cwd: dir, encoding: 'utf8' });
      } catch (e) {
        assert.fail(`tsc -p ${config}:\n${withSourceLines(dir, `${e.stdout}${e.stderr}`)}`);
      }
    });
  }
});

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
  const session = await InferenceSession.create(MODEL, { ort, executionProviders: ['wasm'] });
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
