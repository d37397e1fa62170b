// transformers.js on gridsample: a tiny RT-DETR-shaped detector through transformers.js's object-detection pipeline (3.x and 4.x), with gridsample/transformers in Node and gridsample/ort behind a Vite alias in headless Chromium, against transformers.js on onnxruntime alone.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';

import { WEBGPU_FLAGS, within } from './lib/chromium_webgpu.mjs';
import { installPacked } from './lib/packed.mjs';
import { serveStatic } from './lib/static_server.mjs';
import { LABELS, testPicture, writeDetectorFolder } from './lib/tiny_detector.mjs';

const run = promisify(execFile);
const CHROMIUM = process.env.GRIDSAMPLE_CHROMIUM || '/usr/bin/chromium';
const HERE = dirname(fileURLToPath(import.meta.url));
const EXAMPLE = join(HERE, '..', '..', 'examples', 'transformers');
const DEV = JSON.parse(readFileSync(join(HERE, 'package.json'), 'utf8')).devDependencies;
// transformers.js as the tests install it: 3.x and 4.x under aliases, each with the
// onnxruntime-web it pins (1.22.0-dev and 1.31.0-dev: the peer range's oldest and newest).
const VERSIONS = { transformers3: '3.8.1', transformers4: '4.3.2' };
const THRESHOLD = 0.5;
// Scores are softmax outputs: equal to the last bits float32 allows for the same logits;
// GridSample summing its taps in another order moves them by a few ulps at most.
const SCORE_TOLERANCE = 1e-5;

let work;
let app;
const MODELS = () => join(app, 'models');

// A Node program that runs the pipeline on the test picture and prints what it found, with the
// onnxruntime sessions made and released (counted on onnxruntime-node's InferenceSession) and,
// on gridsample, the split's counts and what a run after dispose() says.
function nodeProgram(transformers, hook) {
  return `${hook ? "import 'gridsample/transformers';\n" : ''}import * as ortNode from 'onnxruntime-node';
import { env, pipeline, RawImage } from '${transformers}';
import { testPicture } from ${JSON.stringify(pathToFileURL(join(HERE, 'lib', 'tiny_detector.mjs')).href)};

const parts = { created: 0, released: 0 };
const create = ortNode.InferenceSession.create;
ortNode.InferenceSession.create = async (...args) => {
  const s = await create.apply(ortNode.InferenceSession, args);
  parts.created += 1;
  const release = s.release.bind(s);
  s.release = () => { parts.released += 1; return release(); };
  return s;
};
env.allowRemoteModels = false;
env.localModelPath = ${JSON.stringify(`${MODELS()}/`)};
const detector = await pipeline('object-detection', 'tiny-rt-detr', { dtype: 'fp32'${hook ? ", device: 'auto'" : ''} });
const { data, width, height, channels } = testPicture();
const detections = await detector(new RawImage(data, width, height, channels), { threshold: ${THRESHOLD} });
const session = detector.model.sessions.model;
const counts = session.plan?.().counts ?? null;
const during = { ...parts };
await detector.dispose();
let afterDispose = null;
try { await session.run({}); } catch (e) { afterDispose = e.message; }
console.log(JSON.stringify({ detections, during, parts, counts, afterDispose }));
`;
}

async function runNode(transformers, hook) {
  const file = join(app, `${transformers}-${hook ? 'gridsample' : 'onnxruntime'}.mjs`);
  writeFileSync(file, nodeProgram(transformers, hook));
  const { stdout } = await run(process.execPath, ['--no-concurrent-recompilation', file], { cwd: app, encoding: 'utf8', timeout: 180_000 }).catch((e) => {
    throw new Error(`${file} failed:\n${e.stdout}\n${e.stderr}`, { cause: e });
  });
  return JSON.parse(stdout.trim().split('\n').pop());
}

/** The detections of `ours` and `theirs` (pipeline outputs) are the same: labels, boxes, scores. */
function assertSameDetections(ours, theirs, where) {
  let worst = 0;
  assert.equal(ours.length, theirs.length, `${where}: ${ours.length} detections against onnxruntime's ${theirs.length}`);
  ours.forEach((d, i) => {
    assert.equal(d.label, theirs[i].label, `${where}: detection ${i}`);
    assert.deepEqual(d.box, theirs[i].box, `${where}: detection ${i}'s box`);
    assert.ok(Math.abs(d.score - theirs[i].score) <= SCORE_TOLERANCE, `${where}: detection ${i} scores ${d.score}, onnxruntime ${theirs[i].score}`);
    worst = Math.max(worst, Math.abs(d.score - theirs[i].score));
  });
  return `${where}: ${ours.length} detections (${[...new Set(ours.map((d) => d.label))].join(', ')}), labels and boxes equal, scores within ${worst.toExponential(2)}`;
}

before(async () => {
  const onnxruntimeNode = DEV['onnxruntime-node'];
  ({ work, app } = await installPacked('gridsample-transformers-', {
    peers: ['transformers3', 'transformers4', 'onnxruntime-node', 'onnxruntime-web', '@bufbuild/protobuf'],
    // transformers.js 3.x pins onnxruntime-node 1.21.0; the tests run it on the one they share.
    manifest: { type: 'module', overrides: { transformers3: { 'onnxruntime-node': onnxruntimeNode } } },
  }));
  writeDetectorFolder(join(MODELS(), 'tiny-rt-detr'));
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('gridsample/transformers in Node', () => {
  for (const transformers of Object.keys(VERSIONS)) {
    test(`transformers.js ${VERSIONS[transformers]}: the object-detection pipeline finds what it finds on onnxruntime alone`, async (t) => {
      const [ours, theirs] = await Promise.all([runNode(transformers, true), runNode(transformers, false)]);
      const where = `transformers.js ${VERSIONS[transformers]} in Node`;
      assert.ok(theirs.detections.length > 0 && theirs.detections.length < 24, `${where}: the test needs some detections, not all: ${theirs.detections.length}`);
      for (const d of theirs.detections) assert.ok(LABELS.slice(0, -1).includes(d.label), `${where}: label ${d.label}`);
      t.diagnostic(assertSameDetections(ours.detections, theirs.detections, where));
      // The model ran split: its three GridSample nodes on gridsample, the rest in onnxruntime parts.
      assert.equal(ours.counts.gridsampleNodes, 3, where);
      assert.ok(ours.counts.onnxruntimeSessions >= 2, `${where}: ${ours.counts.onnxruntimeSessions} onnxruntime sessions`);
      assert.equal(ours.during.created, ours.counts.onnxruntimeSessions, `${where}: onnxruntime sessions made`);
      assert.equal(ours.during.released, 0, where);
      // dispose() (transformers.js calls session.handler.dispose()) released every part.
      assert.equal(ours.parts.released, ours.parts.created, `${where}: ${ours.parts.released} of ${ours.parts.created} onnxruntime sessions released`);
      assert.match(ours.afterDispose, /released/, where);
      assert.equal(theirs.counts, null, `${where}: the plain run is onnxruntime's own session`);
    });
  }
});

test("examples/transformers/detect.mjs prints the detections of transformers.js on onnxruntime alone", async () => {
  const { PNG } = await import('pngjs');
  const { data, width, height } = testPicture();
  const png = new PNG({ width, height });
  for (let i = 0; i < width * height; ++i) {
    png.data.set([data[3 * i], data[3 * i + 1], data[3 * i + 2], 255], 4 * i);
  }
  writeFileSync(join(app, 'picture.png'), PNG.sync.write(png));
  // The example as written, transformers.js 4.x under the tests' alias name.
  const source = readFileSync(join(EXAMPLE, 'detect.mjs'), 'utf8');
  assert.ok(source.includes("from '@huggingface/transformers'"));
  writeFileSync(join(app, 'detect.mjs'), source.replace("from '@huggingface/transformers'", "from 'transformers4'"));
  const [{ stdout }, theirs] = await Promise.all([
    run(process.execPath, ['--no-concurrent-recompilation', 'detect.mjs', 'picture.png', 'tiny-rt-detr', MODELS()], { cwd: app, encoding: 'utf8', timeout: 180_000 }),
    runNode('transformers4', false),
  ]);
  const [summary, ...lines] = stdout.trim().split('\n');
  assert.match(summary, /^tiny-rt-detr: 3 GridSample nodes on gridsample, \d+ nodes in 2 onnxruntime sessions$/);
  const expected = theirs.detections.map(({ label, score, box }) => `${label.padEnd(12)} ${score.toFixed(3)}  (${box.xmin}, ${box.ymin}) to (${box.xmax}, ${box.ymax})`);
  assert.deepEqual(lines, expected);
});

// --- headless Chromium: the one alias line in a Vite build ---------------------------------

// The example's Vite config: the alias line for transformers.js 4.x.
const { default: EXAMPLE_CONFIG } = await import(pathToFileURL(join(EXAMPLE, 'vite.config.js')).href);

// The page: the pipeline on the picture with `?device=` (transformers.js's own option), its
// detections, which onnxruntime-web it ran on, and on gridsample the split and where our
// nodes ran; then dispose() and a run after it.
function pageProgram(transformers, gridsample) {
  return `import { env, pipeline, RawImage } from '${transformers}';
import { PICTURE } from './picture.js';

const device = new URLSearchParams(location.search).get('device') ?? 'wasm';
env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = '/models/';
env.useBrowserCache = false;
const onnx = env.backends.onnx;
onnx.wasm.numThreads = 1;
${gridsample ? '' : '// onnxruntime alone: its wasm files from the bundle, not from the CDN transformers.js names.\nonnx.wasm.wasmPaths = undefined;\n'}
// GPU readbacks (GPUBuffer.mapAsync) during the detector's call.
let readbacks = 0;
if (globalThis.GPUBuffer) {
  const mapAsync = GPUBuffer.prototype.mapAsync;
  GPUBuffer.prototype.mapAsync = function counted(...args) { readbacks += 1; return mapAsync.apply(this, args); };
}

async function main() {
  const detector = await pipeline('object-detection', 'tiny-rt-detr', { dtype: 'fp32', device });
  const { data, width, height, channels } = PICTURE;
  readbacks = 0;
  const detections = await detector(new RawImage(Uint8ClampedArray.from(data), width, height, channels), { threshold: ${THRESHOLD} });
  const mapped = readbacks;
  const session = detector.model.sessions.model;
  const plan = session.plan?.();
  const result = {
    detections,
    readbacks: mapped,
    onnxruntimeWeb: onnx.versions.web,
    counts: plan?.counts ?? null,
    backend: plan?.parts.find((p) => p.runsOn === 'gridsample')?.backend ?? null,
  };
  await detector.dispose();
  try { await session.run({}); } catch (e) { result.afterDispose = e.message; }
  return result;
}
main().then((r) => { window.__results = r; }, (e) => { window.__results = { error: String(e && e.stack || e) }; });
`;
}

describe('gridsample/ort behind a Vite alias in headless Chromium', () => {
  let server;
  let context;
  // The pages: transformers.js on gridsample/ort (the alias line, and a second alias that points
  // gridsample/ort at the onnxruntime-web transformers.js pins: the peer range's oldest and
  // newest), on onnxruntime-web alone, and 3.x on gridsample/ort with the app's own newer
  // onnxruntime-web (no second alias), where 3.x's CDN default names files of another version.
  const PAGES = {
    'transformers3-gridsample': { transformers: 'transformers3', gridsample: 'pinned' },
    'transformers3-onnxruntime': { transformers: 'transformers3' },
    'transformers3-gridsample-newer': { transformers: 'transformers3', gridsample: 'installed' },
    'transformers4-gridsample': { transformers: 'transformers4', gridsample: 'pinned' },
    'transformers4-onnxruntime': { transformers: 'transformers4' },
  };

  function aliases({ transformers, gridsample }) {
    if (!gridsample) return [];
    // 4.x: the example's own vite.config.js; 3.x: its line with 3.x's import.
    const line = transformers === 'transformers4' ? EXAMPLE_CONFIG.resolve.alias[0] : { find: /^onnxruntime-web$/, replacement: 'gridsample/ort' };
    if (gridsample === 'installed') return [line];
    return [line, { find: /^onnxruntime-web\/all$/, replacement: join(app, 'node_modules', transformers, 'node_modules', 'onnxruntime-web', 'dist', 'ort.all.bundle.min.mjs') }];
  }

  before(async () => {
    const { build } = await import('vite');
    const { data, width, height, channels } = testPicture();
    writeFileSync(join(app, 'picture.js'), `export const PICTURE = ${JSON.stringify({ data: [...data], width, height, channels })};\n`);
    const nodeEnv = process.env.NODE_ENV; // build() sets NODE_ENV=production for the process
    for (const [name, page] of Object.entries(PAGES)) {
      writeFileSync(join(app, `${name}.js`), pageProgram(page.transformers, Boolean(page.gridsample)));
      writeFileSync(join(app, `${name}.html`), `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>transformers.js detector</title></head>
<body><script type="module" src="./${name}.js"></script></body></html>
`);
      await build({
        root: app,
        configFile: false,
        logLevel: 'error',
        base: './',
        resolve: { alias: aliases(page) },
        build: { outDir: join(app, `dist-${name}`), emptyOutDir: true, rollupOptions: { input: join(app, `${name}.html`) } },
      });
    }
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
    server = await serveStatic(app);
    const { chromium } = await import('playwright-core');
    context = await chromium.launchPersistentContext(join(work, 'chromium-profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...WEBGPU_FLAGS],
    });
  });

  after(async () => {
    await context?.close();
    await server?.close();
  });

  // The page's results; requests that leave 127.0.0.1 are refused (offline, as make test is) and
  // listed: transformers.js 4.x tries to preload onnxruntime-web's files from its CDN first.
  async function pageResults(name, device) {
    const page = await context.newPage();
    const problems = [];
    const external = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
    await page.route((url) => url.hostname !== '127.0.0.1', (route) => { external.push(route.request().url()); return route.abort(); });
    try {
      await page.goto(`${server.origin}/dist-${name}/${name}.html?device=${device}`);
      await within(240, `${name} on ${device}`, page.waitForFunction(() => window.__results !== undefined, null, { timeout: 0 }), problems);
      const r = await page.evaluate(() => window.__results);
      assert.ok(!r.error, `${r.error}; page problems: ${problems.join('; ')}`);
      // "Failed to load resource" repeats a failed request (those of the CDN, refused above, and
      // the 404 of the tokenizer_config.json that transformers.js 4.x probes for, which a
      // detector has none of): the requests themselves are checked.
      const unexpected = problems.filter((p) => !/^console: Failed to load resource/.test(p) && !/^HTTP 404: .*\/models\/tiny-rt-detr\/tokenizer_config\.json$/.test(p));
      assert.deepEqual(unexpected, []);
      return { ...r, external };
    } finally {
      await page.close();
    }
  }

  for (const transformers of Object.keys(VERSIONS)) {
    for (const device of ['wasm', 'webgpu']) {
      test(`transformers.js ${VERSIONS[transformers]}, device '${device}': the pipeline finds what it finds on onnxruntime-web alone`, async (t) => {
        const ours = await pageResults(`${transformers}-gridsample`, device);
        const theirs = await pageResults(`${transformers}-onnxruntime`, device);
        const where = `transformers.js ${VERSIONS[transformers]} on onnxruntime-web ${ours.onnxruntimeWeb}, device ${device}, Chromium`;
        assert.equal(ours.onnxruntimeWeb, theirs.onnxruntimeWeb, where);
        assert.ok(theirs.detections.length > 0, `${where}: onnxruntime-web alone found nothing`);
        t.diagnostic(assertSameDetections(ours.detections, theirs.detections, where));
        assert.equal(ours.counts.gridsampleNodes, 3, where);
        assert.equal(ours.backend, device, `${where}: our nodes ran on ${ours.backend}`);
        // On WebGPU, only the pipeline's outputs come back to the CPU, as on onnxruntime alone:
        // nothing is read back between the parts.
        if (device === 'webgpu') assert.equal(ours.readbacks, theirs.readbacks, `${where}: GPU readbacks`);
        if (device === 'webgpu') t.diagnostic(`${where}: ${ours.readbacks} GPU readbacks per call, onnxruntime-web alone ${theirs.readbacks}`);
        assert.match(ours.afterDispose, /released/, where);
        for (const url of ours.external) assert.match(url, /^https:\/\/cdn\.jsdelivr\.net\/npm\/onnxruntime-web@/, `${where}: a request left the machine`);
      });
    }
  }

  test('transformers.js 3.8.1 with a newer onnxruntime-web: its CDN default is set aside, the installed files load', async (t) => {
    const ours = await pageResults('transformers3-gridsample-newer', 'wasm');
    const theirs = await pageResults('transformers3-onnxruntime', 'wasm');
    const where = `transformers.js 3.8.1 on onnxruntime-web ${ours.onnxruntimeWeb}, device wasm, Chromium`;
    assert.equal(ours.onnxruntimeWeb, DEV['onnxruntime-web'], where);
    assert.notEqual(ours.onnxruntimeWeb, theirs.onnxruntimeWeb, where);
    t.diagnostic(assertSameDetections(ours.detections, theirs.detections, `${where} against ${theirs.onnxruntimeWeb} alone`));
    assert.deepEqual(ours.external, [], where);
  });
});
