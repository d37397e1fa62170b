// The demo's browser tests' fixture and helpers: the demo server and headless Chromium they share, opening the page, and the package's own result for what its canvases show.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { load } from '../../../js/node.mjs';
import { startDemoServer } from '../../../web/demo/server.mjs';
import { flowFromGrid } from '../../../web/demo/transforms.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
export const OUTPUT = join(HERE, '..', 'output');
export const CHROMIUM = process.env.GRIDSAMPLE_CHROMIUM || '/usr/bin/chromium';

export let gs;
export let server;
let context;
let profile;

/** Loads the package, starts the demo server and launches Chromium (the before hook of a test file). */
export async function startDemo() {
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
}

/** Closes what startDemo started (the after hook of a test file). */
export async function stopDemo() {
  if (context) await context.close();
  if (server) await server.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
}

// Opens the demo and waits for its first frame; `problems` collects console errors, page
// errors and failed or refused requests, which fail the test.
export async function openDemo(query = '') {
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

export const settled = (page) => page.evaluate(() => window.__demo.settled());

export function decode({ width, height, base64 }) {
  return { width, height, data: new Uint8ClampedArray(Buffer.from(base64, 'base64')) };
}

export function encode({ width, height, data }) {
  return { width, height, base64: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64') };
}

// Interleaved RGBA (H, W, 4) bytes <-> planar float32 (N, 4, H, W), as an app feeds a canvas to gridSample.
export function planar(rgba, width, height) {
  const plane = width * height;
  const x = new Float32Array(4 * plane);
  for (let i = 0; i < plane; ++i) for (let c = 0; c < 4; ++c) x[c * plane + i] = rgba[4 * i + c];
  return x;
}

export function interleaved(y, offset, width, height) {
  const plane = width * height;
  const rgba = new Uint8ClampedArray(4 * plane); // rounds half to even and clamps
  for (let i = 0; i < plane; ++i) for (let c = 0; c < 4; ++c) rgba[4 * i + c] = y[offset + c * plane + i];
  return rgba;
}

// The page's canvas pixels against the package's result. A 2-D canvas stores premultiplied
// alpha, so translucent pixels do not read back as written: the expected pixels take the
// same trip through a canvas of the page before the exact comparison.
export async function assertCanvasEquals(page, got, want, what) {
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
export function packageWarp(source, grid, options) {
  const { width, height } = source;
  const y = gs.gridSample({ data: planar(source.data, width, height), shape: [1, 4, height, width] },
    { data: grid, shape: [1, height, width, 2] }, options);
  return { width, height, data: interleaved(y.data, 0, width, height) };
}

// What the package computes for a flow preset's grid, as the page calls it: warpFlow with the
// flow in pixels that the grid describes.
export function packageFlow(source, grid, options) {
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
export function packageAffine(source, theta, options, path) {
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

export function affine(theta, width, height, alignCorners) {
  return gs.affineGrid({ data: Float32Array.from(theta), shape: [1, 2, 3] }, [1, 4, height, width], { alignCorners }).data;
}

// θ of the sliders written out here, not taken from the demo: rotation r, uniform scale s.
export function rotationTheta(degrees, s) {
  const r = (degrees * Math.PI) / 180;
  return [s * Math.cos(r), -s * Math.sin(r), 0, s * Math.sin(r), s * Math.cos(r), 0];
}

export const figure = async (page, id) => page.locator(`#${id}`).textContent();

// Moves a slider to `value` as a drag would (an input event).
export async function slide(page, id, value) {
  await page.evaluate(([i, v]) => {
    const el = document.getElementById(i);
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, [id, value]);
}

// The source's pixels moved as `from` says: output (x, y) is source pixel from(x, y), or
// transparent zeros where that is outside the source.
export function moved(source, from) {
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
