// warpAffine and gridSampleChannelsLast in both wasm variants: equal to affineGrid + gridSample on the same pixels in planar layout, every option and hostile input; errors name the argument and leave the module usable.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, test } from 'node:test';

import { load, simdSupported } from '../../js/node.mjs';
import { diskImage, moments } from './lib/disk.mjs';
import { detached } from './lib/hostile.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const variants = ['simd', 'scalar'].filter((v) => v === 'scalar' || simdSupported());
const MODES = ['bilinear', 'nearest', 'bicubic'];
const PADDINGS = ['zeros', 'border', 'reflection'];

// A small deterministic generator (xorshift32), so failures reproduce.
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}

// (H, W, C) interleaved <-> (1, C, H, W) planar.
function toPlanar(data, width, height, channels) {
  const out = new data.constructor(data.length);
  for (let p = 0; p < width * height; ++p) {
    for (let c = 0; c < channels; ++c) out[c * width * height + p] = data[p * channels + c];
  }
  return out;
}
function toInterleaved(data, width, height, channels) {
  const out = new data.constructor(data.length);
  for (let p = 0; p < width * height; ++p) {
    for (let c = 0; c < channels; ++c) out[p * channels + c] = data[c * width * height + p];
  }
  return out;
}

// What warpAffine means: affineGrid + gridSample (one align_corners) on the planar image.
// theta: a Float32Array computes as float32, anything else as float64 (warpAffine's rule).
function composed(gs, image, theta, options, width, height) {
  const { data, width: w, height: h, channels } = image;
  const thetaData = theta instanceof Float32Array ? theta : Float64Array.from(theta);
  const grid = gs.affineGrid({ data: thetaData, shape: [1, 2, 3] }, [1, channels, height, width],
    { alignCorners: options.alignCorners });
  const y = gs.gridSample({ data: toPlanar(data, w, h, channels), shape: [1, channels, h, w] }, grid, options);
  return toInterleaved(y.data, width, height, channels);
}

// What the package promises against the composition: identical, but uint8 bilinear (at most 1
// level: the fixed-point blend); both fold border/reflection weights as the reference does.
function allowed(isFloat, mode) {
  return !isFloat && mode === 'bilinear' ? 1 : 0;
}

function assertWithin(got, want, atol, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; ++i) {
    const a = got[i], b = want[i];
    if (Number.isNaN(a) && Number.isNaN(b)) continue;
    if (!(Math.abs(a - b) <= atol)) assert.fail(`${what}: element ${i} is ${a}, expected ${b} (within ${atol})`);
  }
}

// Thetas that reach interior points, exact borders and pixel centres (flips, quarter turns,
// dyadic entries), many reflections (large shifts), far outside and non-finite values.
function hostileTheta(next, kind) {
  const u = () => 2 * next() - 1;
  switch (kind % 7) {
    case 0: { const a = Math.PI * u(), s = 1 + 0.6 * u(); return [s * Math.cos(a), -s * Math.sin(a), u(), s * Math.sin(a), s * Math.cos(a), u()]; }
    case 1: return [-1, 0, 0, 0, 1, 0];
    case 2: return [0, 1, 0, -1, 0, 0];
    case 3: return Array.from({ length: 6 }, () => Math.round(16 * u()) / 8);
    case 4: return [1, 0.1 * u(), 30 * u(), 0.1 * u(), 1, 30 * u()];
    case 5: { const t = Array.from({ length: 6 }, u); t[Math.floor(6 * next())] = [1e30, -3.3e38, 1e300][Math.floor(3 * next())]; return t; }
    default: { const t = Array.from({ length: 6 }, u); t[Math.floor(6 * next())] = [NaN, Infinity, -Infinity][Math.floor(3 * next())]; return t; }
  }
}

for (const variant of variants) {
  const gs = await load({ variant });

  describe(`${gs.backend} warpAffine equals affineGrid + gridSample`, () => {
    for (const kind of ['Uint8ClampedArray', 'Uint8Array', 'Float32Array']) {
      test(`random ${kind} images, every mode, padding and align, hostile thetas`, () => {
        const next = rng(kind.length * 7919 + variant.length);
        const Ctor = globalThis[kind];
        let runs = 0;
        for (let iter = 0; iter < 12; ++iter) {
          const w = 1 + Math.floor(19 * next()), h = 1 + Math.floor(19 * next());
          const channels = 1 + Math.floor(4 * next());
          const data = new Ctor(w * h * channels);
          for (let i = 0; i < data.length; ++i) data[i] = kind === 'Float32Array' ? 2 * next() - 1 : Math.floor(256 * next());
          // channels is inferred from the length unless given (give it half the time).
          const image = iter % 2 ? { data, width: w, height: h, channels } : { data, width: w, height: h };
          const rawTheta = hostileTheta(next, iter);
          const theta = iter % 3 === 0 ? Float32Array.from(rawTheta) : (iter % 3 === 1 ? rawTheta : Float64Array.from(rawTheta));
          const width = 1 + Math.floor(19 * next()), height = 1 + Math.floor(19 * next());
          for (const mode of MODES) {
            for (const paddingMode of PADDINGS) {
              for (const alignCorners of [false, true]) {
                const options = { mode, paddingMode, alignCorners };
                const y = gs.warpAffine(image, theta, { ...options, width, height });
                assert.ok(y.data instanceof Ctor, `result class ${y.data.constructor.name}, expected ${kind}`);
                assert.deepEqual([y.width, y.height, y.channels], [width, height, channels]);
                const what = `${kind} ${w}x${h}x${channels} -> ${width}x${height} theta [${Array.from(theta).join(', ')}] ${JSON.stringify(options)}`;
                assertWithin(y.data, composed(gs, { data, width: w, height: h, channels }, theta, options, width, height),
                  allowed(kind === 'Float32Array', mode), what);
                ++runs;
              }
            }
          }
        }
        assert.equal(runs, 12 * 18);
      });
    }

    test('an ImageData-like RGBA image: same size by default, Uint8ClampedArray back, ready for new ImageData', () => {
      const w = 37, h = 23;
      const data = new Uint8ClampedArray(w * h * 4);
      const next = rng(5);
      for (let i = 0; i < data.length; ++i) data[i] = Math.floor(256 * next());
      const theta = [Math.cos(0.4), -Math.sin(0.4), 0.1, Math.sin(0.4), Math.cos(0.4), -0.05];
      const y = gs.warpAffine({ data, width: w, height: h }, theta);
      assert.ok(y.data instanceof Uint8ClampedArray);
      assert.deepEqual([y.width, y.height, y.channels, y.data.length], [w, h, 4, w * h * 4]);
      // Defaults: bilinear, zeros, align_corners false.
      assertWithin(y.data, composed(gs, { data, width: w, height: h, channels: 4 }, theta, {}, w, h), 1, 'defaults');
      // Identity: the image itself (bilinear at pixel centres is exact).
      assert.deepEqual(gs.warpAffine({ data, width: w, height: h }, [1, 0, 0, 0, 1, 0]).data, data);
    });

    test('out: a typed array, an image object (returned as is), heap tensors (no copies)', () => {
      const w = 16, h = 9, theta = Float32Array.from([0.9, 0.2, 0.1, -0.2, 0.9, 0]);
      const data = new Uint8Array(w * h * 4).map((_, i) => (i * 37) % 256);
      const want = gs.warpAffine({ data, width: w, height: h }, theta, { mode: 'bicubic', width: 11, height: 7 });
      const target = new Uint8Array(11 * 7 * 4);
      const a = gs.warpAffine({ data, width: w, height: h }, theta, { mode: 'bicubic', width: 11, height: 7, out: target });
      assert.equal(a.data, target);
      assert.deepEqual(target, want.data);
      const image = { data: new Uint8ClampedArray(11 * 7 * 4), width: 11, height: 7 };
      const b = gs.warpAffine({ data, width: w, height: h }, theta, { mode: 'bicubic', out: image });
      assert.equal(b, image);  // its size is the output size
      assert.deepEqual(Array.from(image.data), Array.from(want.data));

      const before = gs.heapUsed();
      const heapIn = gs.tensorFrom({ data, shape: [h, w, 4], dtype: 'uint8' });
      const heapOut = gs.tensor('uint8', [7, 11, 4]);
      const c = gs.warpAffine(heapIn, theta, { mode: 'bicubic', out: heapOut });
      assert.deepEqual([c.width, c.height, c.channels], [11, 7, 4]);
      assert.deepEqual(Array.from(heapOut.data), Array.from(want.data));
      // A heap image with a new output array.
      const d = gs.warpAffine(heapIn, theta, { mode: 'bicubic', width: 11, height: 7 });
      assert.deepEqual(Array.from(d.data), Array.from(want.data));
      heapIn.dispose();
      heapOut.dispose();
      assert.equal(gs.heapUsed(), before, 'heap bytes after disposing');
    });

    test('float32 images with 1 to 4 channels; empty outputs', () => {
      const next = rng(11);
      for (let channels = 1; channels <= 4; ++channels) {
        const data = Float32Array.from({ length: 5 * 6 * channels }, () => next());
        const y = gs.warpAffine({ data, width: 5, height: 6, channels }, [0.5, 0, 0, 0, 0.5, 0], { mode: 'nearest', paddingMode: 'border' });
        assert.ok(y.data instanceof Float32Array);
        assertWithin(y.data, composed(gs, { data, width: 5, height: 6, channels }, [0.5, 0, 0, 0, 0.5, 0], { mode: 'nearest', paddingMode: 'border' }, 5, 6), 0, `C=${channels}`);
      }
      const e = gs.warpAffine({ data: new Uint8Array(16), width: 2, height: 2 }, [1, 0, 0, 0, 1, 0], { width: 0, height: 5 });
      assert.deepEqual([e.width, e.height, e.data.length], [0, 5, 0]);
      const z = gs.warpAffine({ data: new Uint8Array(0), width: 0, height: 0 }, [1, 0, 0, 0, 1, 0]);
      assert.deepEqual([z.width, z.height, z.channels, z.data.length], [0, 0, 4, 0]);
    });

    test('options.rows: each band is those rows of the whole output (warpAffine, warpPerspective); bad bands are errors', () => {
      const next = rng(12);
      const image = { data: Uint8ClampedArray.from({ length: 37 * 29 * 4 }, () => 256 * next()), width: 37, height: 29 };
      const gray = { data: Float32Array.from({ length: 37 * 29 }, () => next()), width: 37, height: 29 };
      const calls = [
        ['warpAffine', image, [0.9, -0.3, 0.1, 0.3, 0.9, -0.05], { mode: 'bicubic', paddingMode: 'reflection', height: 41, width: 33 }],
        ['warpAffine', gray, gs.rotationMatrix([18, 14], 30), { space: 'pixel', fill: 0.5 }],
        ['warpPerspective', image, [1.1, 0.1, -3, 0, 0.9, 2, 0.002, 0.001, 1], { space: 'pixel', mode: 'bilinear' }],
      ];
      for (const [fn, im, m, options] of calls) {
        const whole = gs[fn](im, m, options);
        const row = whole.width * whole.channels;
        for (const [a, b] of [[0, 7], [7, 8], [8, whole.height], [5, 5]]) {
          const band = gs[fn](im, m, { ...options, rows: [a, b] });
          assert.deepEqual([band.width, band.height, band.channels], [whole.width, b - a, whole.channels], `${fn} rows ${a}..${b}`);
          assert.deepEqual(Array.from(band.data), Array.from(whole.data.subarray(a * row, b * row)), `${fn} rows ${a}..${b}`);
        }
        assert.throws(() => gs[fn](im, m, { ...options, rows: [3, 2] }),
          { name: 'RangeError', message: `${fn}: options.rows: expected [begin, end]: integers with 0 <= begin <= end <= ${whole.height} (the output's height), got [3, 2]` });
        assert.throws(() => gs[fn](im, m, { ...options, rows: [0, whole.height + 1] }), /options\.rows: expected \[begin, end\]/);
        assert.throws(() => gs[fn](im, m, { ...options, rows: [0.5, 2] }), { name: 'TypeError' });
        assert.throws(() => gs[fn](im, m, { ...options, rows: 3 }), { name: 'TypeError', message: `${fn}: options.rows: expected [begin, end]: integers with 0 <= begin <= end <= ${whole.height} (the output's height), got 3` });
      }
    });
  });

  describe(`${gs.backend} gridSampleChannelsLast equals gridSample on transposed tensors`, () => {
    test('every dtype the fast path takes and some it does not, every option', () => {
      const next = rng(3);
      for (const [Ctor, isFloat] of [[Uint8Array, false], [Float32Array, true], [Int16Array, false], [Float64Array, true]]) {
        const n = 2, h = 7, w = 5, c = Ctor === Int16Array ? 6 : 3, ho = 4, wo = 9;
        const x = new Ctor(n * h * w * c).map(() => (isFloat ? 2 * next() - 1 : Math.floor(200 * next())));
        const grid = Float32Array.from({ length: n * ho * wo * 2 }, () => 2.4 * next() - 1.2);
        grid[3] = NaN;
        grid[8] = 1;
        for (const mode of MODES) {
          for (const paddingMode of PADDINGS) {
            for (const alignCorners of [false, true]) {
              const options = { mode, paddingMode, alignCorners };
              const y = gs.gridSampleChannelsLast({ data: x, shape: [n, h, w, c] }, { data: grid, shape: [n, ho, wo, 2] }, options);
              assert.deepEqual(y.shape, [n, ho, wo, c]);
              // Reference: per batch item, planar GridSample.
              const want = new Ctor(n * ho * wo * c);
              for (let b = 0; b < n; ++b) {
                const xb = toPlanar(x.subarray(b * h * w * c, (b + 1) * h * w * c), w, h, c);
                const gb = grid.slice(b * ho * wo * 2, (b + 1) * ho * wo * 2);
                const yb = gs.gridSample({ data: xb, shape: [1, c, h, w] }, { data: gb, shape: [1, ho, wo, 2] }, options);
                want.set(toInterleaved(yb.data, wo, ho, c), b * ho * wo * c);
              }
              const atol = Ctor === Uint8Array ? allowed(false, mode) : (Ctor === Float32Array ? allowed(true, mode) : 0);
              assertWithin(y.data, want, atol, `${Ctor.name} ${JSON.stringify(options)}`);
            }
          }
        }
      }
    });
  });

  describe(`${gs.backend} warpAffine and gridSampleChannelsLast reject bad input`, () => {
    const IMG = () => ({ data: new Uint8ClampedArray(16), width: 2, height: 2 });
    const T = () => [1, 0, 0, 0, 1, 0];
    const TABLE = [
      ['image is a number', () => gs.warpAffine(5, T()), TypeError, /^warpAffine: image: expected an image \{data, width, height\} \(e\.g\. ImageData\) or a heap tensor, got 5$/],
      ['image is missing', () => gs.warpAffine(), TypeError, /^warpAffine: image: expected an image .*got undefined$/],
      ['image is a typed array', () => gs.warpAffine(new Uint8Array(16), T()), TypeError, /^warpAffine: image: expected an image .*got Uint8Array\(16\)$/],
      ['image.data is an Int16Array', () => gs.warpAffine({ data: new Int16Array(16), width: 2, height: 2 }, T()), TypeError, /^warpAffine: image\.data: expected a Uint8ClampedArray, Uint8Array or Float32Array, got Int16Array\(16\)$/],
      ['image.data is a plain array', () => gs.warpAffine({ data: [1, 2, 3, 4], width: 1, height: 1 }, T()), TypeError, /^warpAffine: image\.data: expected a Uint8ClampedArray, Uint8Array or Float32Array, got Array\(4\)$/],
      ['image.width is missing', () => gs.warpAffine({ data: new Uint8Array(16), height: 2 }, T()), TypeError, /^warpAffine: image\.width: expected a non-negative integer, got undefined$/],
      ['image.height is negative', () => gs.warpAffine({ data: new Uint8Array(16), width: 2, height: -2 }, T()), RangeError, /^warpAffine: image\.height: expected a non-negative integer, got -2$/],
      ['image.width is fractional', () => gs.warpAffine({ data: new Uint8Array(16), width: 2.5, height: 2 }, T()), RangeError, /^warpAffine: image\.width: expected a non-negative integer, got 2\.5$/],
      ['data length fits no channel count', () => gs.warpAffine({ data: new Uint8Array(15), width: 2, height: 2 }, T()), RangeError, /^warpAffine: image: data has 15 elements, which is not 1 to 4 values for each pixel of a 2x2 image$/],
      ['five channels', () => gs.warpAffine({ data: new Uint8Array(20), width: 2, height: 2, channels: 5 }, T()), RangeError, /^warpAffine: image\.channels: expected an integer from 1 to 4, got 5$/],
      ['channels disagree with the length', () => gs.warpAffine({ data: new Uint8Array(16), width: 2, height: 2, channels: 3 }, T()), RangeError, /^warpAffine: image: data has 16 elements but a 2x2 image of 3 channels needs 12$/],
      ['channels is a string', () => gs.warpAffine({ data: new Uint8Array(16), width: 2, height: 2, channels: '4' }, T()), TypeError, /^warpAffine: image\.channels: expected an integer from 1 to 4, got "4"$/],
      ['image.data detached', () => gs.warpAffine({ data: detached(new Uint8Array(16)), width: 2, height: 2 }, T()), TypeError, /^warpAffine: image\.data: the ArrayBuffer is detached/],
      ['an empty image sampled by a non-empty output', () => gs.warpAffine({ data: new Uint8Array(0), width: 0, height: 3 }, T(), { width: 2, height: 2 }), RangeError, /^warpAffine: image: it has no pixels \(0x3\) but the output 2x2 samples from it$/],
      ['theta has 5 numbers', () => gs.warpAffine(IMG(), [1, 0, 0, 0, 1]), RangeError, /^warpAffine: theta: expected 6 numbers \[a, b, c, d, e, f\] \(the 2x3 matrix, row-major\), got 5$/],
      ['theta is a string', () => gs.warpAffine(IMG(), '1,0,0,0,1,0'), TypeError, /^warpAffine: theta: expected 6 numbers \[a, b, c, d, e, f\] as an Array, Float32Array or Float64Array, got "1,0,0,0,1,0"$/],
      ['theta is an Int32Array', () => gs.warpAffine(IMG(), new Int32Array(6)), TypeError, /^warpAffine: theta: expected 6 numbers .* got Int32Array\(6\)$/],
      ['theta is a tensor object', () => gs.warpAffine(IMG(), { data: new Float32Array(6), shape: [1, 2, 3] }), TypeError, /^warpAffine: theta: expected 6 numbers .* got an object$/],
      ['theta holds a string', () => gs.warpAffine(IMG(), [1, 0, '0', 0, 1, 0]), TypeError, /^warpAffine: theta\[2\]: expected a number, got "0"$/],
      ['theta detached', () => gs.warpAffine(IMG(), detached(new Float32Array(6))), TypeError, /^warpAffine: theta: the ArrayBuffer is detached/],
      ['options is a string', () => gs.warpAffine(IMG(), T(), 'bilinear'), TypeError, /^warpAffine: options: expected an object, got "bilinear"$/],
      ['an unknown option', () => gs.warpAffine(IMG(), T(), { size: [2, 2] }), TypeError, /^warpAffine: options\.size: unknown option; expected mode, paddingMode, padding_mode, alignCorners, align_corners, width, height, out, space, inverse, fill, rows$/],
      ['an unknown mode', () => gs.warpAffine(IMG(), T(), { mode: 'area' }), RangeError, /^warpAffine: options\.mode: expected 'linear', 'bilinear', 'nearest', 'cubic' or 'bicubic', got "area"$/],
      ['an unknown padding', () => gs.warpAffine(IMG(), T(), { paddingMode: 'wrap' }), RangeError, /^warpAffine: options\.paddingMode: expected 'zeros', 'border' or 'reflection', got "wrap"$/],
      ['paddingMode and padding_mode', () => gs.warpAffine(IMG(), T(), { paddingMode: 'zeros', padding_mode: 'zeros' }), TypeError, /^warpAffine: options: give paddingMode or padding_mode, not both$/],
      ['alignCorners 2', () => gs.warpAffine(IMG(), T(), { alignCorners: 2 }), RangeError, /^warpAffine: options\.alignCorners: expected true, false, 0 or 1, got 2$/],
      ['width fractional', () => gs.warpAffine(IMG(), T(), { width: 2.5 }), RangeError, /^warpAffine: options\.width: expected a non-negative integer, got 2\.5$/],
      ['height a string', () => gs.warpAffine(IMG(), T(), { height: '2' }), TypeError, /^warpAffine: options\.height: expected a non-negative integer, got "2"$/],
      ['an output larger than the heap', () => gs.warpAffine(IMG(), T(), { width: 2 ** 16, height: 2 ** 16 }), RangeError, /^warpAffine: the output would need 17179869184 bytes \(16 GiB\): shape \[1, 65536, 65536, 4\] is 17179869184 uint8 elements; the wasm heap is limited to 2 GiB$/],
      ['out of the wrong length', () => gs.warpAffine(IMG(), T(), { out: new Uint8Array(15) }), RangeError, /^warpAffine: options\.out: expected 16 elements for a 2x2 image of 4 channels, got 15$/],
      ['out of the wrong class', () => gs.warpAffine(IMG(), T(), { out: new Float32Array(16) }), TypeError, /^warpAffine: options\.out: expected Uint8Array or Uint8ClampedArray for dtype uint8, got Float32Array\(16\)$/],
      ['out image of float data for a uint8 image', () => gs.warpAffine(IMG(), T(), { out: { data: new Float32Array(16), width: 2, height: 2 } }), TypeError, /^warpAffine: options\.out: expected uint8 data \(the image's\), got float32$/],
      ['out image whose width disagrees with options.width', () => gs.warpAffine(IMG(), T(), { width: 3, out: { data: new Uint8Array(16), width: 2, height: 2 } }), RangeError, /^warpAffine: options\.width is 3 but options\.out has width 2$/],
      ['out image of another channel count', () => gs.warpAffine(IMG(), T(), { out: { data: new Uint8Array(12), width: 2, height: 2, channels: 3 } }), RangeError, /^warpAffine: options\.out: expected 4 channels \(the image's\), got 3$/],
      ['out detached', () => gs.warpAffine(IMG(), T(), { out: detached(new Uint8Array(16)) }), TypeError, /^warpAffine: options\.out: the ArrayBuffer is detached/],
      ['a disposed heap image', () => { const t = gs.tensor('uint8', [2, 2, 4]); t.dispose(); return gs.warpAffine(t, T()); }, TypeError, /^warpAffine: image: this uint8 tensor of shape \[2, 2, 4\] was disposed$/],
      ['a heap image of rank 4', () => { const t = gs.tensor('uint8', [1, 2, 2, 4]); try { return gs.warpAffine(t, T()); } finally { t.dispose(); } }, RangeError, /^warpAffine: image: expected a heap tensor of shape \[height, width, channels\] with 1 to 4 channels, got \[1, 2, 2, 4\]$/],
      ['a float64 heap image', () => { const t = gs.tensor('float64', [2, 2, 4]); try { return gs.warpAffine(t, T()); } finally { t.dispose(); } }, TypeError, /^warpAffine: image: expected a uint8 or float32 heap tensor, got float64$/],
      ['out is the heap image itself', () => { const t = gs.tensor('uint8', [2, 2, 4]); try { return gs.warpAffine(t, T(), { out: t }); } finally { t.dispose(); } }, RangeError, /^warpAffine: options\.out: shares memory with image; give the output its own tensor$/],
      ['gridSampleChannelsLast: x of rank 3', () => gs.gridSampleChannelsLast({ data: new Float32Array(16), shape: [4, 2, 2] }, { data: new Float32Array(8), shape: [1, 2, 2, 2] }), RangeError, /^gridSampleChannelsLast: X: expected rank 4 \(N, H, W, C\), got rank 3 shape \[4, 2, 2\]$/],
      ['gridSampleChannelsLast: grid with 3 coordinates', () => gs.gridSampleChannelsLast({ data: new Float32Array(16), shape: [1, 2, 2, 4] }, { data: new Float32Array(12), shape: [1, 2, 2, 3] }), RangeError, /^gridSampleChannelsLast: grid: expected shape \[N, Ho, Wo, 2\] \(rank 4\), got \[1, 2, 2, 3\]$/],
      ['gridSampleChannelsLast: grid batch differs', () => gs.gridSampleChannelsLast({ data: new Float32Array(16), shape: [1, 2, 2, 4] }, { data: new Float32Array(16), shape: [2, 2, 2, 2] }), RangeError, /^gridSampleChannelsLast: grid: expected batch size N = 1 \(X's\), got shape \[2, 2, 2, 2\]$/],
      ['gridSampleChannelsLast: an int grid', () => gs.gridSampleChannelsLast({ data: new Float32Array(16), shape: [1, 2, 2, 4] }, { data: new Int32Array(8), shape: [1, 2, 2, 2] }), TypeError, /^gridSampleChannelsLast: grid: expected dtype float32, float64, float16 or bfloat16, got int32$/],
      ['gridSampleChannelsLast: empty x sampled (library error)', () => gs.gridSampleChannelsLast({ data: new Float32Array(0), shape: [1, 0, 2, 4] }, { data: new Float32Array(8), shape: [1, 2, 2, 2] }), RangeError, /^gridSampleChannelsLast: X: a dimension is 0 in shape \[1, 0, 2, 4\] but the output \[1, 2, 2, 4\] asks for samples from it$/],
    ];
    // Warm up: the first calls may allocate lasting runtime state (embind caches).
    gs.warpAffine(IMG(), T());
    gs.gridSampleChannelsLast({ data: new Float32Array(16), shape: [1, 2, 2, 4] }, { data: new Float32Array(8), shape: [1, 2, 2, 2] });
    for (const [what, call, type, pattern] of TABLE) {
      test(what, () => {
        const before = gs.heapUsed();
        assert.throws(call, (e) => {
          assert.ok(e instanceof type, `expected ${type.name}, got ${e && e.name}: ${e && e.message}`);
          assert.match(e.message, pattern);
          return true;
        });
        assert.equal(gs.heapUsed(), before, 'heap bytes in use after the error');
        // The module is still fully usable.
        const image = { data: Uint8ClampedArray.from({ length: 16 }, (_, i) => 16 * i), width: 2, height: 2 };
        assert.deepEqual(gs.warpAffine(image, [-1, 0, 0, 0, 1, 0], { alignCorners: true }).data,
          Uint8ClampedArray.from([64, 80, 96, 112, 0, 16, 32, 48, 192, 208, 224, 240, 128, 144, 160, 176]));
        assert.equal(gs.heapUsed(), before, 'heap bytes in use after the next call');
      });
    }
  });
}

describe('js/README.md', () => {
  test('the warpAffine example runs as written on a 64x48 canvas and turns a disk without stretching it', async () => {
    const readme = readFileSync(join(HERE, '..', '..', 'js', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Images: `warpAffine`'));
    const start = section.indexOf('```js\n') + 6;
    const code = section.slice(start, section.indexOf('\n```', start));
    assert.match(code, /turned 30° counter-clockwise, 1\.25x larger/);
    // The page around the example: a 64x48 canvas holding a disk of radius 12 at its centre.
    const source = diskImage(64, 48, 31.5, 23.5, 12);
    const drawn = [];
    const ctx = {
      getImageData: (x, y, width, height) => ({ width, height, data: source.data.slice() }),
      putImageData: (image) => drawn.push(image),
    };
    const canvas = { width: 64, height: 48, getContext: () => ctx };
    class ImageData {
      constructor(a, b, c) {
        [this.data, this.width, this.height] = typeof a === 'number' ? [new Uint8ClampedArray(4 * a * b), a, b] : [a, b, c];
      }
    }
    new Function('gs', 'canvas', 'ctx', 'ImageData', code)(await load(), canvas, ctx, ImageData);
    assert.equal(drawn.length, 1, 'the example draws one picture');
    const m = moments(drawn[0]);
    const s = moments(source);
    // Turned about the centre and 1.25x larger: still round, same centre, 1.5625x the area.
    assert.ok(Math.abs(m.ratio - 1) < 0.01, `axis ratio ${m.ratio}`);
    assert.ok(Math.abs(m.cx - 31.5) < 0.02 && Math.abs(m.cy - 23.5) < 0.02, `centroid (${m.cx}, ${m.cy})`);
    assert.ok(Math.abs(m.mass / s.mass - 1.5625) < 0.01, `area ${m.mass} of ${s.mass}`);
  });
});

describe('TypeScript declarations', () => {
  test('warpAffine and gridSampleChannelsLast type-check (and misuse does not)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gridsample-warp-ts-'));
    try {
      const pkg = join(HERE, '..', '..', 'js', 'index.js');
      writeFileSync(join(dir, 'use.mts'), `import { load, type Image, type HeapTensor, type Tensor } from ${JSON.stringify(pkg)};
const gs = await load();
declare const imageData: { data: Uint8ClampedArray; width: number; height: number; colorSpace: string };
const y: Image<Uint8ClampedArray> = gs.warpAffine(imageData, [1, 0, 0, 0, 1, 0], { mode: 'bicubic', paddingMode: 'border', alignCorners: true, width: 10, height: 5 });
const clamped: Uint8ClampedArray = y.data;
const f: Image<Float32Array> = gs.warpAffine({ data: new Float32Array(4), width: 2, height: 2, channels: 1 }, Float32Array.from([1, 0, 0, 0, 1, 0]));
const heap: HeapTensor<'uint8'> = gs.tensor('uint8', [2, 2, 4]);
const z = gs.warpAffine(heap, new Float64Array(6), { out: gs.tensor('uint8', [2, 2, 4]) });
const bytes: Uint8Array | Uint8ClampedArray = z.data;
gs.warpAffine(imageData, [1, 0, 0, 0, 1, 0], { out: imageData });
const t: Tensor<'uint8'> = gs.gridSampleChannelsLast({ data: new Uint8Array(16), shape: [1, 2, 2, 4] }, { data: new Float32Array(8), shape: [1, 2, 2, 2] }, { padding_mode: 'reflection' });
console.log(clamped, f, bytes, t, y.channels);
// @ts-expect-error: not an ONNX mode
gs.warpAffine(imageData, [1, 0, 0, 0, 1, 0], { mode: 'area' });
// @ts-expect-error: theta is numbers, not a tensor object
gs.warpAffine(imageData, { data: new Float32Array(6), shape: [1, 2, 3] });
// @ts-expect-error: Int16 pixels are not an image
gs.warpAffine({ data: new Int16Array(4), width: 2, height: 2 }, [1, 0, 0, 0, 1, 0]);
// @ts-expect-error: a float32 image gives float32 pixels
const wrong: Image<Uint8ClampedArray> = gs.warpAffine({ data: new Float32Array(4), width: 2, height: 2 }, [1, 0, 0, 0, 1, 0]);
console.log(wrong);
`);
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
        compilerOptions: {
          strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022',
          lib: ['es2022', 'dom'], noEmit: true, skipLibCheck: false, types: [],
        },
        files: ['use.mts'],
      }));
      const tsc = join(HERE, 'node_modules', '.bin', 'tsc');
      try {
        await promisify(execFile)(tsc, ['-p', dir], { encoding: 'utf8' });
      } catch (e) {
        assert.fail(`tsc failed:\n${e.stdout}\n${e.stderr}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
