// transformers.js on gridsample: a tiny RT-DETR-shaped detector through transformers.js's object-detection pipeline (3.x and 4.x), with gridsample/transformers in Node and gridsample/ort behind a Vite alias in headless Chromium, against transformers.js on onnxruntime alone.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';

import { WEBGPU_FLAGS, within } from './lib/chromium_webgpu.mjs';
import { assertSameDetections } from './lib/detections.mjs';
import { TIMED_REASON } from './lib/placement_reasons.mjs';
import { installPacked, removeInBackground } from './lib/packed.mjs';
import { serveStatic } from './lib/static_server.mjs';
import { DETECTORS, LABELS, testPicture, writeDetectorFolder } from './lib/tiny_detector.mjs';

const run = promisify(execFile);
const CHROMIUM = process.env.GRIDSAMPLE_CHROMIUM || '/usr/bin/chromium';
const HERE = dirname(fileURLToPath(import.meta.url));
const EXAMPLE = join(HERE, '..', '..', 'examples', 'transformers');
const DEV = JSON.parse(readFileSync(join(HERE, 'package.json'), 'utf8')).devDependencies;
// transformers.js 3.x and 4.x, each installed as users install it, in a project of its own with
// the onnxruntime-node it pins (1.21.0, 1.30.0) and, beside onnxruntime-web 1.30 installed at
// the top, the onnxruntime-web it pins (1.22.0-dev, 1.31.0-dev: the peer range's oldest and
// newest), nested below it.
const VERSIONS = { 3: '3.8.1', 4: '4.3.2' };
const THRESHOLD = 0.5;

const apps = {}; // by major version: { work, app }
const appOf = (major) => apps[major].app;
const modelsOf = (major) => join(appOf(major), 'models');

// The model folders of each project: the detector as each model class of DETECTORS.
const folderOf = (modelType) => `tiny-${modelType.replaceAll('_', '-')}`;

// The tiny detector's GridSample nodes are small, so at the first run placement 'auto' may find
// onnxruntime alone faster and leave them to it (onnx/placement.mjs): these pipelines force the
// split, through transformers.js's session_options, so that every call runs it.
const FORCE_SPLIT = "session_options: { placement: 'gridsample' }";

// A Node program that runs the pipeline of each detector on the test picture and prints what
// it found, with the onnxruntime sessions made and released (counted on the onnxruntime-node
// transformers.js imports) and, on gridsample, the split's counts and what a run after
// dispose() says.
function nodeProgram(major, hook) {
  return `${hook ? "import 'gridsample/transformers';\n" : ''}import { createRequire } from 'node:module';
import { env, pipeline, RawImage } from '@huggingface/transformers';
import { testPicture } from ${JSON.stringify(pathToFileURL(join(HERE, 'lib', 'tiny_detector.mjs')).href)};

const require = createRequire(import.meta.url);
const ortNode = createRequire(require.resolve('@huggingface/transformers'))('onnxruntime-node');
const parts = { created: 0, released: 0, version: require(require.resolve('onnxruntime-node/package.json', { paths: [require.resolve('@huggingface/transformers')] })).version };
const create = ortNode.InferenceSession.create;
ortNode.InferenceSession.create = async (...args) => {
  const s = await create.apply(ortNode.InferenceSession, args);
  parts.created += 1;
  const release = s.release.bind(s);
  s.release = () => { parts.released += 1; return release(); };
  return s;
};
env.allowRemoteModels = false;
env.localModelPath = ${JSON.stringify(`${modelsOf(major)}/`)};
const { data, width, height, channels } = testPicture();
const results = {};
for (const model of ${JSON.stringify(Object.keys(DETECTORS).map(folderOf))}) {
  const before = { ...parts };
  const detector = await pipeline('object-detection', model, { dtype: 'fp32'${hook ? `, device: 'auto', ${FORCE_SPLIT}` : ''} });
  const detections = await detector(new RawImage(data, width, height, channels), { threshold: ${THRESHOLD} });
  const session = detector.model.sessions.model;
  const counts = session.plan?.().counts ?? null;
  const created = parts.created - before.created;
  await detector.dispose();
  let afterDispose = null;
  try { await session.run({}); } catch (e) { afterDispose = e.message; }
  results[model] = { className: detector.model.constructor.name, detections, counts, created, released: parts.released - before.released, afterDispose };
}
console.log(JSON.stringify({ results, version: parts.version }));
`;
}

// The pipelines' results by project and hook: the detect.mjs test holds the example against the
// 4.x project's plain run, which the 4.x test has made (one program of four pipelines less).
const nodeRuns = new Map();
function runNode(major, hook) {
  const key = `${major}/${hook}`;
  if (!nodeRuns.has(key)) nodeRuns.set(key, runNodeProgram(major, hook));
  return nodeRuns.get(key);
}

async function runNodeProgram(major, hook) {
  const file = join(appOf(major), `detect-${hook ? 'gridsample' : 'onnxruntime'}.mjs`);
  writeFileSync(file, nodeProgram(major, hook));
  const { stdout } = await run(process.execPath, ['--no-concurrent-recompilation', file], { cwd: appOf(major), encoding: 'utf8', timeout: 180_000 }).catch((e) => {
    throw new Error(`${file} failed:\n${e.stdout}\n${e.stderr}`, { cause: e });
  });
  return JSON.parse(stdout.trim().split('\n').pop());
}

/** The detections of `ours` and `theirs` (pipeline outputs) are the same: labels, boxes, scores. */
before(async () => {
  for (const [major, version] of Object.entries(VERSIONS)) {
    // The 3.x project also has onnxruntime-node 1.30 of its own at the top, as a user of both
    // would: transformers.js's 1.21.0 is nested below it, and gridsample/transformers must take
    // that one (a second onnxruntime-node in the process fails to load its native library).
    apps[major] = await installPacked(`gridsample-transformers${major}-`, {
      peers: [`@huggingface/transformers@${version}`, 'onnxruntime-web', '@bufbuild/protobuf', ...(major === '3' ? ['onnxruntime-node'] : [])],
      manifest: { type: 'module' },
    });
    for (const modelType of Object.keys(DETECTORS)) writeDetectorFolder(join(modelsOf(major), folderOf(modelType)), { modelType });
  }
});

after(() => {
  removeInBackground(...Object.values(apps).map(({ work }) => work));
});

describe('gridsample/transformers in Node', () => {
  for (const [major, version] of Object.entries(VERSIONS)) {
    test(`transformers.js ${version}: the object-detection pipeline of RT-DETR, RT-DETRv2, D-FINE and RF-DETR finds what it finds on onnxruntime alone`, async (t) => {
      const [ours, theirs] = await Promise.all([runNode(major, true), runNode(major, false)]);
      for (const [modelType, className] of Object.entries(DETECTORS)) {
        const model = folderOf(modelType);
        const [mine, reference] = [ours.results[model], theirs.results[model]];
        const where = `transformers.js ${version}, ${className}, onnxruntime-node ${ours.version}, Node`;
        assert.equal(mine.className, className, where);
        assert.ok(reference.detections.length > 0 && reference.detections.length < 24, `${where}: the test needs some detections, not all: ${reference.detections.length}`);
        for (const d of reference.detections) assert.ok(LABELS.slice(0, -1).includes(d.label), `${where}: label ${d.label}`);
        t.diagnostic(assertSameDetections(mine.detections, reference.detections, where));
        // The model ran split: its deformable attention (three GridSample nodes) fused into one
        // node on gridsample, the rest in onnxruntime parts.
        assert.equal(mine.counts.gridsampleNodes, 1, where);
        assert.ok(mine.counts.onnxruntimeSessions >= 2, `${where}: ${mine.counts.onnxruntimeSessions} onnxruntime sessions`);
        assert.equal(mine.created, mine.counts.onnxruntimeSessions, `${where}: onnxruntime sessions made`);
        // dispose() (transformers.js calls session.handler.dispose()) released every part.
        assert.equal(mine.released, mine.created, `${where}: ${mine.released} of ${mine.created} onnxruntime sessions released`);
        assert.match(mine.afterDispose, /released/, where);
        assert.equal(reference.counts, null, `${where}: the plain run is onnxruntime's own session`);
      }
    });
  }
});

test('examples/transformers/detect.mjs, as written, prints the detections of transformers.js on onnxruntime alone', async () => {
  const app = appOf(4);
  const { PNG } = await import('pngjs');
  const { data, width, height } = testPicture();
  const png = new PNG({ width, height });
  for (let i = 0; i < width * height; ++i) {
    png.data.set([data[3 * i], data[3 * i + 1], data[3 * i + 2], 255], 4 * i);
  }
  writeFileSync(join(app, 'picture.png'), PNG.sync.write(png));
  copyFileSync(join(EXAMPLE, 'detect.mjs'), join(app, 'detect.mjs'));
  const [{ stdout }, theirs] = await Promise.all([
    run(process.execPath, ['--no-concurrent-recompilation', 'detect.mjs', 'picture.png', 'tiny-rt-detr', modelsOf(4)], { cwd: app, encoding: 'utf8', timeout: 180_000 }),
    runNode(4, false),
  ]);
  const [summary, ...lines] = stdout.trim().split('\n');
  // Before the first call: the attention's three GridSample nodes fused into one node of ours.
  assert.match(summary, /^tiny-rt-detr: 1 of its nodes on gridsample, \d+ nodes in 2 onnxruntime sessions$/);
  const expected = theirs.results['tiny-rt-detr'].detections.map(({ label, score, box }) => `${label.padEnd(12)} ${score.toFixed(3)}  (${box.xmin}, ${box.ymin}) to (${box.xmax}, ${box.ymax})`);
  assert.deepEqual(lines.slice(0, expected.length), expected);
  // Where the first call's timed whole runs put the attention: its fused node on gridsample, or
  // its chain's three GridSample nodes on onnxruntime, each saying so.
  const placed = lines.slice(expected.length);
  const on = /: (onnxruntime|gridsample), /.exec(placed[0])?.[1];
  assert.equal(placed.length, on === 'gridsample' ? 1 : 3, placed.join('\n'));
  for (const line of placed) assert.match(line, new RegExp(`: ${on}, (its fused attention's placement: )?${TIMED_REASON}$`));
});

// --- headless Chromium: the one alias line in a Vite build ---------------------------------

// The example's Vite config: the alias line for transformers.js 4.x.
const { default: EXAMPLE_CONFIG } = await import(pathToFileURL(join(EXAMPLE, 'vite.config.js')).href);

// The page: the pipeline on the picture with `?device=` (transformers.js's own option), its
// detections, which onnxruntime-web it ran on, and on gridsample the split and where our
// nodes ran; then dispose() and a run after it.
function pageProgram(gridsample) {
  return `import { env, pipeline, RawImage } from '@huggingface/transformers';
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
  const detector = await pipeline('object-detection', 'tiny-rt-detr', { dtype: 'fp32', device${gridsample ? `, ${FORCE_SPLIT}` : ''} });
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
  const servers = {}; // by major version: the app's static server
  let context;
  // The pages of each app: transformers.js on gridsample/ort (the alias line, and a second
  // alias that points gridsample/ort at the onnxruntime-web transformers.js pins), on
  // onnxruntime-web alone, and 3.x on gridsample/ort with the app's own newer onnxruntime-web
  // (no second alias), where 3.x's CDN default names files of another version.
  const PAGES = {
    'gridsample': { gridsample: 'pinned' },
    'onnxruntime': {},
    'gridsample-newer': { gridsample: 'installed', only: 3 },
  };

  function aliases(major, { gridsample }) {
    if (!gridsample) return [];
    // 4.x: the example's own vite.config.js; 3.x: its line with 3.x's import.
    const line = major === '4' ? EXAMPLE_CONFIG.resolve.alias[0] : { find: /^onnxruntime-web$/, replacement: 'gridsample/ort' };
    if (gridsample === 'installed') return [line];
    const pinned = join(appOf(major), 'node_modules', '@huggingface', 'transformers', 'node_modules', 'onnxruntime-web', 'dist', 'ort.all.bundle.min.mjs');
    return [line, { find: /^onnxruntime-web\/all$/, replacement: pinned }];
  }

  before(async () => {
    const { build } = await import('vite');
    const { data, width, height, channels } = testPicture();
    const nodeEnv = process.env.NODE_ENV; // build() sets NODE_ENV=production for the process
    for (const major of Object.keys(VERSIONS)) {
      const app = appOf(major);
      writeFileSync(join(app, 'picture.js'), `export const PICTURE = ${JSON.stringify({ data: [...data], width, height, channels })};\n`);
      for (const [name, page] of Object.entries(PAGES)) {
        if (page.only && String(page.only) !== major) continue;
        writeFileSync(join(app, `${name}.js`), pageProgram(Boolean(page.gridsample)));
        writeFileSync(join(app, `${name}.html`), `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>transformers.js detector</title></head>
<body><script type="module" src="./${name}.js"></script></body></html>
`);
        await build({
          root: app,
          configFile: false,
          logLevel: 'error',
          base: './',
          resolve: { alias: aliases(major, page) },
          build: { outDir: join(app, `dist-${name}`), emptyOutDir: true, rollupOptions: { input: join(app, `${name}.html`) } },
        });
      }
      servers[major] = await serveStatic(app);
    }
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
    const { chromium } = await import('playwright-core');
    context = await chromium.launchPersistentContext(join(apps[4].work, 'chromium-profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...WEBGPU_FLAGS],
    });
  });

  after(async () => {
    await context?.close();
    await Promise.all(Object.values(servers).map((server) => server.close()));
  });

  // The page's results; requests that leave 127.0.0.1 are refused (offline, as make test is) and
  // listed: transformers.js 4.x tries to preload onnxruntime-web's files from its CDN first.
  async function pageResults(major, name, device) {
    const page = await context.newPage();
    const problems = [];
    const external = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
    await page.route((url) => url.hostname !== '127.0.0.1', (route) => { external.push(route.request().url()); return route.abort(); });
    try {
      await page.goto(`${servers[major].origin}/dist-${name}/${name}.html?device=${device}`);
      await within(240, `transformers.js ${VERSIONS[major]}, ${name} page on ${device}`, page.waitForFunction(() => window.__results !== undefined, null, { timeout: 0 }), problems);
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

  // onnxruntime-web alone, each page and device once. 3.x on WebGPU is held against 3.x on wasm
  // (a SwiftShader page pair costs 35-45 s of make test), and its GPU readbacks against the
  // model's two outputs, each read once.
  const baselines = new Map();
  const baseline = (major, device) => {
    const key = `${major}/${device}`;
    if (!baselines.has(key)) baselines.set(key, pageResults(major, 'onnxruntime', device));
    return baselines.get(key);
  };
  const BASELINE_DEVICE = { 3: { wasm: 'wasm', webgpu: 'wasm' }, 4: { wasm: 'wasm', webgpu: 'webgpu' } };
  const OUTPUTS = 2; // logits, pred_boxes

  for (const [major, version] of Object.entries(VERSIONS)) {
    for (const device of ['wasm', 'webgpu']) {
      const against = BASELINE_DEVICE[major][device];
      test(`transformers.js ${version}, device '${device}': the pipeline finds what it finds on onnxruntime-web alone (${against})`, async (t) => {
        const ours = await pageResults(major, 'gridsample', device);
        const theirs = await baseline(major, against);
        const where = `transformers.js ${version} on onnxruntime-web ${ours.onnxruntimeWeb}, device ${device} against onnxruntime-web alone on ${against}, Chromium`;
        assert.equal(ours.onnxruntimeWeb, theirs.onnxruntimeWeb, where);
        assert.ok(theirs.detections.length > 0, `${where}: onnxruntime-web alone found nothing`);
        t.diagnostic(assertSameDetections(ours.detections, theirs.detections, where));
        // The attention's chain is one fused node, on wasm and WebGPU alike.
        assert.equal(ours.counts.gridsampleNodes, 1, where);
        assert.equal(ours.backend, device, `${where}: our nodes ran on ${ours.backend}`);
        // On WebGPU, only the pipeline's outputs come back to the CPU, as on onnxruntime alone:
        // nothing is read back between the parts.
        if (device === 'webgpu') {
          const expected = against === 'webgpu' ? theirs.readbacks : OUTPUTS;
          assert.equal(ours.readbacks, expected, `${where}: GPU readbacks`);
          t.diagnostic(`${where}: ${ours.readbacks} GPU readbacks per call, ${against === 'webgpu' ? 'onnxruntime-web alone' : 'outputs'} ${expected}`);
        }
        assert.match(ours.afterDispose, /released/, where);
        for (const url of ours.external) assert.match(url, /^https:\/\/cdn\.jsdelivr\.net\/npm\/onnxruntime-web@/, `${where}: a request left the machine`);
      });
    }
  }

  test('transformers.js 3.8.1 with a newer onnxruntime-web: its CDN default is set aside, the installed files load', async (t) => {
    const ours = await pageResults(3, 'gridsample-newer', 'wasm');
    const theirs = await baseline(3, 'wasm');
    const where = `transformers.js 3.8.1 on onnxruntime-web ${ours.onnxruntimeWeb}, device wasm, Chromium`;
    assert.equal(ours.onnxruntimeWeb, DEV['onnxruntime-web'], where);
    assert.notEqual(ours.onnxruntimeWeb, theirs.onnxruntimeWeb, where);
    t.diagnostic(assertSameDetections(ours.detections, theirs.detections, `${where} against ${theirs.onnxruntimeWeb} alone`));
    assert.deepEqual(ours.external, [], where);
  });
});
