// js/images/pixel_space.mjs: transforms written in pixels about the image centre become θs whose AffineGrid samples exactly the pixels the transform names, on non-square images and with either alignCorners.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { load } from '../../js/node.mjs';
import {
  affineFromParams, paramsFromAffine, paramsFromTheta, pixelMapFromTheta, thetaFromParams, thetaFromPixelMap,
} from '../../js/images/pixel_space.mjs';

const gs = await load();

// GridSample's pixel coordinate of a normalised g on a side of n pixels (DESIGN.md §2).
const toPixel = (g, n, alignCorners) => (alignCorners ? ((g + 1) / 2) * (n - 1) : ((g + 1) * n - 1) / 2);

// Where AffineGrid with `theta` makes output pixel (x, y) of an ow × oh output sample a w × h
// input, in input pixels, for every output pixel.
function sampledPixels(theta, [w, h], [ow, oh], alignCorners) {
  const grid = gs.affineGrid({ data: Float64Array.from(theta), shape: [1, 2, 3] }, [1, 1, oh, ow], { alignCorners }).data;
  const out = [];
  for (let y = 0; y < oh; ++y) {
    for (let x = 0; x < ow; ++x) {
      const k = 2 * (y * ow + x);
      out.push([x, y, toPixel(grid[k], w, alignCorners), toPixel(grid[k + 1], h, alignCorners)]);
    }
  }
  return out;
}

describe('js/images/pixel_space.mjs', () => {
  test('a rotation about the centre samples the pixel it names, on non-square images, with either alignCorners', () => {
    for (const [w, h] of [[32, 20], [7, 13], [40, 1]]) {
      for (const alignCorners of [false, true]) {
        for (const [degrees, scale, tx, ty] of [[30, 1, 0, 0], [-75, 0.6, 3.5, -2], [90, 1, 0, 0], [200, 1.7, -1, 4]]) {
          const theta = thetaFromParams({ rotate: degrees, scaleX: scale, scaleY: scale, tx, ty }, [w, h], alignCorners);
          // Written out here: output pixel p samples c + s R (p - c) + t, R turning +x towards +y.
          const r = (degrees * Math.PI) / 180;
          const [cx, cy] = [(w - 1) / 2, (h - 1) / 2];
          for (const [x, y, sx, sy] of sampledPixels(theta, [w, h], [w, h], alignCorners)) {
            const u = x - cx;
            const v = y - cy;
            const ex = cx + scale * (Math.cos(r) * u - Math.sin(r) * v) + tx;
            const ey = h === 1 && alignCorners ? sy : cy + scale * (Math.sin(r) * u + Math.cos(r) * v) + ty;
            const what = `${w}x${h} align ${alignCorners} rotate ${degrees} scale ${scale} t ${tx},${ty}, output (${x}, ${y})`;
            assert.ok(Math.abs(sx - ex) < 1e-9 && Math.abs(sy - ey) < 1e-9, `${what}: samples (${sx}, ${sy}), expected (${ex}, ${ey})`);
          }
        }
      }
    }
  });

  test('shear and unequal scales are pixel-space too: output pixel p samples c + Sh·S (p - c)', () => {
    const [w, h] = [30, 18];
    for (const alignCorners of [false, true]) {
      const theta = thetaFromParams({ shear: 0.4, scaleX: 1.5, scaleY: 0.5 }, [w, h], alignCorners);
      for (const [x, y, sx, sy] of sampledPixels(theta, [w, h], [w, h], alignCorners)) {
        const [u, v] = [x - (w - 1) / 2, y - (h - 1) / 2];
        assert.ok(Math.abs(sx - ((w - 1) / 2 + 1.5 * u + 0.4 * 0.5 * v)) < 1e-9, `x of (${x}, ${y}), align ${alignCorners}`);
        assert.ok(Math.abs(sy - ((h - 1) / 2 + 0.5 * v)) < 1e-9, `y of (${x}, ${y}), align ${alignCorners}`);
      }
    }
  });

  test('another output size is the same frame resized: corners to corners', () => {
    // The identity in pixels into a 12 x 5 output samples as AffineGrid's identity θ does.
    const theta = thetaFromPixelMap([1, 0, 0, 0, 1, 0], [24, 10], [24, 10], false);
    assert.deepEqual(theta, [1, 0, 0, 0, 1, 0]);
    // A pixel map between different frames: output offset u samples input offset 2u.
    for (const alignCorners of [false, true]) {
      const t = thetaFromPixelMap([2, 0, 0, 0, 2, 0], [24, 10], [12, 5], alignCorners);
      for (const [x, y, sx, sy] of sampledPixels(t, [24, 10], [12, 5], alignCorners)) {
        assert.ok(Math.abs(sx - (11.5 + 2 * (x - 5.5))) < 1e-9 && Math.abs(sy - (4.5 + 2 * (y - 2))) < 1e-9, `(${x}, ${y})`);
      }
    }
  });

  test('on a square image θ is the parameters\' matrix itself, bit for bit', () => {
    const p = { rotate: 33, scaleX: 0.7, scaleY: 1.2, shear: 0.3 };
    for (const alignCorners of [false, true]) assert.deepEqual(thetaFromParams(p, [511, 511], alignCorners), affineFromParams(p));
  });

  test('rotate +90 turns the picture counter-clockwise: the bottom of the source shows on the right', () => {
    const [a, b, c, d, e, f] = affineFromParams({ rotate: 90 });
    // Output point (1, 0), the middle of the right edge, samples source (0, 1), the bottom middle.
    assert.ok(Math.abs(a * 1 + b * 0 + c) < 1e-12 && Math.abs(d * 1 + e * 0 + f - 1) < 1e-12);
  });

  test('quarter turns are exact: cos and sin are 0 and ±1, not 6e-17', () => {
    assert.deepEqual(affineFromParams({ rotate: 90 }), [0, -1, 0, 1, 0, 0]);
    assert.deepEqual(affineFromParams({ rotate: -180 }), [-1, -0, 0, 0, -1, 0]);
    assert.deepEqual(affineFromParams({ rotate: 270 }), [0, 1, 0, -1, 0, 0]);
  });

  test('a huge angle is reduced modulo 360 exactly (BigInt), not through radians that lose every digit or overflow', () => {
    // An integral double is an exact BigInt, so its remainder modulo 360 is exact too.
    for (const degrees of [1e20, -1e20, 1e308, -1.5e308, 2 ** 60 * 3 + 2 ** 8]) {
      const reduced = Number(BigInt(degrees) % 360n);
      const r = (reduced * Math.PI) / 180;
      const [a, , , d] = affineFromParams({ rotate: degrees });
      assert.ok(Math.abs(a - Math.cos(r)) < 1e-12 && Math.abs(d - Math.sin(r)) < 1e-12, `${degrees}° (${reduced}° modulo 360): cos, sin ${a}, ${d}; expected ${Math.cos(r)}, ${Math.sin(r)}`);
    }
  });

  test('the inverses: paramsFromAffine, pixelMapFromTheta and paramsFromTheta, mirror images included', () => {
    for (const p of [
      { rotate: 20, scaleX: 0.8, scaleY: 0.8, shear: 0, tx: 0, ty: 0 },
      { rotate: -135, scaleX: 2.5, scaleY: 0.3, shear: 0.7, tx: 40, ty: -9 },
      { rotate: 179, scaleX: 1, scaleY: -1.5, shear: -0.2, tx: 0, ty: 0.1 },
    ]) {
      const close = (q, what) => {
        for (const k of Object.keys(p)) assert.ok(Math.abs(q[k] - p[k]) < 1e-9, `${what} ${k}: ${q[k]} != ${p[k]} for ${JSON.stringify(p)}`);
      };
      close(paramsFromAffine(affineFromParams(p)), 'paramsFromAffine');
      for (const alignCorners of [false, true]) {
        close(paramsFromTheta(thetaFromParams(p, [320, 200], alignCorners), [320, 200], alignCorners), `align ${alignCorners}`);
        const m = [0.5, -2, 7, 1.25, 3, -4];
        const back = pixelMapFromTheta(thetaFromPixelMap(m, [9, 4], [3, 17], alignCorners), [9, 4], [3, 17], alignCorners);
        back.forEach((v, i) => assert.ok(Math.abs(v - m[i]) < 1e-12, `pixelMapFromTheta ${i}: ${v} != ${m[i]}`));
      }
    }
  });

  test('sides of one pixel give a finite θ', () => {
    for (const alignCorners of [false, true]) {
      const theta = thetaFromParams({ rotate: 30, tx: 2 }, [1, 1], alignCorners);
      assert.ok(theta.every(Number.isFinite), `${theta}`);
    }
  });
});
