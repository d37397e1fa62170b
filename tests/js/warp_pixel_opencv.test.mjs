// Pixel-space warps (warpAffine and warpPerspective with space 'pixel', remap), rotationMatrix and perspectiveTransform against OpenCV.js within its 1/32-pixel quantisation, in both wasm variants; remap against gridSample on its grid; fill as OpenCV's border value.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';

import { load, simdSupported } from '../../js/node.mjs';
import { normalised } from './lib/pixel_grid.mjs';

const require = createRequire(import.meta.url);
const variants = ['simd', 'scalar'].filter((v) => v === 'scalar' || simdSupported());

// The module is a thenable (Emscripten's Module.then) that resolves to itself: it must not be
// awaited or returned from an async function, hence the wrapper object.
async function loadOpenCv() {
  const cv = require('@techstark/opencv-js');
  if (!cv.Mat) await new Promise((resolve) => { cv.onRuntimeInitialized = resolve; });
  return { cv };
}
const { cv } = await loadOpenCv();

// OpenCV's names of our modes and paddings (DESIGN.md section 9).
const CV_MODE = { bilinear: cv.INTER_LINEAR, nearest: cv.INTER_NEAREST, bicubic: cv.INTER_CUBIC };
const CV_BORDER = { zeros: cv.BORDER_CONSTANT, border: cv.BORDER_REPLICATE, reflection: cv.BORDER_REFLECT };

// A smooth float32 picture (one channel): OpenCV.js quantises positions to 1/32 pixel, so
// its results differ from exact ones by at most the gradient times 1/64 per axis.
const SMOOTH = { fx: 6, fy: 4 };
function smoothImage(width, height) {
  const data = new Float32Array(width * height);
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) data[y * width + x] = 0.5 + 0.25 * Math.sin(x / SMOOTH.fx) + 0.25 * Math.cos(y / SMOOTH.fy);
  }
  return { data, width, height, channels: 1 };
}
// That bound (with a fifth to spare), twice it for cubic (Keys weights sum to 1.5 in
// magnitude), and with zeros padding next to the edges, where the picture falls from up to 1
// to 0 within a pixel, 1/32 (the bench's bound for OpenCV.js on data in [0, 1)). The mean
// difference must stay within QUANTUM everywhere: half a pixel off would be about 10 times it.
const QUANTUM = (0.25 / SMOOTH.fx + 0.25 / SMOOTH.fy) / 64;
const TOLERANCE = { bilinear: 1.2 * QUANTUM, bicubic: 2.4 * QUANTUM, zeros: 1 / 32 };
function checkAgainstOpenCv(got, want, mode, paddingMode, what) {
  const d = difference(got, want);
  const tolerance = paddingMode === 'zeros' ? TOLERANCE.zeros : TOLERANCE[mode];
  assert.ok(d.max <= tolerance, `${what}: max |ours - OpenCV| ${d.max} > ${tolerance} (mean ${d.mean})`);
  assert.ok(d.mean <= QUANTUM, `${what}: mean |ours - OpenCV| ${d.mean} > ${QUANTUM}`);
}

function cvWarp(kind, image, m, { width, height, mode, paddingMode, inverse, fill = 0 }) {
  const src = cv.matFromArray(image.height, image.width, cv.CV_32FC1, Array.from(image.data));
  const dst = new cv.Mat();
  const M = cv.matFromArray(kind === 'affine' ? 2 : 3, 3, cv.CV_64FC1, m);
  const flags = CV_MODE[mode] | (inverse ? cv.WARP_INVERSE_MAP : 0);
  const size = new cv.Size(width, height);
  try {
    if (kind === 'affine') cv.warpAffine(src, dst, M, size, flags, CV_BORDER[paddingMode], new cv.Scalar(fill));
    else cv.warpPerspective(src, dst, M, size, flags, CV_BORDER[paddingMode], new cv.Scalar(fill));
    return Float32Array.from(dst.data32F);
  } finally {
    src.delete();
    dst.delete();
    M.delete();
  }
}

// OpenCV's inverse of an affine (six numbers) or perspective (nine) pixel-space matrix.
function cvInverse(m) {
  const M = cv.matFromArray(m.length / 3, 3, cv.CV_64FC1, m);
  const back = new cv.Mat();
  try {
    if (m.length === 6) cv.invertAffineTransform(M, back);
    else cv.invert(M, back);
    return Array.from(back.data64F);
  } finally {
    M.delete();
    back.delete();
  }
}

// Largest and mean |a - b|.
function difference(a, b) {
  let max = 0;
  let sum = 0;
  for (let i = 0; i < a.length; ++i) {
    const d = Math.abs(a[i] - b[i]);
    max = Math.max(max, d);
    sum += d;
  }
  return { max, mean: sum / a.length };
}

describe('pixel space against OpenCV.js', () => {
  test('rotationMatrix is cv.getRotationMatrix2D', async () => {
    const gs = await load();
    for (const [center, angle, scale] of [[[30.5, 17], 30, 0.9], [[0, 0], -135, 2], [[99, 3.25], 90, 1], [[5, 7], 1e-3, 1]]) {
      const want = cv.getRotationMatrix2D(new cv.Point(...center), angle, scale);
      const got = gs.rotationMatrix(center, angle, scale);
      for (let k = 0; k < 6; ++k) assert.ok(Math.abs(got[k] - want.data64F[k]) <= 1e-12 * (1 + Math.abs(want.data64F[k])), `${center} ${angle} ${scale}: entry ${k}: ${got[k]} vs ${want.data64F[k]}`);
      want.delete();
    }
  });

  test('perspectiveTransform is cv.getPerspectiveTransform', async () => {
    const gs = await load();
    const quads = [
      [[[0, 0], [99, 0], [99, 59], [0, 59]], [[12.5, 7], [80, 3], [95, 55], [4, 50]]],
      [[[3, 4], [40, 2], [44, 30], [1, 33]], [[0, 0], [63, 0], [63, 47], [0, 47]]],
      [[[-5, -5], [5, -5], [5, 5], [-5, 5]], [[-1, -2], [8, -3], [6, 9], [-2, 4]]],
      // OpenCV's issue 26916: h8 = 0, where OpenCV 4.12 returns the matrix of norm 1.
      [[[320, 512], [960, 512], [0, 1024], [1280, 1024]], [[0, 0], [1280, 0], [0, 1024], [1280, 1024]]],
    ];
    for (const [src, dst] of quads) {
      const s = cv.matFromArray(4, 1, cv.CV_32FC2, src.flat());
      const d = cv.matFromArray(4, 1, cv.CV_32FC2, dst.flat());
      const want = cv.getPerspectiveTransform(s, d);
      const got = gs.perspectiveTransform(src, dst);
      for (let k = 0; k < 9; ++k) assert.ok(Math.abs(got[k] - want.data64F[k]) <= 1e-9 * (1 + Math.abs(want.data64F[k])), `entry ${k}: ${got[k]} vs ${want.data64F[k]}`);
      [s, d, want].forEach((m) => m.delete());
    }
  });

  for (const variant of variants) {
    test(`${variant}: warpAffine with space 'pixel' is cv.warpAffine (non-square, both directions, every padding)`, async () => {
      const gs = await load({ variant });
      const image = smoothImage(61, 37);
      const m = gs.rotationMatrix([30, 18], 30, 0.9);
      m[2] += 3.5;
      m[5] -= 2.25;
      const mInverse = cvInverse(m);
      for (const mode of ['bilinear', 'bicubic']) {
        for (const paddingMode of ['zeros', 'border', 'reflection']) {
          for (const [matrix, inverse] of [[m, false], [mInverse, true]]) {
            const options = { width: 50, height: 44, mode, paddingMode };
            const want = cvWarp('affine', image, matrix, { ...options, inverse });
            const got = gs.warpAffine(image, matrix, { ...options, space: 'pixel', inverse });
            checkAgainstOpenCv(got.data, want, mode, paddingMode, `${mode} ${paddingMode} inverse ${inverse}`);
          }
        }
      }
    });

    test(`${variant}: warpPerspective with space 'pixel' is cv.warpPerspective (rectifying a quad, every padding)`, async () => {
      const gs = await load({ variant });
      const image = smoothImage(70, 45);
      const quad = [[8, 5], [60, 2], [66, 40], [3, 36]];
      const h = gs.perspectiveTransform(quad, [[0, 0], [47, 0], [47, 31], [0, 31]]);
      for (const mode of ['bilinear', 'bicubic']) {
        for (const paddingMode of ['zeros', 'border', 'reflection']) {
          // A wider output than the rectangle: its right part maps outside the source.
          const options = { width: 64, height: 40, mode, paddingMode };
          const want = cvWarp('perspective', image, h, { ...options, inverse: false });
          const got = gs.warpPerspective(image, h, { ...options, space: 'pixel' });
          checkAgainstOpenCv(got.data, want, mode, paddingMode, `${mode} ${paddingMode}`);
        }
      }
    });
  }

  for (const variant of variants) {
    test(`${variant}: a trapezoid whose OpenCV matrix has W < 0 over it (a bird's-eye view): -H draws cv.warpPerspective's picture of H; H itself is behind the camera`, async () => {
      const gs = await load({ variant });
      const image = smoothImage(100, 100);
      const src = [[40, 40], [60, 40], [90, 90], [10, 90]];
      const dst = [[0, 0], [99, 0], [99, 99], [0, 99]];
      const h = cv.getPerspectiveTransform(cv.matFromArray(4, 1, cv.CV_32FC2, src.flat()), cv.matFromArray(4, 1, cv.CV_32FC2, dst.flat()));
      const m = Array.from(h.data64F);
      h.delete();
      // OpenCV's h8 = 1 leaves W = h6 x + h7 y + 1 < 0 at the quad's points.
      for (const [x, y] of src) assert.ok(m[6] * x + m[7] * y + m[8] < 0, 'W < 0 at the quad in OpenCV\'s matrix');
      for (const mode of ['bilinear', 'bicubic']) {
        for (const paddingMode of ['zeros', 'border', 'reflection']) {
          const options = { width: 100, height: 100, mode, paddingMode };
          const want = cvWarp('perspective', image, m, { ...options, inverse: false });
          const minus = m.map((v) => -v);
          checkAgainstOpenCv(gs.warpPerspective(image, minus, { ...options, space: 'pixel' }).data, want, mode, paddingMode, `${mode} ${paddingMode} -H`);
          checkAgainstOpenCv(gs.warpPerspective(image, cvInverse(minus), { ...options, space: 'pixel', inverse: true }).data, want, mode, paddingMode, `${mode} ${paddingMode} -H inverted`);
          // DESIGN.md section 9: points with W <= 0 give the padding value (0 here: no fill).
          assert.ok(gs.warpPerspective(image, m, { ...options, space: 'pixel' }).data.every((v) => v === 0), `${mode} ${paddingMode} H`);
        }
      }
    });
  }

  // Maps that bend the picture (a swirl about a point off the centre, partly outside).
  function swirlMaps(width, height, ow, oh) {
    const mapX = new Float32Array(ow * oh);
    const mapY = new Float32Array(ow * oh);
    for (let i = 0; i < oh; ++i) {
      for (let j = 0; j < ow; ++j) {
        const [dx, dy] = [j - 0.45 * ow, i - 0.55 * oh];
        const a = 0.6 * Math.exp(-(dx * dx + dy * dy) / (0.1 * ow * oh));
        mapX[i * ow + j] = 0.5 * width + Math.cos(a) * dx - Math.sin(a) * dy + 1.7;
        mapY[i * ow + j] = 0.5 * height + Math.sin(a) * dx + Math.cos(a) * dy - 2.3;
      }
    }
    return { mapX: { data: mapX, width: ow, height: oh }, mapY: { data: mapY, width: ow, height: oh } };
  }

  for (const variant of variants) {
    test(`${variant}: remap is cv.remap with float maps (planes and interleaved, every padding)`, async () => {
      const gs = await load({ variant });
      const image = smoothImage(66, 41);
      const [ow, oh] = [52, 47];
      const { mapX, mapY } = swirlMaps(66, 41, ow, oh);
      const interleaved = new Float32Array(2 * ow * oh);
      for (let p = 0; p < ow * oh; ++p) [interleaved[2 * p], interleaved[2 * p + 1]] = [mapX.data[p], mapY.data[p]];
      const src = cv.matFromArray(41, 66, cv.CV_32FC1, Array.from(image.data));
      const mx = cv.matFromArray(oh, ow, cv.CV_32FC1, Array.from(mapX.data));
      const my = cv.matFromArray(oh, ow, cv.CV_32FC1, Array.from(mapY.data));
      const dst = new cv.Mat();
      try {
        for (const mode of ['bilinear', 'bicubic']) {
          for (const paddingMode of ['zeros', 'border', 'reflection']) {
            cv.remap(src, dst, mx, my, CV_MODE[mode], CV_BORDER[paddingMode], new cv.Scalar(0));
            const want = Float32Array.from(dst.data32F);
            const planes = gs.remap(image, mapX, mapY, { mode, paddingMode });
            checkAgainstOpenCv(planes.data, want, mode, paddingMode, `${mode} ${paddingMode} planes`);
            const one = gs.remap(image, { data: interleaved, width: ow, height: oh }, null, { mode, paddingMode });
            assert.deepEqual(one.data, planes.data, `${mode} ${paddingMode}: interleaved and planes agree`);
          }
        }
      } finally {
        [src, mx, my, dst].forEach((m) => m.delete());
      }
    });

    test(`${variant}: remap is gridSample on the normalised grid of its maps, every mode and padding`, async () => {
      const gs = await load({ variant });
      const [width, height, ow, oh] = [21, 15, 17, 12];
      const data = Float32Array.from({ length: width * height * 2 }, (_, i) => Math.sin(i * 0.37) * 2);
      const image = { data, width, height, channels: 2 };
      const { mapX, mapY } = swirlMaps(width, height, ow, oh);
      mapX.data[5] = NaN;
      mapY.data[9] = Infinity;
      mapX.data[12] = 1e30; // far outside: the padding rule
      const planar = { data: new Float32Array(data.length), shape: [1, 2, height, width] };
      for (let p = 0; p < width * height; ++p) for (let c = 0; c < 2; ++c) planar.data[c * width * height + p] = data[p * 2 + c];
      for (const mode of ['bilinear', 'nearest', 'bicubic']) {
        for (const paddingMode of ['zeros', 'border', 'reflection']) {
          const grid = new Float32Array(2 * ow * oh);
          for (let p = 0; p < ow * oh; ++p) {
            grid[2 * p] = normalised(mapX.data[p], width, paddingMode);
            grid[2 * p + 1] = normalised(mapY.data[p], height, paddingMode);
          }
          const want = gs.gridSample(planar, { data: grid, shape: [1, oh, ow, 2] }, { mode, paddingMode }).data;
          const got = gs.remap(image, mapX, mapY, { mode, paddingMode }).data;
          // The coordinates agree to a float32 rounding of the normalised value (a few 1e-6
          // pixel here); the data change by up to 2.3 per pixel.
          for (let p = 0; p < ow * oh; ++p) {
            for (let c = 0; c < 2; ++c) {
              assert.ok(Math.abs(got[2 * p + c] - want[c * ow * oh + p]) <= 1e-4, `${mode} ${paddingMode} pixel ${p} channel ${c}: ${got[2 * p + c]} vs ${want[c * ow * oh + p]}`);
            }
          }
        }
      }
    });
  }

  for (const variant of variants) {
    test(`${variant}: fill is BORDER_CONSTANT's border value (warpAffine, warpPerspective, remap; float32 and RGBA)`, async () => {
      const gs = await load({ variant });
      const image = smoothImage(61, 37);
      const m = gs.rotationMatrix([30, 18], 30, 0.9);
      const h = gs.perspectiveTransform([[8, 5], [60, 2], [66, 40], [3, 36]], [[0, 0], [47, 0], [47, 31], [0, 31]]);
      const { mapX, mapY } = swirlMaps(61, 37, 52, 47);
      for (const mode of ['bilinear', 'bicubic', 'nearest']) {
        // The picture lies in [0, 1]; a fill of 0.8 gives edges of the size zeros padding's.
        const options = { width: 64, height: 44, mode, paddingMode: 'zeros', fill: 0.8 };
        const affine = gs.warpAffine(image, m, { ...options, space: 'pixel' }).data;
        const perspective = gs.warpPerspective(image, h, { ...options, space: 'pixel' }).data;
        if (mode !== 'nearest') { // OpenCV rounds nearest's ties its own way
          checkAgainstOpenCv(affine, cvWarp('affine', image, m, { ...options, inverse: false }), mode, 'zeros', `affine ${mode}`);
          checkAgainstOpenCv(perspective, cvWarp('perspective', image, h, { ...options, inverse: false }), mode, 'zeros', `perspective ${mode}`);
        }
        const mapped = gs.remap(image, mapX, mapY, { mode, fill: [0.8] }).data;
        const src = cv.matFromArray(37, 61, cv.CV_32FC1, Array.from(image.data));
        const [mx, my] = [mapX, mapY].map((map) => cv.matFromArray(47, 52, cv.CV_32FC1, Array.from(map.data)));
        const dst = new cv.Mat();
        cv.remap(src, dst, mx, my, CV_MODE[mode], cv.BORDER_CONSTANT, new cv.Scalar(0.8));
        if (mode !== 'nearest') checkAgainstOpenCv(mapped, Float32Array.from(dst.data32F), mode, 'zeros', `remap ${mode}`);
        [src, mx, my, dst].forEach((mat) => mat.delete());
        // Output corners far outside the picture are the fill exactly, in every mode.
        for (const data of [affine, perspective]) assert.equal(data[data.length - 1], Math.fround(0.8), `${mode}: far corner`);
      }
      // RGBA bytes, one value per channel, against OpenCV's CV_8UC4 (fixed point: a level or two).
      const rgba = { data: new Uint8ClampedArray(61 * 37 * 4), width: 61, height: 37 };
      for (let p = 0; p < 61 * 37; ++p) rgba.data.set([image.data[p] * 255, 255 - image.data[p] * 200, 90, 255], 4 * p);
      const fill = [30, 200, 250, 128];
      const got = gs.warpAffine(rgba, m, { width: 64, height: 44, space: 'pixel', fill }).data;
      const src = cv.matFromArray(37, 61, cv.CV_8UC4, Array.from(rgba.data));
      const M = cv.matFromArray(2, 3, cv.CV_64FC1, m);
      const dst = new cv.Mat();
      cv.warpAffine(src, dst, M, new cv.Size(64, 44), cv.INTER_LINEAR, cv.BORDER_CONSTANT, new cv.Scalar(...fill));
      const d = difference(got, dst.data);
      [src, M, dst].forEach((mat) => mat.delete());
      assert.ok(d.max <= 4 && d.mean <= 0.1, `RGBA: max ${d.max}, mean ${d.mean}`);
      assert.deepEqual(Array.from(got.subarray(0, 4)), fill, 'the top-left output pixel lies outside: the fill');
    });
  }

  test('a half-pixel mistake would fail these comparisons (the tolerance discriminates)', async () => {
    const gs = await load();
    const image = smoothImage(61, 37);
    const m = gs.rotationMatrix([30, 18], 30, 0.9);
    const shifted = [...m];
    shifted[2] += 0.5;
    const options = { width: 50, height: 44, mode: 'bilinear', paddingMode: 'border' };
    const want = cvWarp('affine', image, m, { ...options, inverse: false });
    const got = gs.warpAffine(image, shifted, { ...options, space: 'pixel' });
    const d = difference(got.data, want);
    assert.ok(d.max > 4 * TOLERANCE.bilinear && d.mean > 4 * QUANTUM, `max ${d.max}, mean ${d.mean}`);
  });
});
