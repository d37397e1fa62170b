// Browser test of web/demo in headless Chromium: with and without cross-origin isolation (threads, createPool), after slider, preset, mode and perspective-corner changes, on the 16:10 picture and in the batch view, its canvases hold exactly what the package computes.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { thetaFromParams } from '../../js/images/pixel_space.mjs';
import { FLOWS, flowGrid } from '../../js/images/flows.mjs';
import { DEFAULT_PARAMS, randomThetas } from '../../web/demo/transforms.mjs';
import { affine, assertCanvasEquals, decode, figure, gs, interleaved, moved, OUTPUT, openDemo, packageAffine, packageFlow, planar, rotationTheta, server, settled, slide, startDemo, stopDemo } from './lib/demo_page.mjs';

before(startDemo);
after(stopDemo);

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
    const swirl = flowGrid(gs, 'swirl', FLOWS.swirl.strength, theta45, 512, 512, false);
    await assertCanvasEquals(page, decode(await page.evaluate(() => window.__demo.readOutput())),
      packageFlow(source, swirl, { mode: 'nearest', paddingMode: 'zeros' }), 'swirl, nearest');

    // Lens with bicubic, reflection padding and alignCorners.
    await page.getByRole('button', { name: 'Lens' }).click();
    await page.getByRole('button', { name: 'bicubic' }).click();
    await page.getByRole('button', { name: 'reflection' }).click();
    await page.locator('#align').check();
    await settled(page);
    const lens = flowGrid(gs, 'lens', FLOWS.lens.strength, theta45, 512, 512, true);
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
});
