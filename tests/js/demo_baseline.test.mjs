// The demo's plain-JavaScript baseline and geometry agree with the package: every mode, padding and align on hostile grids; θ parameters round-trip.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { load } from '../../js/node.mjs';
import { affineGrid2d, gridSample2d, warpAffineRgba } from '../../web/demo/plain_gridsample.mjs';
import { affineFromParams } from '../../js/images/pixel_space.mjs';
import { FLOW_NAMES, flowGrid } from '../../js/images/flows.mjs';
import { flowFromGrid, randomThetas } from '../../web/demo/transforms.mjs';

const MODES = ['bilinear', 'nearest', 'bicubic'];
const PADDINGS = ['zeros', 'border', 'reflection'];
// Blending in double (JS) against float32 (wasm) on values up to 255.
const TOLERANCE = { bilinear: 2e-4, nearest: 0, bicubic: 1e-3 };

let gs;
before(async () => { gs = await load(); });

// Coordinates a warp produces, plus the edge cases: far outside, exact pixel centres and
// half-way ties, NaN and infinities.
function hostileGrid(n, h, w, seed) {
  let s = seed;
  const rnd = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
  const special = [NaN, Infinity, -Infinity, 1e30, -1e30, 7.5, -3.25, 1, -1, 0, 0.5, -0.5, 1 / w, 3 / w];
  const g = new Float32Array(n * h * w * 2);
  for (let i = 0; i < g.length; ++i) {
    const r = rnd();
    g[i] = r < 0.08 ? special[Math.floor(rnd() * special.length)] : (rnd() * 2 - 1) * 1.6;
  }
  return g;
}

describe('plain-JS baseline (web/demo/plain_gridsample.mjs) against the package', () => {
  const N = 2, C = 3, H = 9, W = 11, Ho = 7, Wo = 13;
  const x = Float32Array.from({ length: N * C * H * W }, (_, i) => (i * 37) % 256);
  const grid = hostileGrid(N, Ho, Wo, 7);
  for (const mode of MODES) {
    for (const paddingMode of PADDINGS) {
      for (const alignCorners of [false, true]) {
        test(`${mode} ${paddingMode} align ${alignCorners}`, () => {
          const options = { mode, paddingMode, alignCorners };
          const want = gs.gridSample({ data: x, shape: [N, C, H, W] }, { data: grid, shape: [N, Ho, Wo, 2] }, options).data;
          const got = gridSample2d(x, [N, C, H, W], grid, [N, Ho, Wo, 2], options);
          assert.equal(got.length, want.length);
          for (let i = 0; i < want.length; ++i) {
            const p = i % (Ho * Wo);
            const n = Math.floor(i / (C * Ho * Wo));
            const where = `element ${i} (n ${n}, c ${Math.floor(i / (Ho * Wo)) % C}, grid (${grid[2 * (n * Ho * Wo + p)]}, ${grid[2 * (n * Ho * Wo + p) + 1]}))`;
            assert.ok(Math.abs(got[i] - want[i]) <= TOLERANCE[mode], `${where}: plain JS ${got[i]}, package ${want[i]}`);
          }
        });
      }
    }
  }

  test('warpAffineRgba equals the package on RGBA bytes to within 1, nearly always exactly (every mode, padding, align)', () => {
    const W = 23, H = 17, Wo = 19, Ho = 29;
    const rgba = Uint8ClampedArray.from({ length: W * H * 4 }, (_, i) => (i * 97 + (i >> 5) * 31) % 256);
    const x = new Uint8ClampedArray(4 * W * H); // planar (1, 4, H, W)
    for (let i = 0; i < W * H; ++i) for (let c = 0; c < 4; ++c) x[c * W * H + i] = rgba[4 * i + c];
    let values = 0;
    let off = 0;
    const thetas = randomThetas(6, 5);
    for (let k = 0; k < 6; ++k) {
      const theta = thetas.subarray(6 * k, 6 * k + 6);
      for (const mode of MODES) {
        for (const paddingMode of PADDINGS) {
          for (const alignCorners of [false, true]) {
            const options = { mode, paddingMode, alignCorners };
            // The package on bytes: gridSample of uint8 data rounds half to even and saturates.
            const grid = gs.affineGrid({ data: theta, shape: [1, 2, 3] }, [1, 4, Ho, Wo], { alignCorners });
            const want = gs.gridSample({ data: x, shape: [1, 4, H, W] }, grid, options).data;
            const got = warpAffineRgba(rgba, W, H, theta, Wo, Ho, options);
            for (let i = 0; i < Wo * Ho; ++i) {
              for (let c = 0; c < 4; ++c) {
                const d = Math.abs(got[4 * i + c] - want[c * Wo * Ho + i]);
                assert.ok(d <= 1, `θ ${k} ${mode} ${paddingMode} align ${alignCorners}: pixel ${i} channel ${c}: plain JS ${got[4 * i + c]}, package ${want[c * Wo * Ho + i]}`);
                off += d;
                values += 1;
              }
            }
          }
        }
      }
    }
    // Off by one only where double and float32 blending straddle a rounding boundary.
    assert.ok(off <= values * 1e-3, `${off} of ${values} values off by one`);
  });

  test('affineGrid2d equals the package bit for bit (both aligns, N = 3)', () => {
    const theta = randomThetas(3, 11);
    for (const alignCorners of [false, true]) {
      const want = gs.affineGrid({ data: theta, shape: [3, 2, 3] }, [3, 4, 5, 7], { alignCorners }).data;
      assert.deepEqual(affineGrid2d(theta, [3, 4, 5, 7], alignCorners), want);
    }
  });
});

describe('demo geometry (web/demo/transforms.mjs)', () => {
  test("flowGrid without a flow is the package's affineGrid bit for bit", () => {
    const theta = affineFromParams({ rotate: 33, scaleX: 0.7, scaleY: 1.2, shear: 0.3, tx: 0.1, ty: -0.2 });
    for (const alignCorners of [false, true]) {
      const want = gs.affineGrid({ data: Float32Array.from(theta), shape: [1, 2, 3] }, [1, 4, 6, 9], { alignCorners }).data;
      assert.deepEqual(flowGrid(gs, 'none', 0, theta, 9, 6, alignCorners), want);
      // Into a given array (the demo's worker gives a heap tensor's), filled and returned.
      const out = new Float32Array(want.length).fill(NaN);
      assert.equal(flowGrid(gs, 'none', 0, theta, 9, 6, alignCorners, out), out);
      assert.deepEqual(out, want);
    }
  });

  test("flowFromGrid's flow through warpFlow samples where gridSample on the grid does", async () => {
    const [W, H, w, h] = [23, 17, 19, 13];
    const x = { data: Float32Array.from({ length: 2 * W * H }, (_, i) => Math.sin(i * 0.21) * 3), shape: [1, 2, H, W] };
    for (const alignCorners of [false, true]) {
      for (const flow of FLOW_NAMES) {
        const grid = flowGrid(gs, flow, 0.7, [0.9, -0.2, 0.05, 0.25, 1.1, -0.1], w, h, alignCorners);
        for (const paddingMode of ['zeros', 'reflection']) {
          const options = { mode: 'bilinear', paddingMode, alignCorners };
          const want = gs.gridSample(x, { data: grid, shape: [1, h, w, 2] }, options).data;
          const got = gs.warpFlow(x, { data: flowFromGrid(grid, w, h, W, H, alignCorners), shape: [1, 2, h, w] }, options).data;
          // The positions agree within float32 roundings (about 1e-6 pixel); the data change by up to 0.7 per pixel.
          for (let k = 0; k < want.length; ++k) assert.ok(Math.abs(got[k] - want[k]) <= 1e-4, `${flow} ${JSON.stringify(options)} ${k}: ${got[k]} vs ${want[k]}`);
        }
      }
    }
  });

  test('every flow preset is the identity at strength 0 and moves points otherwise', () => {
    const identity = flowGrid(gs, 'none', 0, [1, 0, 0, 0, 1, 0], 16, 12, false);
    for (const flow of FLOW_NAMES) {
      assert.deepEqual(flowGrid(gs, flow, 0, [1, 0, 0, 0, 1, 0], 16, 12, false), identity, flow);
      const moved = flowGrid(gs, flow, 0.6, [1, 0, 0, 0, 1, 0], 16, 12, false);
      const most = moved.reduce((m, v, i) => Math.max(m, Math.abs(v - identity[i])), 0);
      assert.ok(most > 0.02, `${flow} moves points by at most ${most}`);
    }
  });
});
