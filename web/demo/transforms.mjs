// Pure geometry of the demo: the default view, the flow presets as grids, random batch thetas (the sliders' θ is js/pixel_space.mjs's).
//
// θ follows AffineGrid: it maps every *output* position to the *source* position it samples
// (the quad drawn over the source). The sliders give that map in the source's pixels about its
// centre and js/pixel_space.mjs turns it into θ for the picture's size, so that a rotation does
// not stretch a non-square picture; the CLI (js/cli.mjs) does the same. The flow presets work
// in θ's normalised coordinates, as the CLI's do (the CLI tests check that they agree).
import { affineFromParams } from '../../js/pixel_space.mjs';

/** Default slider parameters: a rotated, slightly zoomed view (first load); tx, ty in pixels. */
export const DEFAULT_PARAMS = Object.freeze({ rotate: 20, scaleX: 0.8, scaleY: 0.8, shear: 0, tx: 0, ty: 0 });

// Non-affine presets: functions of the normalised output position p = (x, y), applied before θ
// (the distortion stays fixed in the view; θ moves the window over the source).
// `s` is the strength in [-1, 1]; the sign picks the direction.
export const FLOWS = Object.freeze({
  // A vortex: points within the unit circle turn by up to s·π at the centre.
  swirl: {
    label: 'Swirl',
    strength: 0.6,
    hint: 'sign sets the direction',
    map(x, y, s) {
      const r = Math.hypot(x, y);
      if (r >= 1) return [x, y];
      const a = s * Math.PI * (1 - r) * (1 - r);
      const cos = Math.cos(a);
      const sin = Math.sin(a);
      return [x * cos - y * sin, x * sin + y * cos];
    },
  },
  // Radial lens distortion p·(1 + k r²)/(1 + k), k = 0.45·s: edge midpoints stay put;
  // s > 0 bulges the centre (barrel), s < 0 pinches it (pincushion).
  lens: {
    label: 'Lens',
    strength: 0.6,
    hint: '+ barrel, − pincushion',
    map(x, y, s) {
      const k = 0.45 * s;
      const f = (1 + k * (x * x + y * y)) / (1 + k);
      return [x * f, y * f];
    },
  },
  // A sine ripple in both directions: two periods across the image, amplitude 0.08·s.
  wave: {
    label: 'Wave',
    strength: 0.6,
    hint: 'amplitude',
    map(x, y, s) {
      const amp = 0.08 * s;
      return [x + amp * Math.sin(2 * Math.PI * y), y + amp * Math.sin(2 * Math.PI * x)];
    },
  },
});

/** Names of the flow presets. */
export const FLOW_NAMES = Object.freeze(Object.keys(FLOWS));

// PyTorch's affine_grid base coordinate of pixel i on an axis of size n (0 for n = 1).
function base(i, n, alignCorners) {
  if (n === 1) return 0;
  return alignCorners ? (2 * i - (n - 1)) / (n - 1) : (2 * i + 1 - n) / n;
}

/**
 * A GridSample grid (1, height, width, 2) as a Float32Array: θ applied to the flow preset
 * `flow` ('none' or a FLOWS key) of every output pixel's base coordinate, in double and
 * rounded once (so with 'none' it equals the package's AffineGrid bit for bit).
 */
export function flowGrid(flow, strength, theta, width, height, alignCorners, out) {
  const grid = out || new Float32Array(width * height * 2);
  // θ as the float32 tensor AffineGrid receives, so that both agree exactly.
  const [a, b, c, d, e, f] = Array.from(theta, Math.fround);
  const map = flow === 'none' ? null : FLOWS[flow].map;
  if (flow !== 'none' && !map) throw new RangeError(`unknown flow ${flow}`);
  let k = 0;
  for (let i = 0; i < height; ++i) {
    const y0 = base(i, height, alignCorners);
    for (let j = 0; j < width; ++j) {
      let x = base(j, width, alignCorners);
      let y = y0;
      if (map) [x, y] = map(x, y, strength);
      grid[k++] = a * x + b * y + c;
      grid[k++] = d * x + e * y + f;
    }
  }
  return grid;
}

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
