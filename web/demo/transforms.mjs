// Pure geometry of the demo: θ from slider parameters and back, the flow presets as grids, random batch thetas.
//
// θ follows AffineGrid: it maps every *output* position to the *source* position it samples
// (the quad drawn over the source). So scale 0.5 zooms in 2×, translate +0.5 moves the
// sampled window right (the picture moves left), and rotate +30° turns the picture 30°
// counter-clockwise on screen. The CLI (js/cli.mjs) uses the same definitions; the CLI
// tests check that it agrees with this module.

/** Default slider parameters: a rotated, slightly zoomed view (first load). */
export const DEFAULT_PARAMS = Object.freeze({ rotate: 20, scaleX: 0.8, scaleY: 0.8, shear: 0, tx: 0, ty: 0 });

/**
 * θ = [R(rotate) · Shear(shear) · diag(scaleX, scaleY) | (tx, ty)] as six numbers, row-major
 * [[a, b, c], [d, e, f]], in AffineGrid's normalised coordinates (x right, y down, [-1, 1]).
 */
export function thetaFromParams({ rotate = 0, scaleX = 1, scaleY = 1, shear = 0, tx = 0, ty = 0 }) {
  const r = (rotate * Math.PI) / 180;
  const cos = Math.cos(r);
  const sin = Math.sin(r);
  return [cos * scaleX, (cos * shear - sin) * scaleY, tx, sin * scaleX, (sin * shear + cos) * scaleY, ty];
}

/**
 * The slider parameters of θ (inverse of thetaFromParams): a QR split of the 2×2 part into a
 * rotation and an upper-triangular factor. scaleY < 0 means a mirror image.
 */
export function paramsFromTheta([a, b, c, d, e, f]) {
  const scaleX = Math.hypot(a, d);
  const r = scaleX > 0 ? Math.atan2(d, a) : 0;
  const cos = Math.cos(r);
  const sin = Math.sin(r);
  const u12 = cos * b + sin * e;
  const scaleY = -sin * b + cos * e;
  return { rotate: (r * 180) / Math.PI, scaleX, scaleY, shear: scaleY !== 0 ? u12 / scaleY : 0, tx: c, ty: f };
}

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

/** `n` random thetas (a flat Float32Array of n × 6) as a spatial transformer might predict them. */
export function randomThetas(n, seed) {
  const rnd = randomGenerator(seed);
  const span = (lo, hi) => lo + (hi - lo) * rnd();
  const out = new Float32Array(n * 6);
  for (let i = 0; i < n; ++i) {
    const scale = span(0.45, 1.05);
    out.set(thetaFromParams({
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
