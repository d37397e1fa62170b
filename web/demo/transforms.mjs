// Pure geometry of the demo alone: the default view, random batch thetas, grid to pixel and a grid as a flow (the sliders' θ and the flow presets are the package's js/images/pixel_space.mjs and js/images/flows.mjs, which the CLI imports too).
//
// θ follows AffineGrid: it maps every *output* position to the *source* position it samples
// (the quad drawn over the source). The sliders give that map in the source's pixels about its
// centre and js/images/pixel_space.mjs turns it into θ for the picture's size, so that a rotation does
// not stretch a non-square picture; the CLI (js/cli.mjs) does the same, and both take their
// flow presets from js/images/flows.mjs (round on any aspect ratio).
import { affineFromParams } from '../../js/images/pixel_space.mjs';

/** Default slider parameters: a rotated, slightly zoomed view (first load); tx, ty in pixels. */
export const DEFAULT_PARAMS = Object.freeze({ rotate: 20, scaleX: 0.8, scaleY: 0.8, shear: 0, tx: 0, ty: 0 });

/** A small seeded generator (mulberry32) so that a batch can be reproduced from its seed. */
export function randomGenerator(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `n` random thetas (a flat Float32Array of n × 6) as a spatial transformer might predict them:
 * in θ's own normalised coordinates, as a network's output is.
 */
export function randomThetas(n, seed) {
  const rnd = randomGenerator(seed);
  const span = (lo, hi) => lo + (hi - lo) * rnd();
  const out = new Float32Array(n * 6);
  for (let i = 0; i < n; ++i) {
    const scale = span(0.45, 1.05);
    out.set(affineFromParams({
      rotate: span(-45, 45),
      scaleX: scale * span(0.85, 1.15),
      scaleY: scale * span(0.85, 1.15),
      shear: span(-0.25, 0.25),
      tx: span(-0.35, 0.35),
      ty: span(-0.35, 0.35),
    }), 6 * i);
  }
  return out;
}

/** Pixel position of normalised coordinate g on an axis of size n (GridSample's rule). */
export function toPixel(g, n, alignCorners) {
  return alignCorners ? ((g + 1) / 2) * (n - 1) : ((g + 1) * n - 1) / 2;
}

/**
 * The flow (1, 2, height, width) in pixels, dx's plane then dy's, that `grid` (1, height,
 * width, 2) of normalised coordinates describes on an input of inWidth x inHeight:
 * out(p) = in(p + flow(p)) samples where GridSample on `grid` does (for the demo's warpFlow
 * path). In double, rounded once. `out`: an optional Float32Array of 2 * width * height to fill.
 */
export function flowFromGrid(grid, width, height, inWidth, inHeight, alignCorners, out) {
  const flow = out || new Float32Array(2 * width * height);
  const plane = width * height;
  for (let p = 0; p < plane; ++p) {
    flow[p] = toPixel(grid[2 * p], inWidth, alignCorners) - (p % width);
    flow[plane + p] = toPixel(grid[2 * p + 1], inHeight, alignCorners) - Math.floor(p / width);
  }
  return flow;
}
