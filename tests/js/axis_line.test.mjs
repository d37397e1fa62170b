// js/images/axis_line.mjs against the library: each pixel at AffineGrid's base coordinate, and back at its pixel by GridSample's pixel rule (DESIGN.md §2).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { load } from '../../js/node.mjs';
import { normalizedLine, unitsPerPixel } from '../../js/images/axis_line.mjs';

const gs = await load();
const SIZES = [1, 2, 3, 7, 640, 1001];

// GridSample's pixel position of a normalised g on a side of n pixels, in PyTorch's order.
const toPixel = (g, n, align) => (align ? (n === 1 ? 0 : ((g + 1) / 2) * (n - 1)) : ((g + 1) * n - 1) / 2);

describe('js/images/axis_line.mjs', () => {
  test('normalizedLine puts each pixel at the library\'s AffineGrid base coordinate, which GridSample takes back to the pixel', () => {
    for (const align of [false, true]) {
      for (const n of SIZES) {
        const base = gs.affineGrid({ data: Float64Array.of(1, 0, 0, 0, 1, 0), shape: [1, 2, 3] }, [1, 1, 1, n], { alignCorners: align }).data;
        const [a, b] = normalizedLine(n, align);
        for (let u = 0; u < n; ++u) {
          const g = u * a + b;
          const tolerance = 4 * Number.EPSILON * Math.max(1, n);
          assert.ok(Math.abs(g - base[2 * u]) <= tolerance, `n ${n}, u ${u}, align ${align}: ${g} vs ${base[2 * u]}`);
          if (!(align && n === 1)) assert.ok(Math.abs(toPixel(g, n, align) - u) <= tolerance, `n ${n}, u ${u}, align ${align}`);
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
