// js/images/axis_line.mjs against the library: AffineGrid's base coordinates bit for bit, and both lines against GridSample's pixel rule (DESIGN.md §2).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { load } from '../../js/node.mjs';
import { affineBaseCoordinate, normalizedLine, pixelLine, unitsPerPixel } from '../../js/images/axis_line.mjs';

const gs = await load();
const SIZES = [1, 2, 3, 7, 640, 1001];

// GridSample's pixel position of a normalised g on a side of n pixels, in PyTorch's order.
const toPixel = (g, n, align) => (align ? (n === 1 ? 0 : ((g + 1) / 2) * (n - 1)) : ((g + 1) * n - 1) / 2);

describe('js/images/axis_line.mjs', () => {
  test('affineBaseCoordinate is the library\'s AffineGrid of the identity, bit for bit (float64)', () => {
    for (const align of [false, true]) {
      for (const n of SIZES) {
        const grid = gs.affineGrid({ data: Float64Array.of(1, 0, 0, 0, 1, 0), shape: [1, 2, 3] }, [1, 1, 1, n], { alignCorners: align }).data;
        for (let i = 0; i < n; ++i) {
          assert.equal(affineBaseCoordinate(i, n, align), grid[2 * i], `n ${n}, i ${i}, align ${align}`);
        }
      }
    }
  });

  test('normalizedLine puts each pixel at its base coordinate, and pixelLine takes it back as GridSample does', () => {
    for (const align of [false, true]) {
      for (const n of SIZES) {
        const [a, b] = normalizedLine(n, align);
        const [k, c] = pixelLine(n, align);
        for (let u = 0; u < n; ++u) {
          const g = u * a + b;
          const tolerance = 4 * Number.EPSILON * Math.max(1, n);
          assert.ok(Math.abs(g - affineBaseCoordinate(u, n, align)) <= tolerance, `n ${n}, u ${u}, align ${align}: ${g}`);
          assert.ok(Math.abs(g * k + c - toPixel(g, n, align)) <= tolerance, `n ${n}, g ${g}, align ${align}`);
          if (!(align && n === 1)) assert.ok(Math.abs(g * k + c - u) <= tolerance, `n ${n}, u ${u}, align ${align}`);
        }
      }
    }
  });

  test('unitsPerPixel is the line\'s slope, and 2 on a 1-pixel side with alignCorners', () => {
    for (const align of [false, true]) {
      for (const n of SIZES) {
        const want = align && n === 1 ? 2 : normalizedLine(n, align)[0];
        assert.equal(unitsPerPixel(n, align), want);
        assert.ok(unitsPerPixel(n, align) > 0);
      }
    }
    assert.equal(unitsPerPixel(4, false), 0.5);
    assert.equal(unitsPerPixel(5, true), 0.5);
  });
});
