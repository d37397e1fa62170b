// The CLI tests' fixture and helpers: the packed package installed with jpeg-js (PNG is built in), running its gridsample command, test pictures, and the library's own result for a warp the CLI makes.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

import pngjs from 'pngjs';

import { load } from '../../../js/node.mjs';
import { diskImage } from './disk.mjs';
import { installPacked } from './packed.mjs';

export const { PNG } = pngjs;
export const run = promisify(execFile);

export let gs;
export let work; // temporary folder: the consumer project and the images
export let bin; // node_modules/.bin/gridsample of the consumer project

export async function sh(file, args, options = {}) {
  try {
    return await run(file, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  } catch (e) {
    throw new Error(`${file} ${args.join(' ')} failed (${e.code}):\n${e.stdout || ''}\n${e.stderr || ''}`, { cause: e });
  }
}

// Runs the installed CLI; resolves to {code, stdout, stderr} whatever the exit status.
// (`options.file` runs that program instead, e.g. sh for a command line with redirections.)
export async function cli(args, { file = bin, ...options } = {}) {
  try {
    const { stdout, stderr } = await run(file, args, { cwd: work, encoding: 'utf8', ...options });
    return { code: 0, stdout, stderr };
  } catch (e) {
    if (typeof e.code !== 'number') throw e;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Loads the package and installs the packed tarball with jpeg-js (the before hook of a test file). */
export async function startCli() {
  gs = await load();
  // The JPEG codec is the user's own (an optional peer); PNG is built in, and pngjs here is the
  // tests' own decoder, not installed beside the package.
  let app;
  ({ work, app } = await installPacked('gridsample-cli-', { peers: ['jpeg-js'], manifest: { name: 'cli-consumer' } }));
  bin = join(app, 'node_modules', '.bin', 'gridsample');
}

/** Removes what startCli installed (the after hook of a test file). */
export function stopCli() {
  if (work && !process.env.GRIDSAMPLE_KEEP_TMP) rmSync(work, { recursive: true, force: true });
}

// Runs `body` over `items`, a few at a time (each item starts a process).
export async function inParallel(items, body, width = 4) {
  const queue = [...items];
  await Promise.all(Array.from({ length: width }, async () => {
    while (queue.length) await body(queue.shift());
  }));
}

// A test picture with every channel varying, translucent parts and sharp edges.
export function testImage(width, height) {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) {
      const i = 4 * (y * width + x);
      png.data[i] = (x * 255) / (width - 1);
      png.data[i + 1] = (y * 255) / (height - 1);
      png.data[i + 2] = ((x >> 2) + (y >> 2)) % 2 ? 230 : 20;
      png.data[i + 3] = x < width / 4 ? 128 + y : 255;
    }
  }
  return png;
}

// A disk (lib/disk.mjs) as pngjs takes an image.
export function diskPng(width, height, cx, cy, radius) {
  const { data } = diskImage(width, height, cx, cy, radius);
  return { width, height, data: Buffer.from(data.buffer) };
}

export function writeImage(name, png, options) {
  const path = join(work, name);
  writeFileSync(path, PNG.sync.write(png, options));
  return path;
}

// The suites' input picture: a 67 x 45 testImage written as in.png, and its pixels as read back.
export function inputPicture() {
  const input = writeImage('in.png', testImage(67, 45));
  return { input, image: PNG.sync.read(readFileSync(input)) };
}

// The library's result for decoded RGBA pixels, by the call the CLI makes: warpAffine (an
// affine θ) or gridSampleChannelsLast (a flow grid) on the bytes where the package has them.
// Both are also checked against gridSample of the bytes as uint8 planar (1, 4, H, W) data,
// which they equal up to a rounding step. `grid(ow, oh)` gives the grid for the output size.
export function libraryWarp(image, [ow, oh], grid, options, theta = null) {
  const { width, height } = image;
  const data = new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.length);
  const plane = width * height;
  const x = new Uint8Array(4 * plane);
  for (let i = 0; i < plane; ++i) for (let c = 0; c < 4; ++c) x[c * plane + i] = data[4 * i + c];
  const g = grid(ow, oh);
  const y = gs.gridSample({ data: x, shape: [1, 4, height, width] }, { data: g, shape: [1, oh, ow, 2] }, options).data;
  const chain = new Uint8Array(4 * ow * oh);
  for (let i = 0; i < ow * oh; ++i) for (let c = 0; c < 4; ++c) chain[4 * i + c] = y[c * ow * oh + i];
  let direct = null;
  if (theta && typeof gs.warpAffine === 'function') {
    direct = gs.warpAffine({ data, width, height }, Float32Array.from(theta), { ...options, width: ow, height: oh }).data;
  } else if (typeof gs.gridSampleChannelsLast === 'function') {
    direct = gs.gridSampleChannelsLast({ data, shape: [1, height, width, 4] }, { data: g, shape: [1, oh, ow, 2] }, options).data;
  }
  if (!direct) return chain;
  let off = 0;
  for (let i = 0; i < chain.length; ++i) {
    const d = Math.abs(direct[i] - chain[i]);
    assert.ok(d <= 1, `channels-last call against gridSample: value ${i} is ${direct[i]}, gridSample gives ${chain[i]}`);
    off += d;
  }
  assert.ok(off <= chain.length * 0.01, `channels-last call against gridSample: ${off} of ${chain.length} values off by one`);
  return direct;
}

export const affine = (theta, alignCorners) => (w, h) =>
  gs.affineGrid({ data: Float32Array.from(theta), shape: [1, 2, 3] }, [1, 4, h, w], { alignCorners }).data;

export function assertPixels(outPath, want, [w, h], what) {
  const got = PNG.sync.read(readFileSync(outPath));
  assert.deepEqual([got.width, got.height], [w, h], `${what}: size`);
  let bad = 0;
  let first = '';
  for (let i = 0; i < want.length; ++i) {
    if (got.data[i] !== want[i]) {
      if (!bad) first = ` first at (x ${(i >> 2) % w}, y ${Math.floor((i >> 2) / w)}) channel ${'RGBA'[i & 3]}: CLI ${got.data[i]}, library ${want[i]}`;
      bad += 1;
    }
  }
  assert.equal(bad, 0, `${what}: ${bad} of ${want.length} values differ;${first}`);
}
