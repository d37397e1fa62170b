// The packaging tests' browser side: the threads and pool pages a bundle is built from, the servers and headless Chromium they open in, and the checks of their results.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { serveStatic } from './static_server.mjs';

const CHROMIUM = process.env.GRIDSAMPLE_CHROMIUM || '/usr/bin/chromium';

// The threads pages (Vite and webpack): load({ numThreads: 2 }) and the single-threaded SIMD build
// (the oracle) warp the same image, in the page and in a module worker; then, in the page,
// createPool({ workers: 2 }) and one SIMD instance warp a larger image.
export const THREADS_FILES = {
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
export const ISOLATION_HEADERS = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
// In Emscripten's pthread worker script (gridsample-simd-threads.worker.js), bundled or not.
export const PTHREAD_WORKER_MARK = 'worker.js received unknown command';

// In the pool's worker script (pool/serve.mjs, which only pool/pool_worker.mjs imports), bundled or not.
export const POOL_WORKER_MARK = 'a fault injected by a test';

/** The requested paths (under `root`, query dropped) whose file includes `mark`. */
export function scriptsWith(mark, requests, root) {
  return requests.filter((url) => {
    const file = join(root, decodeURIComponent(url.replace(/[?#].*$/, '')));
    return file.startsWith(root) && existsSync(file) && readFileSync(file, 'utf8').includes(mark);
  });
}

/** The requested paths whose file is the pthread worker script. */
export const pthreadWorkerScripts = (requests, root) => scriptsWith(PTHREAD_WORKER_MARK, requests, root);

/**
 * The threads example's result `r` (from a page or worker): threads on an isolated page, the
 * single-threaded fallback elsewhere; either way the same bytes as the SIMD build there and in
 * Node (`node`: {length, hash}).
 */
export function assertThreadsExample(r, where, { isolated, node }) {
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
export function assertPoolExample(r, where, { isolated, node }) {
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
export async function threadsPages(app) {
  return {
    server: await serveStatic(app),
    isolatedServer: await serveStatic(app, { headers: ISOLATION_HEADERS }),
    nodeOracle: await nodeThreadsOracle(app),
    context: await launchChromium(dirname(app)),
  };
}

export async function closeThreadsPages({ server, isolatedServer, context }) {
  if (context) await context.close();
  if (server) await server.close();
  if (isolatedServer) await isolatedServer.close();
}

/**
 * The threads and pool examples' warpAffine by the installed package in Node (variant simd):
 * {length, hash, pool: {length, hash}}.
 */
async function nodeThreadsOracle(app) {
  const { load } = await import(pathToFileURL(join(app, 'node_modules', 'gridsample', 'node.mjs')).href);
  const { fnv1a, poolInput, threadsInput } = await import(pathToFileURL(join(app, 'threads_input.mjs')).href);
  const { image, theta, options } = threadsInput();
  const gs = await load({ variant: 'simd', warmUp: false });
  const y = gs.warpAffine(image, theta, options).data;
  const p = poolInput(gs);
  const pool = gs.warpAffine(p.image, p.matrix, p.options).data;
  return { length: y.length, hash: fnv1a(y), pool: { length: pool.length, hash: fnv1a(pool) } };
}

async function launchChromium(work) {
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
export async function pageResults(context, url, { allow, route } = {}) {
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
