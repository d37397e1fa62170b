// Browser test of web/demo in headless Chromium: the served page loads the package, and after slider, preset and mode changes its canvases hold exactly what the package computes.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

import { load } from '../../js/node.mjs';
import { thetaFromParams } from '../../js/images/pixel_space.mjs';
import { startDemoServer } from '../../web/demo/server.mjs';
import { WEBGPU_FLAGS, within } from './lib/chromium_webgpu.mjs';
import { FLOWS, flowFromGrid, flowGrid } from '../../js/images/flows.mjs';
import { DEFAULT_PARAMS, randomThetas } from '../../web/demo/transforms.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUTPUT = join(HERE, 'output');
const CHROMIUM = process.env.GRIDSAMPLE_CHROMIUM || '/usr/bin/chromium';

let gs;
let server;
let context;
let profile;

before(async () => {
  gs = await load();
  server = await startDemoServer({ port: 0 });
  profile = mkdtempSync(join(tmpdir(), 'gridsample-demo-profile-'));
  const { chromium } = await import('playwright-core');
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1440, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      // A synthetic webcam (a moving test pattern), permission granted without a prompt.
      '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'],
  });
});

after(async () => {
  if (context) await context.close();
  if (server) await server.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

// Opens the demo and waits for its first frame; `problems` collects console errors, page
// errors and failed or refused requests, which fail the test.
async function openDemo(query = '') {
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  await page.goto(`${server.url}${query}`);
  try {
    await page.waitForFunction(() => window.__demo?.ready && window.__demo.frames > 0, null, { timeout: 20000 });
  } catch (e) {
    throw new Error(`no first frame: ${e.message}\npage problems: ${problems.join('\n') || 'none'}`, { cause: e });
  }
  return { page, problems };
}

const settled = (page) => page.evaluate(() => window.__demo.settled());

function decode({ width, height, base64 }) {
  return { width, height, data: new Uint8ClampedArray(Buffer.from(base64, 'base64')) };
}

function encode({ width, height, data }) {
  return { width, height, base64: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64') };
}

// Interleaved RGBA (H, W, 4) bytes <-> planar float32 (N, 4, H, W), as an app feeds a canvas to gridSample.
function planar(rgba, width, height) {
  const plane = width * height;
  const x = new Float32Array(4 * plane);
  for (let i = 0; i < plane; ++i) for (let c = 0; c < 4; ++c) x[c * plane + i] = rgba[4 * i + c];
  return x;
}

function interleaved(y, offset, width, height) {
  const plane = width * height;
  const rgba = new Uint8ClampedArray(4 * plane); // rounds half to even and clamps
  for (let i = 0; i < plane; ++i) for (let c = 0; c < 4; ++c) rgba[4 * i + c] = y[offset + c * plane + i];
  return rgba;
}

// The page's canvas pixels against the package's result. A 2-D canvas stores premultiplied
// alpha, so translucent pixels do not read back as written: the expected pixels take the
// same trip through a canvas of the page before the exact comparison.
async function assertCanvasEquals(page, got, want, what) {
  const expected = decode(await page.evaluate((im) => window.__demo.canvasRoundTrip(im), encode(want)));
  assert.equal(got.width, want.width, `${what}: width`);
  assert.equal(got.height, want.height, `${what}: height`);
  let bad = 0;
  let first = '';
  for (let i = 0; i < expected.data.length; ++i) {
    if (got.data[i] !== expected.data[i]) {
      if (!bad) {
        const p = i >> 2;
        first = ` first at (x ${p % got.width}, y ${Math.floor(p / got.width)}) channel ${'RGBA'[i & 3]}: canvas ${got.data[i]}, package ${expected.data[i]}`;
      }
      bad += 1;
    }
  }
  assert.equal(bad, 0, `${what}: ${bad} of ${expected.data.length} channel values differ;${first}`);
}

// What the package computes for the page's source with this grid and these options.
function packageWarp(source, grid, options) {
  const { width, height } = source;
  const y = gs.gridSample({ data: planar(source.data, width, height), shape: [1, 4, height, width] },
    { data: grid, shape: [1, height, width, 2] }, options);
  return { width, height, data: interleaved(y.data, 0, width, height) };
}

// What the package computes for a flow preset's grid, as the page calls it: warpFlow with the
// flow in pixels that the grid describes.
function packageFlow(source, grid, options) {
  const { width, height } = source;
  const flow = flowFromGrid(grid, width, height, width, height, !!options.alignCorners);
  const y = gs.warpFlow({ data: planar(source.data, width, height), shape: [1, 4, height, width] },
    { data: flow, shape: [1, 2, height, width] }, options);
  return { width, height, data: interleaved(y.data, 0, width, height) };
}

// What the package computes for an affine θ with the call the page used (frame.path):
// warpAffine on the RGBA bytes, or affineGrid + gridSample on float32 rounded in JavaScript.
// warpAffine is also checked against affineGrid + gridSample on uint8 data, which it
// equals up to a rounding step.
function packageAffine(source, theta, options, path) {
  const { width, height } = source;
  const grid = affine(theta, width, height, !!options.alignCorners);
  if (path === 'gridSample') return packageWarp(source, grid, options);
  const fusedWarp = gs.warpAffine({ data: source.data, width, height }, Float32Array.from(theta), options).data;
  const x = Uint8ClampedArray.from(planar(source.data, width, height));
  const chain = interleaved(gs.gridSample({ data: x, shape: [1, 4, height, width] }, { data: grid, shape: [1, height, width, 2] }, options).data, 0, width, height);
  let off = 0;
  for (let i = 0; i < chain.length; ++i) {
    const d = Math.abs(fusedWarp[i] - chain[i]);
    assert.ok(d <= 1, `warpAffine against affineGrid + gridSample: value ${i} is ${fusedWarp[i]}, the chain gives ${chain[i]}`);
    off += d;
  }
  assert.ok(off <= chain.length * 0.01, `warpAffine against affineGrid + gridSample: ${off} of ${chain.length} values off by one`);
  return { width, height, data: fusedWarp };
}

function affine(theta, width, height, alignCorners) {
  return gs.affineGrid({ data: Float32Array.from(theta), shape: [1, 2, 3] }, [1, 4, height, width], { alignCorners }).data;
}

// θ of the sliders written out here, not taken from the demo: rotation r, uniform scale s.
function rotationTheta(degrees, s) {
  const r = (degrees * Math.PI) / 180;
  return [s * Math.cos(r), -s * Math.sin(r), 0, s * Math.sin(r), s * Math.cos(r), 0];
}

const figure = async (page, id) => page.locator(`#${id}`).textContent();

// Moves a slider to `value` as a drag would (an input event).
async function slide(page, id, value) {
  await page.evaluate(([i, v]) => {
    const el = document.getElementById(i);
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, [id, value]);
}

// The source's pixels moved as `from` says: output (x, y) is source pixel from(x, y), or
// transparent zeros where that is outside the source.
function moved(source, from) {
  const { width, height } = source;
  const data = new Uint8ClampedArray(4 * width * height);
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) {
      const [sx, sy] = from(x, y);
      if (sx < 0 || sx >= width || sy < 0 || sy >= height) continue;
      data.set(source.data.subarray(4 * (sy * width + sx), 4 * (sy * width + sx) + 4), 4 * (y * width + x));
    }
  }
  return { width, height, data };
}

describe('web/demo in headless Chromium', () => {
  test('cross-origin isolated (the default): wasm threads are chosen and the first frame equals the package', async () => {
    const { page, problems } = await openDemo();
    const hook = await page.evaluate(() => ({ backend: window.__demo.backend, threads: window.__demo.threads,
      isolated: window.__demo.crossOriginIsolated }));
    assert.equal(hook.isolated, true, 'the server sends COOP/COEP');
    assert.equal(hook.backend, 'wasm-simd128-threads');
    assert.equal(hook.threads, 2);
    assert.equal(await figure(page, 'fig-threads'), '2 threads');
    // The threaded glue, its .wasm and its pthread worker script, found next to the glue.
    for (const path of ['/js/dist/gridsample-simd-threads.mjs', '/js/dist/gridsample-simd-threads.wasm', '/js/dist/gridsample-simd-threads.worker.js']) {
      assert.ok(server.requests.includes(path), `${path} not requested: ${server.requests.join(' ')}`);
    }
    await settled(page);
    const source = decode(await page.evaluate(() => window.__demo.sourcePixels()));
    const { path } = await page.evaluate(() => window.__demo.lastFrame);
    // The same oracle as the single-threaded page's first frame below: identical pixels.
    await assertCanvasEquals(page, decode(await page.evaluate(() => window.__demo.readOutput())),
      packageAffine(source, rotationTheta(20, 0.8), { mode: 'bilinear' }, path), 'first frame on threads');
    // The figure cards: the same warp timed on one thread beside the threads (not a speed
    // check: only that both are measured and shown).
    await page.waitForFunction(() => /^\d+(\.\d+)?$/.test(document.getElementById('fig-one').textContent), null, { timeout: 20000 });
    assert.equal(await page.locator('#fig-one-card').isVisible(), true);
    assert.match(await figure(page, 'fig-one-ratio'), /^threads \d+\.\d\d× faster · $/);
    assert.equal(await figure(page, 'fig-ours-threads'), '2 threads · ');
    const stats = await page.evaluate(() => window.__demo.lastStats);
    assert.ok(stats.oneMs.every((ms) => ms > 0), `one-thread times ${stats.oneMs}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('createPool on a page without isolation: module workers, split calls equal one instance, abort, terminate', async () => {
    const { page, problems } = await openDemo('?isolated=0');
    const result = await page.evaluate(async () => {
      const { createPool, load } = await import('/js/browser.mjs');
      const gs = await load();
      const pool = await createPool({ workers: 2 });
      const side = 1024;
      const data = new Uint8ClampedArray(side * side * 4);
      for (let i = 0; i < data.length; i++) data[i] = (i * 7 + (i >> 11)) & 255;
      const image = { data, width: side, height: side };
      const m = gs.rotationMatrix([side / 2, side / 2], 25, 1.2);
      const progress = [];
      const y = await pool.warpAffine(image, m, { space: 'pixel', mode: 'bicubic', onProgress: (f) => progress.push(f) });
      const want = gs.warpAffine(image, m, { space: 'pixel', mode: 'bicubic' });
      const same = y.data.length === want.data.length && y.data.every((v, i) => v === want.data[i]);
      const controller = new AbortController();
      const aborted = pool.warpAffine(image, m, { mode: 'bicubic', signal: controller.signal }).then(() => 'resolved', (e) => e.name);
      controller.abort();
      const error = await pool.warpAffine(image, [1, 2]).then(() => 'resolved', (e) => `${e.name}: ${e.message}`);
      await pool.terminate();
      const after = await pool.warpAffine(image, m).then(() => 'resolved', (e) => e.message);
      return { isolated: self.crossOriginIsolated, workers: pool.workers, same, progress, cls: y.data.constructor.name,
        aborted: await aborted, error, after };
    });
    assert.equal(result.isolated, false);
    assert.equal(result.workers, 2);
    assert.equal(result.cls, 'Uint8ClampedArray');
    assert.ok(result.same, "the pool's bytes differ from the instance's");
    assert.ok(result.progress.length >= 2 && result.progress[0] < 1 && result.progress.at(-1) === 1, `split: progress ${result.progress}`);
    assert.equal(result.aborted, 'AbortError');
    assert.equal(result.error, 'RangeError: warpAffine: theta: expected 6 numbers [a, b, c, d, e, f] (the 2x3 matrix, row-major), got 2');
    assert.equal(result.after, 'pool.warpAffine: the pool was terminated');
    assert.ok(server.requests.includes('/js/pool/pool_worker.mjs'), 'the module worker script was requested');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('first frame, rotation slider, flow preset and mode: the output canvas equals the package', async () => {
    const { page, problems } = await openDemo('?isolated=0');
    const hook = await page.evaluate(() => ({ backend: window.__demo.backend, offscreen: window.__demo.offscreen,
      isolated: window.__demo.crossOriginIsolated, threads: window.__demo.threads }));
    assert.equal(hook.backend, 'wasm-simd128');
    assert.equal(hook.threads, 1);
    assert.equal(hook.offscreen, true, 'Chromium transfers the output canvas to the worker');
    assert.equal(hook.isolated, false, 'the demo must work without cross-origin isolation');
    assert.equal(await figure(page, 'fig-threads'), '1 thread (page not cross-origin isolated)');
    assert.equal(await page.locator('#fig-one-card').isVisible(), false, 'no 1-thread card without threads');
    // The package was loaded the way an app loads it: its browser entry and .wasm from js/.
    for (const path of ['/js/browser.mjs', '/js/dist/gridsample-simd.mjs', '/js/dist/gridsample-simd.wasm', '/web/demo/worker.mjs']) {
      assert.ok(server.requests.includes(path), `${path} not requested: ${server.requests.join(' ')}`);
    }
    await settled(page);
    const source = decode(await page.evaluate(() => window.__demo.sourcePixels()));
    assert.deepEqual([source.width, source.height], [512, 512]);

    // First load: rotation 20°, scale 0.8, with the package's fused warpAffine where it has one.
    const { path } = await page.evaluate(() => window.__demo.lastFrame);
    assert.equal(path, typeof gs.warpAffine === 'function' ? 'warpAffine' : 'gridSample');
    await assertCanvasEquals(page, decode(await page.evaluate(() => window.__demo.readOutput())),
      packageAffine(source, rotationTheta(20, 0.8), { mode: 'bilinear' }, path), 'first frame');

    // Move the rotation slider by keyboard, 25 steps of 1°: 20° → 45°.
    await page.locator('#rotate').focus();
    for (let i = 0; i < 25; ++i) await page.keyboard.press('ArrowRight');
    assert.equal(await page.locator('#rotate').inputValue(), '45');
    assert.equal(await figure(page, 'rotate-value'), '45°');
    assert.equal(await page.locator('#m0').inputValue(), String(Math.round(0.8 * Math.cos(Math.PI / 4) * 1000) / 1000));
    await settled(page);
    const theta45 = rotationTheta(45, 0.8);
    await assertCanvasEquals(page, decode(await page.evaluate(() => window.__demo.readOutput())),
      packageAffine(source, theta45, { mode: 'bilinear', paddingMode: 'zeros' }, path), 'rotation 45°');

    // The live figures: both timings, the speed-up, the backend; the baseline agrees with us.
    await page.waitForFunction(() => window.__demo.lastStats?.jsMs > 0, null, { timeout: 20000 });
    // Read together: the page rewrites the three in one task per frame, so separate reads could
    // mix two frames' figures.
    const [ours, js, speedup] = (await page.evaluate(() => ['fig-ours', 'fig-js', 'fig-speedup']
      .map((id) => document.getElementById(id).textContent))).map(Number);
    assert.ok(ours > 0 && js > 0, `figures: ours ${ours} ms, JS ${js} ms`);
    assert.ok(Math.abs(speedup - js / ours) <= 0.051 * (js / ours) + 0.051, `speed-up ${speedup} for ${js} / ${ours}`);
    assert.equal(await figure(page, 'fig-backend'), 'wasm-simd128');
    const stats = await page.evaluate(() => window.__demo.lastStats);
    // Bytes may round differently (double against float32 blending); floats agree closely.
    assert.ok(stats.maxDiff <= (path === 'warpAffine' ? 1 : 0.01), `plain JS and wasm differ by up to ${stats.maxDiff}`);
    console.log(`# 512x512 ${stats.workload}: wasm ${ours} ms/frame, plain JS ${js} ms/frame, ${speedup}x`);
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'demo-affine.png'), fullPage: true });

    // A flow preset and another mode: swirl, nearest.
    await page.getByRole('button', { name: 'Swirl' }).click();
    await page.getByRole('button', { name: 'nearest' }).click();
    await settled(page);
    assert.equal((await page.evaluate(() => window.__demo.lastFrame)).path, 'warpFlow');
    assert.equal(await page.locator('#output-call').textContent(), '= warpFlow(source, flow)');
    assert.match(await page.locator('#flow-hint').textContent(), /sampled with warpFlow/);
    const swirl = flowGrid('swirl', FLOWS.swirl.strength, theta45, 512, 512, false);
    await assertCanvasEquals(page, decode(await page.evaluate(() => window.__demo.readOutput())),
      packageFlow(source, swirl, { mode: 'nearest', paddingMode: 'zeros' }), 'swirl, nearest');

    // Lens with bicubic, reflection padding and alignCorners.
    await page.getByRole('button', { name: 'Lens' }).click();
    await page.getByRole('button', { name: 'bicubic' }).click();
    await page.getByRole('button', { name: 'reflection' }).click();
    await page.locator('#align').check();
    await settled(page);
    const lens = flowGrid('lens', FLOWS.lens.strength, theta45, 512, 512, true);
    await assertCanvasEquals(page, decode(await page.evaluate(() => window.__demo.readOutput())),
      packageFlow(source, lens, { mode: 'bicubic', paddingMode: 'reflection', alignCorners: true }), 'lens, bicubic, reflection, align');

    // The figures of this very state, for the screenshot.
    await page.waitForFunction(() => window.__demo.lastStats?.seq === window.__demo.sentSeq && window.__demo.lastStats.jsMs > 0,
      null, { timeout: 20000 });
    const shot = join(OUTPUT, 'demo.png');
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`# screenshot ${shot}`);
    await page.close();
    assert.deepEqual(problems, []);
  });

  test('the 16:10 built-in picture does not stretch: a quarter turn is a permutation of its pixels, translations are in pixels', async () => {
    const { page, problems } = await openDemo();
    await page.locator('#shape').selectOption('wide');
    await settled(page);
    assert.match(await figure(page, 'source-info'), /^built-in picture · 512×320$/);
    const source = decode(await page.evaluate(() => window.__demo.sourcePixels()));
    assert.deepEqual([source.width, source.height], [512, 320]);
    const { path } = await page.evaluate(() => window.__demo.lastFrame);
    await assertCanvasEquals(page, decode(await page.evaluate(() => window.__demo.readOutput())),
      packageAffine(source, thetaFromParams(DEFAULT_PARAMS, [512, 320]), { mode: 'bilinear' }, path), 'first view, 16:10');
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'demo-wide.png'), fullPage: true });

    // A quarter turn about the centre (255.5, 159.5), counter-clockwise on screen: output
    // (x, y) samples (255.5 - (y - 159.5), 159.5 + (x - 255.5)) = (415 - y, x - 96), whole
    // pixels, so the output is the source's pixels rearranged, whatever alignCorners is.
    await page.locator('#reset').click();
    await slide(page, 'rotate', 90);
    for (const align of [false, true]) {
      await page.locator('#align').setChecked(align);
      await settled(page);
      await assertCanvasEquals(page, decode(await page.evaluate(() => window.__demo.readOutput())),
        moved(source, (x, y) => [415 - y, x - 96]), `quarter turn, alignCorners ${align}`);
    }
    await page.screenshot({ path: join(OUTPUT, 'demo-wide-90.png'), fullPage: true });

    // Translate sliders in pixels: the window moves 10 px right and 4 px up, the picture the other way.
    await page.locator('#align').uncheck();
    await page.locator('#reset').click();
    await slide(page, 'tx', 10);
    await slide(page, 'ty', -4);
    await settled(page);
    assert.equal(await figure(page, 'tx-value'), '10 px');
    assert.equal(await page.locator('#tx').getAttribute('max'), '512');
    assert.equal(await page.locator('#ty').getAttribute('min'), '-320');
    await assertCanvasEquals(page, decode(await page.evaluate(() => window.__demo.readOutput())),
      moved(source, (x, y) => [x + 10, y - 4]), 'translate 10, -4 px');
    await page.close();
    assert.deepEqual(problems, []);
  });

  test('the perspective panel: dragging a corner re-rectifies the page, which equals the package\'s warpPerspective for those corners', async () => {
    const { page, problems } = await openDemo();
    await page.waitForFunction(() => window.__demo.perspective?.frames > 0, null, { timeout: 20000 });
    const panel = () => page.evaluate(() => ({ quad: window.__demo.perspective.quad, mode: window.__demo.perspective.mode, frames: window.__demo.perspective.frames }));
    const source = decode(await page.evaluate(() => window.__demo.perspective.sourcePixels()));
    assert.deepEqual([source.width, source.height], [640, 480]);
    const corners = [[0, 0], [359, 0], [359, 479], [0, 479]];
    const check = async (what) => {
      const { quad, mode } = await panel();
      const want = gs.warpPerspective(source, gs.perspectiveTransform(quad, corners), { space: 'pixel', width: 360, height: 480, mode });
      const got = decode(await page.evaluate(() => window.__demo.perspective.readOutput()));
      await assertCanvasEquals(page, got, want, what);
      return { quad, got };
    };
    const first = await check('first frame');
    // The photo was made by laying a page at these corners: rectified, the output is paper
    // (light) right to its corners, not the dark desk.
    for (const [x, y] of [[3, 3], [356, 3], [356, 476], [3, 476]]) {
      const i = 4 * (y * 360 + x);
      assert.ok(first.got.data[i] > 200 && first.got.data[i + 1] > 200, `rectified corner (${x}, ${y}) is not paper: ${first.got.data.subarray(i, i + 3)}`);
    }
    // Drag the top-right handle 40 px right and 25 px down (in photo pixels) with the mouse.
    await page.locator('#persp-overlay').scrollIntoViewIfNeeded();
    const box = await page.locator('#persp-overlay').boundingBox();
    const scale = box.width / 640;
    const [x, y] = first.quad[1];
    const before = (await panel()).frames;
    await page.mouse.move(box.x + x * scale, box.y + y * scale);
    await page.mouse.down();
    await page.mouse.move(box.x + (x + 40) * scale, box.y + (y + 25) * scale, { steps: 6 });
    await page.mouse.up();
    await page.waitForFunction((f) => window.__demo.perspective.frames > f, before);
    await page.waitForTimeout(100); // the last pointer move's frame
    const dragged = await check('after dragging a corner');
    assert.ok(Math.abs(dragged.quad[1][0] - (x + 40)) < 1.5 && Math.abs(dragged.quad[1][1] - (y + 25)) < 1.5,
      `the corner moved to ${dragged.quad[1]}, expected about ${[x + 40, y + 25]}`);
    assert.deepEqual(dragged.quad[0], first.quad[0], 'the other corners stay');
    const modeFrames = (await panel()).frames;
    await page.locator('#persp-mode').selectOption('bicubic');
    await page.waitForFunction((f) => window.__demo.perspective.frames > f, modeFrames);
    await check('bicubic');
    mkdirSync(OUTPUT, { recursive: true });
    const shot = join(OUTPUT, 'demo-perspective.png');
    await page.locator('.perspective').screenshot({ path: shot });
    console.log(`# screenshot ${shot}`);
    await page.close();
    assert.deepEqual(problems, []);
  });

  test('the batch view is one N = 8 affineGrid + gridSample call: every thumbnail equals the package', async () => {
    const { page, problems } = await openDemo();
    await page.getByRole('button', { name: 'new random θs' }).click();
    await settled(page);
    const { batchSeed } = await page.evaluate(() => window.__demo.state);
    assert.notEqual(batchSeed, 1, 'the shuffle picked a new seed');
    const source = decode(await page.evaluate(() => window.__demo.sourcePixels()));
    // As the demo builds it: the source halved with an identity grid, repeated N times.
    const small = gs.gridSample({ data: planar(source.data, 512, 512), shape: [1, 4, 512, 512] },
      { data: affine([1, 0, 0, 0, 1, 0], 256, 256, false), shape: [1, 256, 256, 2] }).data;
    const batch = new Float32Array(8 * small.length);
    for (let n = 0; n < 8; ++n) batch.set(small, n * small.length);
    const grid = gs.affineGrid({ data: randomThetas(8, batchSeed), shape: [8, 2, 3] }, [8, 4, 128, 128]);
    const y = gs.gridSample({ data: batch, shape: [8, 4, 256, 256] }, grid).data;
    for (let n = 0; n < 8; ++n) {
      await assertCanvasEquals(page, decode(await page.evaluate((i) => window.__demo.readTile(i), n)),
        { width: 128, height: 128, data: interleaved(y, n * 4 * 128 * 128, 128, 128) }, `thumbnail ${n}`);
    }
    await page.close();
    assert.deepEqual(problems, []);
  });

  test("the user's own image, by file picker and by drag and drop, is what gets warped", async () => {
    const { page, problems } = await openDemo();
    // A 300 × 200 PNG made in the page (the test has no image files): fitted to 512 × 341.
    const png = await page.evaluate(async () => {
      const c = new OffscreenCanvas(300, 200);
      const ctx = c.getContext('2d');
      ctx.fillStyle = '#234';
      ctx.fillRect(0, 0, 300, 200);
      ctx.fillStyle = '#fc3';
      ctx.fillRect(40, 30, 120, 90);
      ctx.fillStyle = '#3cf';
      ctx.beginPath();
      ctx.arc(210, 120, 60, 0, 2 * Math.PI);
      ctx.fill();
      const bytes = new Uint8Array(await (await c.convertToBlob({ type: 'image/png' })).arrayBuffer());
      let s = '';
      for (const b of bytes) s += String.fromCharCode(b);
      return btoa(s);
    });
    await page.locator('#file').setInputFiles({ name: 'shapes.png', mimeType: 'image/png', buffer: Buffer.from(png, 'base64') });
    await page.waitForFunction(() => window.__demo.state.sourceKind === 'file');
    await settled(page);
    assert.match(await figure(page, 'source-info'), /shapes\.png · 300×200 → 512×341/);
    let source = decode(await page.evaluate(() => window.__demo.sourcePixels()));
    assert.deepEqual([source.width, source.height], [512, 341]);
    // The first view's transform in the picture's own pixels (the sliders' units).
    const theta = thetaFromParams(DEFAULT_PARAMS, [512, 341]);
    const { path } = await page.evaluate(() => window.__demo.lastFrame);
    await assertCanvasEquals(page, decode(await page.evaluate(() => window.__demo.readOutput())),
      packageAffine(source, theta, { mode: 'bilinear' }, path), 'file picker');

    // Back to the built-in picture, then drop the same file on the source.
    await page.getByRole('button', { name: 'Built-in picture' }).click();
    await settled(page);
    assert.equal((await page.evaluate(() => window.__demo.sourcePixels())).height, 512);
    const transfer = await page.evaluateHandle((b64) => {
      const s = atob(b64);
      const bytes = Uint8Array.from(s, (ch) => ch.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'dropped.png', { type: 'image/png' }));
      return dt;
    }, png);
    await page.dispatchEvent('#drop-zone', 'dragenter', { dataTransfer: transfer });
    await page.dispatchEvent('#drop-zone', 'drop', { dataTransfer: transfer });
    await page.waitForFunction(() => window.__demo.state.sourceKind === 'file');
    await settled(page);
    assert.match(await figure(page, 'source-info'), /dropped\.png/);
    source = decode(await page.evaluate(() => window.__demo.sourcePixels()));
    await assertCanvasEquals(page, decode(await page.evaluate(() => window.__demo.readOutput())),
      packageAffine(source, theta, { mode: 'bilinear' }, path), 'drag and drop');

    // Not an image: a message, and the demo carries on with the last picture.
    await page.locator('#file').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await page.waitForFunction(() => /not an image/.test(document.getElementById('source-info').textContent));
    assert.equal(await page.evaluate(() => window.__demo.state.sourceKind), 'file');
    await page.close();
    assert.deepEqual(problems, []);
  });

  test('the webcam streams frames through the warp, and stops when another source is picked', async () => {
    const { page, problems } = await openDemo();
    await page.getByRole('button', { name: 'Webcam' }).click();
    await page.waitForFunction(() => window.__demo.state.sourceKind === 'webcam', null, { timeout: 10000 });
    const first = await page.evaluate(() => window.__demo.sourceId);
    // Each camera frame is a new source, warped and drawn before the next is taken.
    await page.waitForFunction((n) => window.__demo.lastFrame.sourceId >= n + 3, first, { timeout: 15000 });
    assert.match(await figure(page, 'source-info'), /^webcam · 640×480 → 512×384$/);
    const frame = await page.evaluate(() => window.__demo.lastFrame);
    assert.deepEqual([frame.width, frame.height], [512, 384]);
    await page.getByRole('button', { name: 'Built-in picture' }).click();
    await settled(page);
    const stopped = await page.evaluate(() => window.__demo.sourceId);
    await page.waitForTimeout(500);
    assert.equal(await page.evaluate(() => window.__demo.sourceId), stopped, 'frames kept coming after the webcam was switched off');
    assert.equal((await page.evaluate(() => window.__demo.lastFrame)).height, 512);
    await page.close();
    assert.deepEqual(problems, []);
  });

  test('the WebGPU switch (?gpu=1, Chromium on SwiftShader): the same warpAffine on the GPU, its time and its difference from the wasm output', async () => {
    // Its own browser: this file's runs without the GPU (--disable-gpu).
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--no-first-run', '--disable-background-networking', ...WEBGPU_FLAGS],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
      const problems = [];
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
      await page.goto(`${server.url}?gpu=1`);
      await within(120, 'the WebGPU figures', page.waitForFunction(() => window.__demo?.lastGpu, null, { timeout: 0 }), problems);
      const m = await page.evaluate(() => window.__demo.lastGpu);
      assert.equal(m.error, undefined, `the GPU warp failed: ${m.error}`);
      assert.ok(m.gpuMs.every((ms) => ms > 0), JSON.stringify(m));
      // uint8 bilinear: the wasm build's blend is fixed point, within 1 level of the GPU's.
      assert.ok(m.gpuDiff <= 1, `largest difference from the wasm output: ${m.gpuDiff}`);
      assert.ok(await page.locator('#fig-gpu-card').isVisible());
      assert.match(await figure(page, 'fig-gpu'), /^\d+(\.\d+)?$/);
      assert.match(await figure(page, 'fig-gpu-diff'), /^(same bytes as wasm|largest difference from wasm: 1)$/);
      assert.equal(await page.locator('#gpu').isChecked(), true);
      mkdirSync(OUTPUT, { recursive: true });
      await page.screenshot({ path: join(OUTPUT, 'demo_webgpu.png') });
      console.log(`# demo WebGPU switch on SwiftShader: ${await figure(page, 'fig-gpu')} ms per call with the read back (meaningless on a CPU), ${await figure(page, 'fig-gpu-diff')}`);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });

  test('without OffscreenCanvas and warpAffine (?offscreen=0&fused=0): the page draws what the worker posts', async () => {
    const { page, problems } = await openDemo('?offscreen=0&fused=0');
    assert.equal(await page.evaluate(() => window.__demo.offscreen), false);
    await settled(page);
    assert.equal((await page.evaluate(() => window.__demo.lastFrame)).path, 'gridSample');
    const first = decode(await page.evaluate(() => window.__demo.sourcePixels()));
    await assertCanvasEquals(page, decode(await page.evaluate(() => window.__demo.readOutput())),
      packageAffine(first, rotationTheta(20, 0.8), { mode: 'bilinear' }, 'gridSample'), 'affineGrid + gridSample, main-thread canvas');
    await page.getByRole('button', { name: 'Wave' }).click();
    await page.getByRole('button', { name: 'border' }).click();
    await settled(page);
    const source = decode(await page.evaluate(() => window.__demo.sourcePixels()));
    const wave = flowGrid('wave', FLOWS.wave.strength, rotationTheta(20, 0.8), 512, 512, false);
    await assertCanvasEquals(page, decode(await page.evaluate(() => window.__demo.readOutput())),
      packageFlow(source, wave, { mode: 'bilinear', paddingMode: 'border' }), 'wave, border, main-thread canvas');
    await page.close();
    assert.deepEqual(problems, []);
  });
});
