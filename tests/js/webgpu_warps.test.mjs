// gridsample/webgpu's image warps in Node on SwiftShader (npm webgpu): warpAffine (both spaces, float64 and float32 matrices), warpPerspective and remap on uint8 and float32 images of 1 to 4 channels, every mode and padding, with and without fill, hostile positions and far matrices included, against the wasm build (bit for bit; uint8 bilinear, whose CPU blend is fixed point, within 1 level); the library's coordinate tables they sample from; GPU images, out, encoder and the errors.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { libraryRules } from '../../js/core/api.mjs';
import { load } from '../../js/node.mjs';
import { createGpu } from '../../js/webgpu/index.mjs';
import { nodeWebGpu } from './lib/node_webgpu.mjs';
import { prng } from './lib/random.mjs';

const setup = await nodeWebGpu();
const skip = setup.skip ?? false;
const wasm = await load({ variant: 'simd' });
const gpu = skip ? null : await createGpu({ device: setup.device, wasm });

const MODES = ['nearest', 'linear', 'cubic'];
const PADDINGS = ['zeros', 'border', 'reflection'];
// Positions no image reaches, halves, integers past 2^23, 2^52 and float32's range, non-finite.
const HOSTILE = [NaN, Infinity, -Infinity, 1e30, -1e30, 3e38, -3e38, 1e7, -1e7, 8388608.5, -8388609, 2 ** 24 + 2, 100.25, -77.75, 1234.5,
  -4096.5, 50000.125, -3e6, 8388607.5, -8388607.5,
  -(2 ** 25), 2 ** 52, -(2 ** 52), 2 ** 53 + 2 ** 31, -(2 ** 60), 0.5, -0.5, 2.5, 1e-30];

function image(random, dtype, width, height, channels) {
  const data = dtype === 'uint8' ? new Uint8ClampedArray(width * height * channels) : new Float32Array(width * height * channels);
  for (let i = 0; i < data.length; ++i) data[i] = dtype === 'uint8' ? Math.floor(random() * 256) : random() * 2 - 1;
  return { data, width, height, channels };
}

// How the GPU's image differs from the wasm build's: elements that differ (the sign of zero
// aside) and the largest difference.
function differences(got, want) {
  assert.equal(got.data.constructor, want.data.constructor === Uint8Array ? Uint8ClampedArray : want.data.constructor);
  assert.deepEqual([got.width, got.height, got.channels], [want.width, want.height, want.channels]);
  let count = 0;
  let largest = 0;
  let first = null;
  for (let i = 0; i < want.data.length; ++i) {
    const [a, b] = [got.data[i], want.data[i]];
    if (a === b || (Number.isNaN(a) && Number.isNaN(b))) continue;
    count += 1;
    largest = Math.max(largest, Math.abs(a - b));
    first ??= { i, gpu: a, wasm: b };
  }
  return { count, largest, first, of: want.data.length };
}

// One random call of `kind` on a random image: [what, wasm's result, the GPU's].
async function randomCall(random, kind, dtype, mode, paddingMode) {
  const channels = 1 + Math.floor(random() * 4);
  const [w, h] = [1 + Math.floor(random() * 11), 1 + Math.floor(random() * 11)];
  const [width, height] = [1 + Math.floor(random() * 9), 1 + Math.floor(random() * 9)];
  const img = image(random, dtype, w, h, channels);
  const fill = paddingMode === 'zeros' && random() < 0.5
    ? Array.from({ length: channels }, () => (dtype === 'uint8' ? Math.floor(random() * 256) : random() * 4 - 2))
    : undefined;
  const o = { mode, paddingMode, ...(fill ? { fill } : {}) };
  const pick = () => HOSTILE[Math.floor(random() * HOSTILE.length)];
  let call;
  if (kind === 'warpAffine normalized') {
    const scale = random() < 0.3 ? 60 : 3;
    const theta = Array.from({ length: 6 }, () => (random() * 2 - 1) * scale);
    const matrix = random() < 0.5 ? theta : Float32Array.from(theta);
    const alignCorners = random() < 0.5;
    call = (api) => api.warpAffine(img, matrix, { ...o, width, height, alignCorners });
  } else if (kind === 'warpAffine pixel') {
    const m = [random() * 4 - 2, random() - 0.5, random() * w * 3, random() - 0.5, random() * 4 - 2, random() * h * 3];
    if (random() < 0.2) m[Math.floor(random() * 6)] = random() < 0.5 ? 1e20 : pick();
    call = (api) => api.warpAffine(img, m, { ...o, width, height, space: 'pixel', inverse: true });
  } else if (kind === 'warpPerspective') {
    const m = [1 + random(), random() - 0.5, random() * w, random() - 0.5, 1 + random(), random() * h, random() - 0.5, random() - 0.5, 1];
    if (random() < 0.3) m[Math.floor(random() * 9)] = random() < 0.5 ? -1e-30 : pick();
    const space = random() < 0.5 ? 'pixel' : 'normalized';
    const more = space === 'pixel' ? { inverse: true } : { alignCorners: random() < 0.5 };
    call = (api) => api.warpPerspective(img, m, { ...o, width, height, space, ...more });
  } else {
    const n = width * height;
    const position = (size) => (random() < 0.2 ? pick() : (random() * 3 - 1) * size);
    const planes = kind === 'remap planes';
    const xs = Float32Array.from({ length: n }, () => position(w));
    const ys = Float32Array.from({ length: n }, () => position(h));
    const both = Float32Array.from({ length: 2 * n }, (_, i) => (i % 2 ? ys : xs)[i >> 1]);
    const mapX = { data: planes ? xs : both, width, height };
    const mapY = planes ? { data: ys, width, height } : undefined;
    call = (api) => api.remap(img, mapX, mapY, o);
  }
  const want = call(wasm);
  const y = await call(gpu);
  assert.equal(y.ranOn, 'webgpu');
  const got = await gpu.read(y);
  y.dispose();
  return [`${w}x${h}x${channels} -> ${width}x${height} ${JSON.stringify(o)}`, want, got];
}

describe('gridsample/webgpu image warps equal the wasm build', { skip }, () => {
  const random = prng(2809);
  const tally = { calls: 0, fixedPoint: 0 };
  for (const kind of ['warpAffine normalized', 'warpAffine pixel', 'warpPerspective', 'remap maps', 'remap planes']) {
    for (const dtype of ['float32', 'uint8']) {
      for (const mode of MODES) {
        for (const paddingMode of PADDINGS) {
          test(`${kind}, ${dtype}, ${mode}, ${paddingMode}`, async () => {
            for (let trial = 0; trial < 3; ++trial) {
              const [what, want, got] = await randomCall(random, kind, dtype, mode, paddingMode);
              const d = differences(got, want);
              tally.calls += 1;
              // The CPU's uint8 bilinear blend is fixed point inside the image (within 1 level
              // of the reference, which the GPU computes): a bound, not equality, there only.
              if (dtype === 'uint8' && mode === 'linear' && d.count > 0) {
                tally.fixedPoint += 1;
                assert.ok(d.largest <= 1, `${kind} ${what}: ${JSON.stringify(d)}`);
                continue;
              }
              assert.equal(d.count, 0, `${kind} ${what}: ${JSON.stringify(d)}`);
            }
          });
        }
      }
    }
  }
  // Reflection reduces a float64 theta's values modulo 4 before rounding them: past 2^8 the
  // GPU computes them per pixel as the reference does (float32 pairs lack the low bits; issue
  // 46: 3.4e38 gave 48 of 60 pixels off, 3.3e8 1, 1e15 most).
  test('warpAffine normalized, reflection, float64 theta entries from 300 to 3.4e38: the wasm build\'s values', async () => {
    const random = prng(46);
    for (const dtype of ['float32', 'uint8']) {
      const img = image(random, dtype, 5, 4, 3);
      for (const big of [300, 3.3e8, 7.7e11, 1e15 + 3, 2 ** 60 + 2 ** 9, 3.4e38, -1e300]) {
        for (let k = 0; k < 6; ++k) {
          const theta = [1, 0.1, 0.2, 0.3, 1, -0.1];
          theta[k] = big;
          for (const mode of MODES) {
            const o = { mode, paddingMode: 'reflection', width: 6, height: 5, alignCorners: k % 2 === 1 };
            const y = await gpu.warpAffine(img, theta, o);
            const d = differences(await gpu.read(y), wasm.warpAffine(img, theta, o));
            y.dispose();
            // uint8 bilinear: the CPU's fixed-point blend, within 1 level.
            if (dtype === 'uint8' && mode === 'linear') assert.ok(d.largest <= 1, `${dtype} theta[${k}] = ${big} ${mode}: ${JSON.stringify(d)}`);
            else assert.equal(d.count, 0, `${dtype} theta[${k}] = ${big} ${mode}: ${JSON.stringify(d)}`);
          }
        }
      }
    }
  });
  // The perspective table is H scaled by the power of two that brings its w row into [0.5, 1),
  // terms kept within 2^100 (the library's PerspectiveMapOf, PerspectiveRowTerms): H scaled by
  // 2^-1000 to 2^1000, and entries from 1e-300 to 1e300 side by side.
  test('warpPerspective, H with huge and tiny entries: the wasm build\'s values', async () => {
    const random = prng(47);
    const base = [1.1, 0.1, 0.5, -0.2, 0.9, 1, 0.01, 0.02, 1];
    const matrices = [-1000, -600, -100, 100, 600, 1000].map((k) => base.map((v) => v * 2 ** k));
    matrices.push([1e30, 0, -1e40, 0, 1e-300, 3, 0, 1e-290, 1e-200], [1e300, 1e-300, 2, -1e-300, 1e300, 3, 1e-300, 1e-300, 1e300],
      [2, 0.5, 1e20, 0.1, 1e-20, -1e20, 1e-30, -1e-30, 1e-25], [0.3, 1e-200, 4, 1e-200, 0.3, 2, 1e-203, 1e-203, 1e-200]);
    for (const dtype of ['float32', 'uint8']) {
      const img = image(random, dtype, 7, 5, 3);
      for (const h of matrices) {
        for (const [mode, paddingMode] of MODES.flatMap((m) => PADDINGS.map((p) => [m, p]))) {
          for (const space of ['pixel', 'normalized']) {
            const o = { mode, paddingMode, width: 9, height: 6, space, ...(space === 'pixel' ? { inverse: true } : { alignCorners: mode === 'cubic' }) };
            const y = await gpu.warpPerspective(img, h, o);
            const d = differences(await gpu.read(y), wasm.warpPerspective(img, h, o));
            y.dispose();
            const what = `${dtype} H ${JSON.stringify(h)} ${JSON.stringify(o)}: ${JSON.stringify(d)}`;
            if (dtype === 'uint8' && mode === 'linear') assert.ok(d.largest <= 1, what);
            else assert.equal(d.count, 0, what);
          }
        }
      }
    }
  });
  test('tally', () => {
    console.log(`# image warps: ${tally.calls} random calls equal the wasm build; ${tally.fixedPoint} uint8 bilinear ones within 1 level (its fixed-point blend)`);
    assert.ok(tally.calls >= 270);
  });
});

describe('gridsample/webgpu image warps: the coordinate tables are the library\'s', () => {
  const rules = libraryRules(wasm);
  test('which table and its size (src/kernels/api/warp_tables.h)', () => {
    const reflection = rules.sampling('warpAffine', { paddingMode: 'reflection' }).padding;
    const zeros = rules.sampling('warpAffine', {}).padding;
    const theta = (dtype, data) => ({ dtype, data: dtype === 'float32' ? Float32Array.from(data) : Float64Array.from(data) });
    const far = [300, 0, 0, 0, 1, 0];
    assert.deepEqual(rules.warpTableLayout(theta('float64', far), reflection, 5, 3), { kind: 'points', bytes: 4 * 2 * 15 });
    assert.deepEqual(rules.warpTableLayout(theta('float32', far), reflection, 5, 3), { kind: 'affine', bytes: 4 * 4 * 8 });
    assert.deepEqual(rules.warpTableLayout(theta('float64', far), zeros, 5, 3), { kind: 'affine', bytes: 4 * 4 * 8 });
    assert.deepEqual(rules.warpTableLayout(theta('float64', [100, 50, 105, 0, 1, 0]), reflection, 5, 3), { kind: 'affine', bytes: 4 * 4 * 8 });
    assert.deepEqual(rules.warpTableLayout(null, zeros, 5, 3), { kind: 'perspective', bytes: 4 * 3 * 3 });
  });
  test('the tables: AffineGrid\'s products as float32 pairs, its values per pixel, H\'s row terms', () => {
    // 2 x 2, alignCorners: base coordinates -1 and 1; 0.1 * -1 as a pair (hi, lo).
    const pair = (v) => [Math.fround(v), Math.fround(v - Math.fround(v))];
    const t = [0.1, 2, 3, 4, 5, 2 ** 101];
    const affine = rules.warpTable('warpAffine', 'affine', t, 2, 2, true);
    assert.deepEqual(Array.from(affine.terms), [...pair(-0.1), -4, 0, ...pair(0.1), 4, 0, -2, 0, -5, 0, 2, 0, 5, 0]);
    assert.deepEqual(affine.source, [3, 0, 2 ** 100, 0]);
    const points = rules.warpTable('warpAffine', 'points', [301, 0, 0, 0, 0, 2.5], 2, 1, false);
    // x = 301 * -0.5 = -150.5 -> fmod -2.5; 301 * 0.5 -> 2.5; y = 2.5.
    assert.deepEqual({ ...points, terms: Array.from(points.terms) }, { terms: [-2.5, 2.5, 2.5, 2.5], source: [0, 0, 0, 0] });
    // H scaled by 1/8, its w row's largest entry 4 into [0.5, 1), whatever power of two H is given at.
    for (const k of [0, 600, -600]) {
      const h = [2, 0.5, 1, 0, 3, 2, 0, 0, 4].map((v) => v * 2 ** k);
      const perspective = rules.warpTable('warpPerspective', 'perspective', h, 2, 2, false);
      assert.deepEqual(perspective.source, [2 / 8, 0, 0, 0], `2^${k}`);
      assert.deepEqual(Array.from(perspective.terms), [1 / 8, 2 / 8, 0.5, 1.5 / 8, 5 / 8, 0.5], `2^${k}`);
    }
  });
});

describe('gridsample/webgpu image warps: GPU images, out and encoder', { skip }, () => {
  const random = prng(17);
  test('an uploaded image warped twice on the GPU, read as ImageData-shaped pixels', async () => {
    const img = image(random, 'uint8', 16, 12, 4);
    const src = gpu.upload(img);
    assert.deepEqual([src.width, src.height, src.channels, src.dtype], [16, 12, 4, 'uint8']);
    const m = [Math.cos(0.3), -Math.sin(0.3), 4, Math.sin(0.3), Math.cos(0.3), -2];
    const a = await gpu.warpAffine(src, m, { space: 'pixel', mode: 'cubic', paddingMode: 'reflection' });
    const b = await gpu.remap(a, { data: Float32Array.from({ length: 2 * 10 * 8 }, (_, i) => (i % 2 ? (i >> 1) / 10 : (i >> 1) % 10) + 0.25), width: 10, height: 8 }, null, { mode: 'nearest' });
    const got = await gpu.read(b);
    assert.ok(got.data instanceof Uint8ClampedArray);
    const want = wasm.remap(wasm.warpAffine(img, m, { space: 'pixel', mode: 'cubic', paddingMode: 'reflection' }),
      { data: Float32Array.from({ length: 2 * 10 * 8 }, (_, i) => (i % 2 ? (i >> 1) / 10 : (i >> 1) % 10) + 0.25), width: 10, height: 8 }, null, { mode: 'nearest' });
    assert.equal(differences(got, want).count, 0);
    for (const t of [src, a, b]) t.dispose();
  });

  test('out: written in place; encoder: recorded, run when the caller submits', async () => {
    const img = image(random, 'float32', 9, 7, 3);
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const out = { buffer: setup.device.createBuffer({ size: 5 * 4 * 3 * 4, usage }), width: 5, height: 4, channels: 3, dtype: 'float32' };
    const h = [1.1, 0.1, 0.5, -0.2, 0.9, 1, 0.01, 0.02, 1];
    const options = { space: 'pixel', inverse: true, width: 5, height: 4 };
    const encoder = setup.device.createCommandEncoder();
    assert.equal(await gpu.warpPerspective(img, h, { ...options, out, encoder }), out);
    assert.deepEqual(Array.from((await gpu.read(out)).data), new Array(60).fill(0), 'nothing runs before the submission');
    setup.device.queue.submit([encoder.finish()]);
    assert.equal(differences(await gpu.read(out), wasm.warpPerspective(img, h, options)).count, 0);
    out.buffer.destroy();
  });

  test('importImage: an rgba8unorm texture as a GPU image (rows padded to 256 bytes), warped, read back packed', async () => {
    for (const [width, height] of [[37, 5], [64, 3], [1, 1]]) {
      const img = image(random, 'uint8', width, height, 4);
      const texture = setup.device.createTexture({ size: [width, height], format: 'rgba8unorm', usage: GPUTextureUsage.COPY_DST | GPUTextureUsage.COPY_SRC | GPUTextureUsage.TEXTURE_BINDING });
      setup.device.queue.writeTexture({ texture }, img.data, { bytesPerRow: 4 * width }, [width, height]);
      const src = await gpu.importImage(texture);
      assert.deepEqual([src.width, src.height, src.channels, src.dtype, src.bytesPerRow], [width, height, 4, 'uint8', Math.ceil(4 * width / 256) * 256]);
      assert.deepEqual(Array.from((await gpu.read(src)).data), Array.from(img.data), `${width}x${height}: the texture's pixels`);
      const o = { space: 'pixel', inverse: true, mode: 'cubic', paddingMode: 'border', width: 9, height: 7 };
      const h = [0.9, 0.2, 1.5, -0.1, 1.1, 0.5, 0.001, -0.002, 1];
      assert.equal(differences(await gpu.read(await gpu.warpPerspective(src, h, o)), wasm.warpPerspective(img, h, o)).count, 0);
      src.dispose();
      texture.destroy();
    }
  });

  test('out with padded rows (bytesPerRow, as copyBufferToTexture needs): the pixels land in their rows, then onto a texture', async () => {
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    for (const [dtype, channels, bytesPerRow] of [['uint8', 4, 256], ['uint8', 3, 37], ['float32', 2, 96]]) {
      const img = image(random, dtype, 11, 6, channels);
      const [width, height] = [10, 5];
      const buffer = setup.device.createBuffer({ size: bytesPerRow * height, usage });
      const out = { buffer, width, height, channels, dtype, bytesPerRow };
      const o = { mode: 'cubic', paddingMode: 'border', width, height, space: 'pixel', inverse: true };
      const m = [0.9, 0.3, 1.2, -0.2, 1.1, 0.4];
      assert.equal(await gpu.warpAffine(img, m, { ...o, out }), out);
      const want = wasm.warpAffine(img, m, o);
      const d0 = differences(await gpu.read(out), want);
      assert.equal(d0.count, 0, `${dtype} ${channels} channels, rows ${bytesPerRow} bytes apart: ${JSON.stringify(d0)}`);
      if (bytesPerRow === 256) {
        const texture = setup.device.createTexture({ size: [width, height], format: 'rgba8unorm', usage: GPUTextureUsage.COPY_DST | GPUTextureUsage.COPY_SRC });
        const encoder = setup.device.createCommandEncoder();
        encoder.copyBufferToTexture({ buffer, bytesPerRow }, { texture }, [width, height]);
        setup.device.queue.submit([encoder.finish()]);
        const back = await gpu.importImage(texture);
        assert.equal(differences(await gpu.read(back), want).count, 0, 'through a texture');
        back.dispose();
        texture.destroy();
      }
      buffer.destroy();
    }
  });

  test('empty outputs and sizes of 1 pixel', async () => {
    const img = image(random, 'uint8', 1, 1, 2);
    const y = await gpu.warpAffine(img, [1, 0, 0, 0, 1, 0], { width: 0, height: 3 });
    assert.deepEqual([y.width, y.height, (await gpu.read(y)).data.length], [0, 3, 0]);
    const one = await gpu.warpAffine(img, [0.5, 0, 0, 0, 2, 0], { width: 3, height: 2, mode: 'cubic', paddingMode: 'reflection', alignCorners: true });
    assert.equal(differences(await gpu.read(one), wasm.warpAffine(img, [0.5, 0, 0, 0, 2, 0], { width: 3, height: 2, mode: 'cubic', paddingMode: 'reflection', alignCorners: true })).count, 0);
  });
});

describe('gridsample/webgpu image warps: errors', { skip }, () => {
  const img = { data: new Uint8ClampedArray(4 * 3 * 4), width: 4, height: 3 };
  test('arguments and options: the wasm API\'s messages', async () => {
    for (const [call, message] of [
      [(api) => api.warpAffine(img, [1, 0, 0], {}), /^warpAffine: theta: expected 6 numbers/],
      [(api) => api.warpAffine(img, [1, 0, 0, 0, 1, 0], { fill: 3, paddingMode: 'border' }), /fill/],
      [(api) => api.warpAffine(img, [1, 0, 0, 0, 1, 0], { mode: 'area' }), /mode/],
      [(api) => api.warpPerspective(img, [1, 0, 0, 0, 1, 0, 0, 0, 0], { space: 'pixel' }), /singular/],
      [(api) => api.warpAffine(img, [1, 0, 0, 0, 1, 0], { space: 'pixel', alignCorners: true }), /does not apply to space 'pixel'/],
      [(api) => api.remap(img, { data: new Float32Array(6), width: 3, height: 1 }, { data: new Float32Array(2), width: 2, height: 1 }), /mapX|mapY/],
      [(api) => api.remap({ data: new Uint8Array(5), width: 2, height: 2 }, { data: new Float32Array(2), width: 1, height: 1 }), /image/],
    ]) {
      let expected;
      try {
        call(wasm);
      } catch (e) {
        expected = e;
      }
      assert.ok(expected, `the wasm API accepted ${call}`);
      assert.match(expected.message, message);
      await assert.rejects(call(gpu), (e) => e.constructor === expected.constructor && e.message === expected.message, String(call));
    }
  });

  test('GPU images: dtype, too small a buffer, out of another size, out aliasing the image, disposed', async () => {
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const buffer = setup.device.createBuffer({ size: 48, usage });
    const G = { buffer, width: 4, height: 3, channels: 4, dtype: 'uint8' };
    const m = [1, 0, 0, 0, 1, 0];
    await assert.rejects(gpu.warpAffine({ ...G, dtype: 'float16' }, m), /image.dtype: expected 'uint8' or 'float32', got "float16"/);
    await assert.rejects(gpu.warpAffine({ ...G, width: 8 }, m), /has 48 bytes, a 8x3 uint8 image of 4 channels needs 96/);
    await assert.rejects(gpu.warpAffine(G, m, { out: { ...G, width: 2, height: 6 }, width: 4 }), /options.out: expected a 4x6 image \(the output's size\), got 2x6/);
    await assert.rejects(gpu.warpAffine(G, m, { out: G }), /options.out: its GPUBuffer is image's/);
    const y = await gpu.warpAffine(G, m);
    y.dispose();
    await assert.rejects(gpu.warpAffine(y, m), /disposed/);
    await assert.rejects(gpu.read(img), /expected a GPU image/);
    await assert.rejects(gpu.warpAffine({ ...G, bytesPerRow: 15 }, m), /bytesPerRow: expected a multiple of 1 of at least 16/);
    await assert.rejects(gpu.warpAffine({ ...G, bytesPerRow: 20 }, m), /has 48 bytes, a 4x3 uint8 image of 4 channels with rows 20 bytes apart needs 56/);
    buffer.destroy();
  });

  test('sizes: an output or coordinates larger than one binding refused before any work, an empty output of any width, a bad out size', async () => {
    const limit = setup.device.limits.maxStorageBufferBindingSize;
    const m = [1, 0, 0, 0, 1, 0];
    await assert.rejects(gpu.warpAffine(img, m, { width: 2 ** 20, height: 2 ** 20 }),
      { name: 'RangeError', message: `warpAffine: the output takes ${2 ** 42} bytes, more than this GPU binds at once (maxStorageBufferBindingSize ${limit}); split the work (a batch, or an image into bands)` });
    await assert.rejects(gpu.warpAffine(img, m, { width: limit, height: 1, mode: 'nearest' }), /warpAffine: the output takes \d+ bytes, more than this GPU binds/);
    await assert.rejects(gpu.warpAffine(img, m, { width: limit / 8, height: 1 }), /warpAffine: the coordinate table takes \d+ bytes, more than this GPU binds/);
    const empty = await gpu.warpAffine(img, m, { width: 2 ** 40, height: 0 });
    assert.deepEqual([empty.width, empty.height, empty.buffer.size], [2 ** 40, 0, 16]); // the smallest allocation (allocationBytes)
    await assert.rejects(gpu.warpAffine(img, m, { out: { buffer: setup.device.createBuffer({ size: 64, usage: GPUBufferUsage.STORAGE }), width: -3, height: 2, channels: 4, dtype: 'uint8' } }),
      /warpAffine: options.out.width: expected a non-negative integer/);
  });

  test('importImage: what it cannot take', async () => {
    const bgra = setup.device.createTexture({ size: [2, 2], format: 'bgra8unorm', usage: GPUTextureUsage.COPY_SRC | GPUTextureUsage.COPY_DST });
    await assert.rejects(gpu.importImage(bgra), /expected a GPUTexture of format rgba8unorm \(RGBA bytes\), got bgra8unorm/);
    const noCopy = setup.device.createTexture({ size: [2, 2], format: 'rgba8unorm', usage: GPUTextureUsage.TEXTURE_BINDING });
    await assert.rejects(gpu.importImage(noCopy), /lacks COPY_SRC usage/);
    await assert.rejects(gpu.importImage(img), /a CPU image \{data, width, height\}: use upload\(\)/);
    await assert.rejects(gpu.importImage(42), /expected a GPUTexture, an ImageBitmap/);
    for (const t of [bgra, noCopy]) t.destroy();
  });
});
