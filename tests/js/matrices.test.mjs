// The library's matrices (gridsample/matrices.h, through js/images/matrices.mjs) under huge, tiny and far-off but valid input: perspectiveTransform where h8 = 0 (OpenCV's issue 26916) and at any scale, rotationMatrix and the inversion of pixel-space matrices without overflow, each against exact math.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { load } from '../../js/node.mjs';
import { libraryRules } from '../../js/core/api.mjs';

const gs = await load();
const { perspectiveTransform, rotationMatrix } = gs;
// The inverse of a pixel-space 3x3 matrix as the warps take it (errors name it `name` in `fn`).
const invertOrThrow = (fn, name, m) => libraryRules(gs).pixelHomography(fn, name, m, 'pixel', false, [1, 1], [1, 1], false);

const SQUARE = [[0, 0], [1, 0], [1, 1], [0, 1]];
const scaled = (quad, k, [ox, oy] = [0, 0]) => quad.map(([x, y]) => [ox + k * x, oy + k * y]);

// Where h takes the point (x, y); written so that no product leaves double's range for the
// scales used here (h0 x is about the destination's scale).
function apply(h, [x, y]) {
  const w = h[6] * x + h[7] * y + h[8];
  return [(h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w];
}

// Each src point lands on its dst point within `tol` of the destination's `scale`.
function assertMaps(h, src, dst, scale, what, tol = 1e-12) {
  src.forEach((p, k) => {
    const [x, y] = apply(h, p);
    assert.ok(Math.abs(x - dst[k][0]) <= tol * scale && Math.abs(y - dst[k][1]) <= tol * scale, `${what}: point ${k} goes to (${x}, ${y}), expected (${dst[k]})`);
  });
}

// got = want entry by entry, each within `tol` of the size `scales[k]` of what entry k holds.
function assertClose(got, want, scales, what, tol = 1e-12) {
  got.forEach((v, k) => assert.ok(Math.abs(v - want[k]) <= tol * scales[k], `${what}: entry ${k}: ${v} vs ${want[k]}\n got  ${got}\n want ${want}`));
}

// Nine numbers over their Frobenius norm.
const unit = (h) => h.map((v) => v / Math.hypot(...h));

describe('perspectiveTransform where h8 = 0', () => {
  test('OpenCV issue 26916: no three points on a line, h8 = 0; the matrix of norm 1 that maps each point', () => {
    const src = [[320, 512], [960, 512], [0, 1024], [1280, 1024]];
    const dst = [[0, 0], [1280, 0], [0, 1024], [1280, 1024]];
    // The unique homography up to scale, checked by hand: (320, 512, 1) -> (0, 0, 512) and so on.
    const H = [1024, 640, -655360, 0, 2048, -1048576, 0, 1, 0];
    const h = perspectiveTransform(src, dst);
    assertMaps(h, src, dst, 1280, '26916');
    assertClose(h, unit(H), new Array(9).fill(1), '26916');
  });

  test('its sign makes w > 0 at the src points (a negated matrix is the same map, but warpPerspective leaves w <= 0 transparent)', () => {
    // (x, y) -> ((x + 1) / x, y / x): H = [1, 0, 1; 0, 1, 0; 1, 0, 0], the origin to infinity.
    const H = [1, 0, 1, 0, 1, 0, 1, 0, 0];
    for (const side of [1, -1]) {
      const src = [[1, 0], [2, 0], [2, 1], [1, 1]].map(([x, y]) => [side * x, y]);
      const dst = src.map(([x, y]) => [(x + 1) / x, y / x]);
      const h = perspectiveTransform(src, dst);
      assertMaps(h, src, dst, 2, `x of sign ${side}`);
      assertClose(h, unit(H).map((v) => v * side), new Array(9).fill(1), `x of sign ${side}`);
      for (const [x, y] of src) assert.ok(h[6] * x + h[7] * y + h[8] > 0, `x of sign ${side}: w at (${x}, ${y})`);
    }
  });
});

describe('perspectiveTransform at any scale', () => {
  // (x, y) -> (2x, 2y) / (x + 1) takes the unit square to (0, 0), (1, 0), (1, 1), (0, 2).
  const DST = [[0, 0], [1, 0], [1, 1], [0, 2]];
  // With src scaled by a and dst by b: diag(b, b, 1) H diag(1 / a, 1 / a, 1), h8 still 1.
  const want = (a, b) => [2 * (b / a), 0, 0, 0, 2 * (b / a), 0, 1 / a, 0, 1];
  const sizes = (a, b) => [b / a, b / a, b, b / a, b / a, b, 1 / a, 1 / a, 1];

  test('squares scaled by 1e160, 2e160 and 1e-160, as src, dst or both, and scales apart by up to 1e300', () => {
    for (const [a, b] of [[1e160, 1], [2e160, 1], [1, 1e160], [1, 2e160], [1e160, 1e160], [2e160, 2e160],
      [1e-160, 1], [1, 1e-160], [1e-160, 1e-160], [1e-150, 1e150], [1e150, 1e-150], [1e300, 1], [1, 1e-300]]) {
      const src = scaled(SQUARE, a);
      const dst = scaled(DST, b);
      const h = perspectiveTransform(src, dst);
      assertMaps(h, src, dst, b, `src x ${a}, dst x ${b}`);
      assertClose(h, want(a, b), sizes(a, b), `src x ${a}, dst x ${b}`);
    }
  });

  test('a unit square a million pixels from the origin is a quad, not three points on a line', () => {
    const src = scaled(SQUARE, 1, [1e6, 2e6]);
    assertClose(perspectiveTransform(src, SQUARE), [1, 0, -1e6, 0, 1, -2e6, 0, 0, 1], [1, 1, 1e6, 1, 1, 1e6, 1, 1, 1], 'far square');
    assertMaps(perspectiveTransform(SQUARE, src), SQUARE, src, 2e6, 'onto the far square');
  });

  test('three points on a line are found at any scale, and a homography beyond double\'s range is a RangeError', () => {
    const line = [[0, 0], [1, 1], [2, 2], [0, 1]];
    for (const k of [1e160, 1e-160, 1e300]) {
      assert.throws(() => perspectiveTransform(scaled(line, k), SQUARE), { name: 'RangeError', message: /^perspectiveTransform: src: points 0, 1 and 2 lie on one line/ }, `x ${k}`);
      assert.throws(() => perspectiveTransform(SQUARE, scaled(line, k, [k, 0])), { name: 'RangeError', message: /^perspectiveTransform: dst: points 0, 1 and 2 lie on one line/ }, `x ${k}`);
    }
    // 2e300 / 1e-300 is 2e600.
    assert.throws(() => perspectiveTransform(scaled(SQUARE, 1e-300), scaled(DST, 1e300)), {
      name: 'RangeError', message: /^perspectiveTransform: src and dst differ so much in scale that the homography between them has entries beyond double's range/,
    });
  });
});

describe('rotationMatrix and inversion without overflow', () => {
  const SQRT3 = Math.sqrt(3);

  test('rotationMatrix: a centre near 1e308, a scale of 1e308 about the origin; beyond double\'s range a RangeError', () => {
    // OpenCV's entries: c = (1 - a) cx - b cy, f = b cx + (1 - a) cy, with a = 2 cos 30° = √3, b = 1.
    assertClose(rotationMatrix([1e308, 1e308], 30, 2), [SQRT3, 1, -SQRT3 * 1e308, -1, SQRT3, (2 - SQRT3) * 1e308], [2, 2, 1e308, 2, 2, 1e308], 'centre 1e308');
    assertClose(rotationMatrix([0, 0], 30, 1e308), [SQRT3 / 2 * 1e308, 0.5e308, 0, -0.5e308, SQRT3 / 2 * 1e308, 0], new Array(6).fill(1e308), 'scale 1e308');
    assert.throws(() => rotationMatrix([3, 4], 30, 1e308), {
      name: 'RangeError', message: /^rotationMatrix: scale: 1e\+308 about center \[3, 4\] gives entry 2 of the matrix beyond double's range/,
    });
  });

  test('pixel-space inversion: determinants of 1e-400 and 1e400 and adjugates past 1e308 where the inverse is within range', () => {
    assertClose(invertOrThrow('f', 'm', [1e-200, 0, 0, 0, 1e-200, 0, 0, 0, 1]), [1e200, 0, 0, 0, 1e200, 0, 0, 0, 1], [1e200, 1, 1, 1, 1e200, 1, 1, 1, 1], '1e-200 I');
    assertClose(invertOrThrow('f', 'm', [1e200, 0, 0, 0, 1e200, 0, 0, 0, 1]), [1e-200, 0, 0, 0, 1e-200, 0, 0, 0, 1], [1e-200, 1, 1, 1, 1e-200, 1, 1, 1, 1], '1e200 I');
    // 2 R about c = (1e308, 1e308) inverts to R^T / 2 about c: x = R^T y / 2 + c - R^T c / 2.
    const inverse = [SQRT3 / 4, -1 / 4, (1 - (SQRT3 - 1) / 4) * 1e308, 1 / 4, SQRT3 / 4, (1 - (SQRT3 + 1) / 4) * 1e308, 0, 0, 1];
    assertClose(invertOrThrow('f', 'm', [...rotationMatrix([1e308, 1e308], 30, 2), 0, 0, 1]), inverse, [1, 1, 1e308, 1, 1, 1e308, 1, 1, 1], 'rotation about 1e308');
    assert.throws(() => invertOrThrow('f', 'm', [1e-310, 0, 0, 0, 1, 0, 0, 0, 1]), {
      name: 'RangeError', message: /^f: m: its inverse has entries beyond double's range \(about 1\.8e308\): it is too nearly singular to invert/,
    });
  });

  test('warpAffine in pixel space: rotationMatrix([1e308, 1e308], 30, 2) and 1e200 I invert and sample where they say', () => {
    const image = { data: Float32Array.from({ length: 12 }, (_, i) => i + 1), width: 4, height: 3, channels: 1 };
    // Every output pixel samples about (0.3e308, 0.8e308): border padding gives the last pixel.
    const far = gs.warpAffine(image, rotationMatrix([1e308, 1e308], 30, 2), { space: 'pixel', paddingMode: 'border' });
    assert.deepEqual(Array.from(far.data), new Array(12).fill(12));
    // Every output pixel samples within 1e-199 of pixel (0, 0).
    const near = gs.warpAffine(image, [1e200, 0, 0, 0, 1e200, 0], { space: 'pixel', paddingMode: 'border' });
    assert.deepEqual(Array.from(near.data), new Array(12).fill(1));
  });
});
