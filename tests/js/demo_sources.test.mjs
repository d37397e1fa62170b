// Browser test of web/demo in headless Chromium: the user's own image (file picker, drag and drop), the webcam, the WebGPU switch and the page without OffscreenCanvas warp what the package computes.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { thetaFromParams } from '../../js/images/pixel_space.mjs';
import { WEBGPU_FLAGS, within } from './lib/chromium_webgpu.mjs';
import { FLOWS, flowGrid } from '../../js/images/flows.mjs';
import { DEFAULT_PARAMS } from '../../web/demo/transforms.mjs';
import { assertCanvasEquals, CHROMIUM, decode, figure, gs, OUTPUT, openDemo, packageAffine, packageFlow, rotationTheta, server, settled, startDemo, stopDemo } from './lib/demo_page.mjs';

before(startDemo);
after(stopDemo);

describe('web/demo in headless Chromium', () => {
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

  test('the WebGPU switch (?gpu=1, Chromium on SwiftShader): the same warpAffine on the GPU drawn on a WebGPU canvas, its time per frame without a read back, frames per second, the image\'s and the canvas\'s difference from the wasm output', async () => {
    // Its own browser: this file's runs without the GPU (--disable-gpu). Vulkan compositing on
    // SwiftShader: without it, presenting a WebGPU canvas loses the device (worker_gpu.mjs).
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--no-first-run', '--disable-background-networking', ...WEBGPU_FLAGS, '--use-vulkan=swiftshader', '--enable-features=Vulkan', '--use-angle=swiftshader'],
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
      assert.ok(m.gpuMs.every((ms) => ms > 0) && m.fps > 0, JSON.stringify(m));
      assert.match(await figure(page, 'fig-gpu-fps'), /^\d+(\.\d+)?$/);
      assert.ok(m.callMs.length === m.gpuMs.length && m.callMs.every((ms, i) => ms >= 0 && ms <= m.gpuMs[i]), JSON.stringify(m));
      assert.match(await figure(page, 'fig-gpu-call'), /^\d+(\.\d+)?$/);
      // uint8 bilinear: the wasm build's blend is fixed point, within 1 level of the GPU's.
      assert.ok(m.gpuDiff <= 1, `largest difference from the wasm output: ${m.gpuDiff}`);
      assert.ok(m.canvasDiff !== null && m.canvasDiff <= 1, `what the WebGPU canvas holds, largest difference from the wasm output: ${m.canvasDiff}`);
      assert.ok(await page.locator('#gpu-view').isVisible());
      assert.match(await page.locator('#gpu-info').textContent(), /^what the canvas holds: (same bytes as wasm|largest difference from wasm: 1)$/);
      assert.ok(await page.locator('#fig-gpu-card').isVisible());
      assert.match(await figure(page, 'fig-gpu'), /^\d+(\.\d+)?$/);
      assert.match(await figure(page, 'fig-gpu-diff'), /^(same bytes as wasm|largest difference from wasm: 1)$/);
      assert.equal(await page.locator('#gpu').isChecked(), true);
      mkdirSync(OUTPUT, { recursive: true });
      await page.screenshot({ path: join(OUTPUT, 'demo_webgpu.png') });
      console.log(`# demo WebGPU switch on SwiftShader: ${await figure(page, 'fig-gpu')} ms per frame drawn without a read back, the call ${await figure(page, 'fig-gpu-call')} ms, ${await figure(page, 'fig-gpu-fps')} frames / s (meaningless on a CPU), ${await figure(page, 'fig-gpu-diff')}`);
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
    const wave = flowGrid(gs, 'wave', FLOWS.wave.strength, rotationTheta(20, 0.8), 512, 512, false);
    await assertCanvasEquals(page, decode(await page.evaluate(() => window.__demo.readOutput())),
      packageFlow(source, wave, { mode: 'bilinear', paddingMode: 'border' }), 'wave, border, main-thread canvas');
    await page.close();
    assert.deepEqual(problems, []);
  });
});
