// Pixel-space warps checked without OpenCV: hand-solved homographies and measured shapes, warpPerspective against gridSample on its grid, hostile input, js/README.md's example, and warpFlow (NCHW and images) against gridSample and remap.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';

import { load, simdSupported } from '../../js/node.mjs';
import { diskImage, moments } from './lib/disk.mjs';
import { normalised } from './lib/pixel_grid.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const variants = ['simd', 'scalar'].filter((v) => v === 'scalar' || simdSupported());

describe('pixel space: hand-solved maps and measured shapes', () => {
  test('perspectiveTransform solves hand-solved homographies', async () => {
    const gs = await load();
    const square = [[0, 0], [1, 0], [1, 1], [0, 1]];
    // (x, y) -> (2x, 2y) / (x + 1): (0,0), (1,0), (1,1), (0,2).
    const cases = [
      [[[0, 0], [1, 0], [1, 1], [0, 2]], [2, 0, 0, 0, 2, 0, 1, 0, 1]],
      [[[3, -2], [5, -2], [5, 0], [3, 0]], [2, 0, 3, 0, 2, -2, 0, 0, 1]], // scale 2, then shift
    ];
    for (const [dst, want] of cases) {
      const got = gs.perspectiveTransform(square, dst);
      for (let k = 0; k < 9; ++k) assert.ok(Math.abs(got[k] - want[k]) <= 1e-12, `${JSON.stringify(dst)}: entry ${k}: ${got[k]} vs ${want[k]}`);
    }
  });

  test('a quad whose corners are pixel centres lands exactly on the output corners (nearest)', async () => {
    const gs = await load();
    const width = 40;
    const height = 30;
    const data = new Uint8ClampedArray(width * height).map((_, i) => (i * 37) % 251);
    const image = { data, width, height, channels: 1 };
    const quad = [[5, 3], [33, 6], [36, 27], [2, 22]];
    const [ow, oh] = [25, 17];
    const h = gs.perspectiveTransform(quad, [[0, 0], [ow - 1, 0], [ow - 1, oh - 1], [0, oh - 1]]);
    const y = gs.warpPerspective(image, h, { space: 'pixel', width: ow, height: oh, mode: 'nearest' });
    const corners = [[0, 0], [ow - 1, 0], [ow - 1, oh - 1], [0, oh - 1]];
    corners.forEach(([x, yy], k) => {
      assert.equal(y.data[yy * ow + x], data[quad[k][1] * width + quad[k][0]], `corner ${k}`);
    });
  });

  test('a rotation of a non-square picture keeps a disk round (pixel space), where a normalised theta stretches it', async () => {
    const gs = await load();
    const [width, height] = [160, 96];
    const image = diskImage(width, height, 80, 48, 30);
    const before = moments(image);
    const m = gs.rotationMatrix([(width - 1) / 2, (height - 1) / 2], 35, 1);
    const after = moments(gs.warpAffine(image, m, { space: 'pixel', paddingMode: 'border' }));
    assert.ok(Math.abs(before.ratio - 1) < 0.01, `before: ${before.ratio}`);
    assert.ok(Math.abs(after.ratio - 1) < 0.01, `after: ${after.ratio}`);
    const a = (35 * Math.PI) / 180;
    const stretched = moments(gs.warpAffine(image, [Math.cos(a), Math.sin(a), 0, -Math.sin(a), Math.cos(a), 0], { paddingMode: 'border' }));
    assert.ok(stretched.ratio > 1.2, `a normalised rotation of ${width}x${height}: ratio ${stretched.ratio}`);
  });

  for (const variant of variants) {
    test(`${variant}: warpPerspective is gridSample on the grid of its map, every mode, padding and alignCorners`, async () => {
      const gs = await load({ variant });
      const [width, height, ow, oh] = [23, 17, 19, 13];
      const data = Float32Array.from({ length: width * height * 3 }, (_, i) => Math.sin(i * 0.37) * 2);
      const image = { data, width, height, channels: 3 };
      // A normalised homography with a horizon inside the output (w changes sign).
      const h = [0.9, 0.15, 0.05, -0.1, 1.1, 0.02, 0.6, 0.1, 0.53]; // no pixel exactly on the horizon
      for (const alignCorners of [false, true]) {
        // Its grid in double: AffineGrid's base coordinates through h.
        const base = (i, n) => (n === 1 ? 0 : alignCorners ? (2 * i) / (n - 1) - 1 : (2 * i + 1) / n - 1);
        const grid = new Float32Array(oh * ow * 2);
        const allowed = new Float64Array(oh * ow); // per output pixel, see below
        for (let i = 0; i < oh; ++i) {
          for (let j = 0; j < ow; ++j) {
            const [x, y] = [base(j, ow), base(i, oh)];
            const w = h[6] * x + h[7] * y + h[8];
            const k = 2 * (i * ow + j);
            grid[k] = w > 0 ? (h[0] * x + h[1] * y + h[2]) / w : NaN;
            grid[k + 1] = w > 0 ? (h[3] * x + h[4] * y + h[5]) / w : NaN;
            // The kernel's coordinates are float32 quotients: a few float32 roundings of terms
            // of magnitude up to |g| + 2, divided by w, in pixels (half the side per unit).
            // The data changes by up to 2.3 per pixel.
            const err = (g, side) => (8 * 2 ** -24 * (Math.abs(g) + 2) / w) * (side / 2);
            allowed[i * ow + j] = w > 0 ? 2.3 * 2 * (err(grid[k], width) + err(grid[k + 1], height)) + 1e-5 : 0;
          }
        }
        for (const mode of ['bilinear', 'nearest', 'bicubic']) {
          for (const paddingMode of ['zeros', 'border', 'reflection']) {
            const options = { mode, paddingMode, alignCorners };
            const planar = { data: new Float32Array(data.length), shape: [1, 3, height, width] };
            for (let p = 0; p < width * height; ++p) for (let c = 0; c < 3; ++c) planar.data[c * width * height + p] = data[p * 3 + c];
            const want = gs.gridSample(planar, { data: grid, shape: [1, oh, ow, 2] }, options).data;
            const got = gs.warpPerspective(image, h, { ...options, width: ow, height: oh }).data;
            // (Nearest could pick the other pixel at an exact tie, which this map's entries
            // do not make.)
            for (let p = 0; p < ow * oh; ++p) {
              for (let c = 0; c < 3; ++c) {
                const g = got[p * 3 + c];
                const wv = want[c * ow * oh + p];
                assert.ok(Math.abs(g - wv) <= allowed[p], `${JSON.stringify(options)} pixel ${p} channel ${c}: ${g} vs ${wv} (allowed ${allowed[p]})`);
              }
            }
          }
        }
      }
    });
  }
});

describe('pixel space: hostile input', () => {
  const IMG = () => ({ data: new Uint8ClampedArray(4 * 6 * 5), width: 6, height: 5 });
  const MAP = () => ({ data: new Float32Array(6).fill(1.5), width: 3, height: 2 });
  const cases = [
    ['space unknown', (gs) => gs.warpAffine(IMG(), [1, 0, 0, 0, 1, 0], { space: 'pixels' }), RangeError, /^warpAffine: options\.space: expected 'normalized' or 'pixel', got "pixels"$/],
    ['inverse not a boolean', (gs) => gs.warpAffine(IMG(), [1, 0, 0, 0, 1, 0], { space: 'pixel', inverse: 1 }), TypeError, /^warpAffine: options\.inverse: expected a boolean, got 1$/],
    ['inverse in normalised space', (gs) => gs.warpPerspective(IMG(), [1, 0, 0, 0, 1, 0, 0, 0, 1], { inverse: false }), RangeError, /^warpPerspective: options\.inverse applies to space 'pixel' only/],
    ['alignCorners in pixel space', (gs) => gs.warpAffine(IMG(), [1, 0, 0, 0, 1, 0], { space: 'pixel', alignCorners: true }), RangeError, /^warpAffine: options\.alignCorners does not apply to space 'pixel'/],
    ['singular affine matrix', (gs) => gs.warpAffine(IMG(), [1, 2, 0, 2, 4, 0], { space: 'pixel' }), RangeError, /^warpAffine: matrix: it is singular \(determinant 0\), so it cannot be inverted; give the output-to-input map with inverse: true$/],
    ['NaN in a matrix to invert', (gs) => gs.warpAffine(IMG(), [1, 0, NaN, 0, 1, 0], { space: 'pixel' }), RangeError, /^warpAffine: matrix\[2\]: expected a finite number to invert the matrix, got NaN \(with inverse: true a non-finite entry gives transparent pixels where it reaches\)$/],
    ['inverse beyond double\'s range', (gs) => gs.warpAffine(IMG(), [1e-310, 0, 0, 0, 1, 0], { space: 'pixel' }), RangeError, /^warpAffine: matrix: its inverse has entries beyond double's range \(about 1\.8e308\): it is too nearly singular to invert; give the output-to-input map with inverse: true$/],
    ['singular homography', (gs) => gs.warpPerspective(IMG(), [1, 0, 0, 0, 1, 0, 1, 0, 0], { space: 'pixel' }), RangeError, /^warpPerspective: h: it is singular \(determinant 0\), so it cannot be inverted; give the output-to-input map with inverse: true$/],
    ['homography of 6 numbers', (gs) => gs.warpPerspective(IMG(), [1, 0, 0, 0, 1, 0]), RangeError, /^warpPerspective: h: expected 9 numbers \[h0, h1, \.\.\., h8\] \(the 3x3 matrix, row-major\), got 6$/],
    ['homography as a string', (gs) => gs.warpPerspective(IMG(), 'identity'), TypeError, /^warpPerspective: h: expected 9 numbers .* as an Array, Float32Array or Float64Array, got "identity"$/],
    ['homography with a BigInt', (gs) => gs.warpPerspective(IMG(), [1, 0, 0, 0, 1, 0, 0, 0, 1n]), TypeError, /^warpPerspective: h\[8\]: expected a number, got 1n$/],
    ['huge output', (gs) => gs.warpPerspective(IMG(), [1, 0, 0, 0, 1, 0, 0, 0, 1], { width: 1e6, height: 1e6 }), RangeError, /^warpPerspective: /],
    ['rotationMatrix centre of 3 numbers', (gs) => gs.rotationMatrix([1, 2, 3], 10), RangeError, /^rotationMatrix: center: expected a point \[x, y\] of 2 numbers, got 3$/],
    ['rotationMatrix angle NaN', (gs) => gs.rotationMatrix([1, 2], NaN), RangeError, /^rotationMatrix: angleDeg: expected a finite number, got NaN$/],
    ['rotationMatrix scale a string', (gs) => gs.rotationMatrix([1, 2], 10, '2'), TypeError, /^rotationMatrix: scale: expected a number, got "2"$/],
    ['rotationMatrix beyond double\'s range', (gs) => gs.rotationMatrix([3, 4], 30, 1e308), RangeError, /^rotationMatrix: scale: 1e\+308 about center \[3, 4\] gives entry 2 of the matrix beyond double's range/],
    ['quad of 3 points', (gs) => gs.perspectiveTransform([[0, 0], [1, 0], [1, 1]], [[0, 0], [1, 0], [1, 1], [0, 1]]), RangeError, /^perspectiveTransform: src: expected 4 points \[\[x, y\], x4\], got 3$/],
    ['quad with collinear points', (gs) => gs.perspectiveTransform([[0, 0], [1, 0], [1, 1], [0, 1]], [[0, 0], [1, 1], [2, 2], [0, 1]]), RangeError, /^perspectiveTransform: dst: points 0, 1 and 2 lie on one line/],
    ['quad with a repeated point', (gs) => gs.perspectiveTransform([[0, 0], [0, 0], [1, 1], [0, 1]], [[0, 0], [1, 0], [1, 1], [0, 1]]), RangeError, /^perspectiveTransform: src: points 0, 1 and 2 lie on one line/],
    ['quad with Infinity', (gs) => gs.perspectiveTransform([[0, 0], [1, 0], [1, Infinity], [0, 1]], [[0, 0], [1, 0], [1, 1], [0, 1]]), RangeError, /^perspectiveTransform: src\[2\]\[1\]: expected a finite number, got Infinity$/],
    ['quad not an array', (gs) => gs.perspectiveTransform('square', [[0, 0], [1, 0], [1, 1], [0, 1]]), TypeError, /^perspectiveTransform: src: expected 4 points/],
    ['remap map of bytes', (gs) => gs.remap(IMG(), { data: new Uint8Array(6), width: 3, height: 2 }, MAP()), TypeError, /^remap: mapX: expected float32 pixel coordinates .*, got uint8 data$/],
    ['remap planes of different sizes', (gs) => gs.remap(IMG(), MAP(), { data: new Float32Array(6), width: 2, height: 3 }), RangeError, /^remap: mapY: expected mapX's size 3x2, got 2x3$/],
    ['remap one plane without mapY', (gs) => gs.remap(IMG(), MAP()), RangeError, /^remap: mapX: data has 6 elements but a 3x2 map of 2 value\(s\) per pixel needs 12 \(an interleaved \(x, y\) map, as mapY is not given\)$/],
    ['remap interleaved map with mapY', (gs) => gs.remap(IMG(), { data: new Float32Array(12), width: 3, height: 2 }, MAP()), RangeError, /^remap: mapX: data has 12 elements but a 3x2 map of 1 value\(s\) per pixel needs 6/],
    ['remap map not an object', (gs) => gs.remap(IMG(), new Float32Array(6), MAP()), TypeError, /^remap: mapX: expected a map \{data: Float32Array, width, height\} or a float32 heap tensor, got Float32Array\(6\)$/],
    ['remap map of a float64 heap tensor', (gs) => gs.remap(IMG(), gs.tensor('float64', [2, 3, 1]), MAP()), TypeError, /^remap: mapX: expected a uint8 or float32 heap tensor, got float64$/],
    ['remap out of another size', (gs) => gs.remap(IMG(), MAP(), MAP(), { out: { data: new Uint8ClampedArray(16), width: 2, height: 2 } }), RangeError, /^remap: options\.out: expected the maps' size 3x2, got 2x2$/],
    ['remap with alignCorners', (gs) => gs.remap(IMG(), MAP(), MAP(), { alignCorners: false }), TypeError, /^remap: options\.alignCorners: unknown option; expected mode, paddingMode, padding_mode, out, fill$/],
    ['remap with a width', (gs) => gs.remap(IMG(), MAP(), MAP(), { width: 3 }), TypeError, /^remap: options\.width: unknown option/],
    ['fill with border padding', (gs) => gs.warpAffine(IMG(), [1, 0, 0, 0, 1, 0], { paddingMode: 'border', fill: 255 }), RangeError, /^warpAffine: fill: applies to zeros padding only, got padding border$/],
    ['fill NaN', (gs) => gs.warpPerspective(IMG(), [1, 0, 0, 0, 1, 0, 0, 0, 1], { fill: [0, NaN, 0, 0] }), RangeError, /^warpPerspective: fill: expected finite values within float32's range, got NaN for channel 1$/],
    ['fill beyond float32', (gs) => gs.remap(IMG(), MAP(), MAP(), { fill: 1e39 }), RangeError, /^remap: fill: expected finite values within float32's range, got a value beyond 3\.4e38 for channel 0$/],
    ['fill of 3 numbers for 4 channels', (gs) => gs.remap(IMG(), MAP(), MAP(), { fill: [1, 2, 3] }), RangeError, /^remap: options\.fill: expected a number or 4 numbers \(one per channel of the image\), got 3 numbers$/],
    ['fill a string', (gs) => gs.warpAffine(IMG(), [1, 0, 0, 0, 1, 0], { fill: 'white' }), TypeError, /^warpAffine: options\.fill: expected a number or 4 numbers \(one per channel of the image\), got "white"$/],
    ['fill with a BigInt', (gs) => gs.warpAffine(IMG(), [1, 0, 0, 0, 1, 0], { fill: [1, 2, 3, 4n] }), TypeError, /^warpAffine: options\.fill: expected a number or 4 numbers/],
    ['remap of a huge map', (gs) => gs.remap(IMG(), { data: new Float32Array(4), width: 2 ** 26, height: 2 ** 26 }, MAP()), RangeError, /^remap: mapX would need 18014398509481984 bytes \(16 PiB\)/],
  ];
  for (const variant of variants) {
    test(`${variant}: each a specific error, the module usable afterwards`, async () => {
      const gs = await load({ variant });
      for (const [name, call, type, message] of cases) {
        assert.throws(() => call(gs), (e) => e instanceof type && message.test(e.message), name);
        const y = gs.warpPerspective(IMG(), [1, 0, 1, 0, 1, 0, 0, 0, 1], { space: 'pixel', inverse: true, mode: 'nearest' });
        assert.equal(y.width, 6, `after ${name}`);
      }
    });
  }

  test('1x1 images, points behind the camera and non-finite maps give their documented values', async () => {
    const gs = await load();
    const one = { data: Uint8ClampedArray.from([10, 20, 30, 255]), width: 1, height: 1 };
    for (const paddingMode of ['zeros', 'border', 'reflection']) {
      const y = gs.warpPerspective(one, [1, 0, 0, 0, 1, 0, 0, 0, 1], { space: 'pixel', width: 3, height: 2, mode: 'bicubic', paddingMode });
      assert.equal(y.data.length, 3 * 2 * 4);
    }
    const image = { data: new Float32Array(8 * 6).fill(7), width: 8, height: 6, channels: 1 };
    // w = -1 everywhere: every point behind the camera samples 0 (in every padding).
    for (const paddingMode of ['zeros', 'border', 'reflection']) {
      const y = gs.warpPerspective(image, [1, 0, 0, 0, 1, 0, 0, 0, -1], { space: 'pixel', inverse: true, paddingMode });
      assert.ok(y.data.every((v) => v === 0), paddingMode);
    }
    // remap of a 1x1 picture (every padding and mode) and non-finite map values: 0 there.
    for (const paddingMode of ['zeros', 'border', 'reflection']) {
      for (const mode of ['bilinear', 'nearest', 'bicubic']) {
        const y = gs.remap(one, { data: Float32Array.from([0.3, NaN]), width: 2, height: 1 }, { data: Float32Array.from([-0.2, Infinity]), width: 2, height: 1 }, { mode, paddingMode });
        assert.deepEqual([...y.data.subarray(4)], [0, 0, 0, 0], `${mode} ${paddingMode}: the non-finite pixel`);
        if (paddingMode !== 'zeros') assert.deepEqual([...y.data.subarray(0, 4)], [10, 20, 30, 255], `${mode} ${paddingMode}`);
      }
    }
    // A NaN entry with inverse: true: transparent pixels, as a non-finite theta gives.
    const nan = gs.warpPerspective(image, [1, 0, NaN, 0, 1, 0, 0, 0, 1], { space: 'pixel', inverse: true, paddingMode: 'border' });
    assert.ok(nan.data.every((v) => v === 0));
  });
});

describe('js/README.md', () => {
  test('the pixel-space example runs as written: the disk stays round, the page comes out 600x800', async () => {
    const readme = readFileSync(join(HERE, '..', '..', 'js', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Pixel space'));
    const start = section.indexOf('```js\n') + 6;
    const code = section.slice(start, section.indexOf('\n```', start));
    assert.match(code, /gs\.rotationMatrix/);
    const image = diskImage(96, 64, 47.5, 31.5, 14);
    const { turned, flat } = new Function('gs', 'image', `${code}\nreturn { turned, flat };`)(await load(), image);
    const m = moments(turned);
    assert.ok(Math.abs(m.ratio - 1) < 0.01, `axis ratio ${m.ratio}`);
    assert.ok(Math.abs(m.cx - 47.5) < 0.05 && Math.abs(m.cy - 31.5) < 0.05, `centroid (${m.cx}, ${m.cy})`);
    assert.deepEqual([flat.width, flat.height, flat.data.length], [600, 800, 4 * 600 * 800]);
  });
});

describe('warpFlow (NCHW, flows in pixels)', () => {
  for (const variant of variants) {
    test(`${variant}: warpFlow is gridSample on the normalised grid of p + flow(p), every mode and padding; bad flows are specific errors`, async () => {
      const gs = await load({ variant });
      const [N, C, H, W, Ho, Wo] = [2, 3, 9, 13, 7, 11];
      const x = { data: Float32Array.from({ length: N * C * H * W }, (_, i) => Math.sin(i * 0.31) * 2), shape: [N, C, H, W] };
      const flow = { data: Float32Array.from({ length: N * 2 * Ho * Wo }, (_, i) => 3 * Math.sin(i * 0.7) + (i % 5 === 0 ? 0.5 : 0)), shape: [N, 2, Ho, Wo] };
      flow.data[3] = NaN;
      flow.data[17] = 1e30;
      for (const alignCorners of [false, true]) {
        for (const mode of ['bilinear', 'nearest', 'bicubic']) {
          for (const paddingMode of ['zeros', 'border', 'reflection']) {
            // The positions as the library sums them (in float32), normalised.
            const norm = (u, size) => normalised(Math.fround(u), size, paddingMode, alignCorners);
            const grid = new Float32Array(N * Ho * Wo * 2);
            for (let n = 0; n < N; ++n) {
              for (let p = 0; p < Ho * Wo; ++p) {
                const [i, j] = [Math.floor(p / Wo), p % Wo];
                grid[2 * (n * Ho * Wo + p)] = norm(j + flow.data[(2 * n) * Ho * Wo + p], W);
                grid[2 * (n * Ho * Wo + p) + 1] = norm(i + flow.data[(2 * n + 1) * Ho * Wo + p], H);
              }
            }
            const options = { mode, paddingMode, alignCorners };
            const want = gs.gridSample(x, { data: grid, shape: [N, Ho, Wo, 2] }, options).data;
            const got = gs.warpFlow(x, flow, options);
            assert.deepEqual(got.shape, [N, C, Ho, Wo]);
            for (let k = 0; k < want.length; ++k) {
              assert.ok(Math.abs(got.data[k] - want[k]) <= 1e-4, `${JSON.stringify(options)} value ${k}: ${got.data[k]} vs ${want[k]}`);
            }
          }
        }
      }
      const bad = [
        [() => gs.warpFlow(x, { data: new Float64Array(N * 2 * 4), shape: [N, 2, 2, 2] }), TypeError, /^warpFlow: flow: expected dtype float32 \(displacements in pixels\), got float64$/],
        [() => gs.warpFlow(x, { data: new Float32Array(N * 3 * 4), shape: [N, 3, 2, 2] }), RangeError, /^warpFlow: flow: expected shape \[2, 2, Ho, Wo\] \(dx and dy for X of shape \[2, 3, 9, 13\]\), got \[2, 3, 2, 2\]$/],
        [() => gs.warpFlow(x, { data: new Float32Array(8), shape: [1, 2, 2, 2] }), RangeError, /got \[1, 2, 2, 2\]$/],
        [() => gs.warpFlow({ data: new Float32Array(8), shape: [2, 4] }, flow), RangeError, /^warpFlow: X: expected rank 4 \(N, C, H, W\), got rank 2 shape \[2, 4\]$/],
        [() => gs.warpFlow(x, flow, { out: new Float32Array(3) }), RangeError, /^warpFlow: options\.out/],
        [() => gs.warpFlow(x, flow, { space: 'pixel' }), TypeError, /^warpFlow: options\.space: unknown option/],
        [() => gs.warpFlow(x, new Float32Array(8)), TypeError, /^warpFlow: flow: expected a tensor/],
      ];
      for (const [call, type, message] of bad) {
        assert.throws(call, (e) => e instanceof type && message.test(e.message), String(message));
        assert.equal(gs.warpFlow(x, flow).data.length, N * C * Ho * Wo);
      }
    });
  }
});

describe('warpFlow on images (interleaved, flows in pixels)', () => {
  for (const variant of variants) {
    test(`${variant}: warpFlow(image) is remap on the map p + flow(p) and warpFlow on the NCHW image; bad flows are specific errors`, async () => {
      const gs = await load({ variant });
      const [W, H, Wo, Ho] = [13, 9, 11, 7];
      // Planar [1, 2, Ho, Wo] (RAFT's) and interleaved {data, width, height} copies of one flow.
      const planar = Float32Array.from({ length: 2 * Ho * Wo }, (_, i) => 3 * Math.sin(i * 0.7) + (i % 5 === 0 ? 0.5 : 0));
      planar[3] = NaN;
      planar[17] = 1e30;
      const interleaved = new Float32Array(2 * Ho * Wo);
      const [mapX, mapY] = [new Float32Array(Ho * Wo), new Float32Array(Ho * Wo)];
      for (let p = 0; p < Ho * Wo; ++p) {
        [interleaved[2 * p], interleaved[2 * p + 1]] = [planar[p], planar[Ho * Wo + p]];
        mapX[p] = Math.fround((p % Wo) + planar[p]); // the sum in float32, as the library makes it
        mapY[p] = Math.fround(Math.floor(p / Wo) + planar[Ho * Wo + p]);
      }
      const flows = { planar: { data: planar, shape: [1, 2, Ho, Wo] }, interleaved: { data: interleaved, width: Wo, height: Ho } };
      for (const [kind, data] of [['uint8', Uint8ClampedArray.from({ length: W * H * 3 }, (_, i) => (i * 37) % 256)],
        ['float32', Float32Array.from({ length: W * H * 3 }, (_, i) => Math.sin(i * 0.31) * 2)]]) {
        const image = { data, width: W, height: H, channels: 3 };
        const nchw = { data: new data.constructor(3 * W * H), shape: [1, 3, H, W] };
        for (let p = 0; p < W * H; ++p) for (let c = 0; c < 3; ++c) nchw.data[c * W * H + p] = data[3 * p + c];
        for (const mode of ['bilinear', 'nearest', 'bicubic']) {
          for (const paddingMode of ['zeros', 'border', 'reflection']) {
            for (const fill of paddingMode === 'zeros' ? [undefined, [9, 99, 199]] : [undefined]) {
              const options = { mode, paddingMode, fill };
              const what = `${kind} ${JSON.stringify(options)}`;
              const want = gs.remap(image, { data: mapX, width: Wo, height: Ho }, { data: mapY, width: Wo, height: Ho }, options);
              for (const [name, flow] of Object.entries(flows)) {
                const got = gs.warpFlow(image, flow, options);
                assert.deepEqual([got.width, got.height, got.channels], [Wo, Ho, 3], `${what} ${name}`);
                assert.deepEqual(got.data, want.data, `${what} ${name}: as remap on p + flow(p)`);
              }
              if (fill) continue;
              // The NCHW path: its own planner and blend (uint8 bilinear: the fixed-point blend, 1 level).
              const tensor = gs.warpFlow(nchw, flows.planar, { mode, paddingMode }).data;
              const tolerance = kind === 'uint8' ? 1 : 2e-5;
              for (let p = 0; p < Wo * Ho; ++p) {
                for (let c = 0; c < 3; ++c) {
                  const [a, b] = [want.data[3 * p + c], tensor[c * Wo * Ho + p]];
                  assert.ok(Math.abs(a - b) <= tolerance, `${what} pixel ${p} channel ${c}: image ${a}, NCHW ${b}`);
                }
              }
            }
          }
        }
      }
      const image = { data: new Uint8ClampedArray(W * H * 4), width: W, height: H };
      const heapFlow = gs.tensorFrom({ data: interleaved, shape: [Ho, Wo, 2] });
      assert.deepEqual(gs.warpFlow(image, heapFlow).data, gs.warpFlow(image, flows.interleaved).data, 'a heap tensor [h, w, 2] flow');
      heapFlow.dispose();
      const bad = [
        [() => gs.warpFlow(image, { data: new Float32Array(8), shape: [2, 2, 1, 2] }), RangeError, /^warpFlow: flow: expected shape \[1, 2, Ho, Wo\] \(dx then dy\) for an image, or an interleaved \{data, width, height\} flow, got \[2, 2, 1, 2\]$/],
        [() => gs.warpFlow(image, { data: new Float64Array(8), shape: [1, 2, 2, 2] }), TypeError, /^warpFlow: flow: expected dtype float32/],
        [() => gs.warpFlow(image, { data: new Uint8Array(8), width: 2, height: 2 }), TypeError, /^warpFlow: flow: expected float32 pixel offsets/],
        [() => gs.warpFlow(image, { data: new Float32Array(4), width: 2, height: 2 }), RangeError, /^warpFlow: flow: data has 4 elements but a 2x2 flow of 2 value\(s\) per pixel needs 8 \(an interleaved \(dx, dy\) flow\)$/],
        [() => gs.warpFlow(image, flows.interleaved, { alignCorners: true }), TypeError, /^warpFlow: options\.alignCorners: unknown option; expected mode, paddingMode, padding_mode, out, fill$/],
        [() => gs.warpFlow(image, flows.interleaved, { fill: [1, 2] }), RangeError, /^warpFlow: options\.fill: expected a number or 4 numbers/],
        [() => gs.warpFlow(image, flows.interleaved, { out: { data: new Uint8ClampedArray(16), width: 2, height: 2 } }), RangeError, /^warpFlow: options\.out: expected the flow's size 11x7, got 2x2$/],
      ];
      for (const [call, type, message] of bad) {
        assert.throws(call, (e) => e instanceof type && message.test(e.message), String(message));
        assert.equal(gs.warpFlow(image, flows.planar, { fill: 255 }).data.length, Wo * Ho * 4);
      }
    });
  }
});
