// The non-affine flow presets (swirl, lens, wave) as GridSample grids, round on any aspect ratio, and a grid as a flow in pixels (used by the CLI and the demo).
//
// A preset is a map of the output position, applied before θ (the distortion stays fixed in
// the view; θ moves the window over the source). It works in coordinates of equal pixel size
// on both axes: the shorter side spans -1..1 and the longer one proportionally more, so a
// swirl or a lens is a circle on a 320x200 picture, not an ellipse, and on a square picture
// these are θ's own normalised coordinates. `s` is the strength in [-1, 1]; its sign picks the
// direction.
import { affineBaseCoordinate as base, pixelLine, unitsPerPixel } from './axis_line.mjs';

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
  // Radial lens distortion p·(1 + k r²)/(1 + k), k = 0.45·s: the midpoints of the shorter
  // sides stay put; s > 0 bulges the centre (barrel), s < 0 pinches it (pincushion).
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
  // A sine ripple in both directions: two periods across the shorter side, amplitude 0.08·s.
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


/**
 * A GridSample grid (1, height, width, 2) as a Float32Array: θ applied to the flow preset
 * `flow` ('none' or a FLOWS key) of every output pixel's base coordinate, in double and
 * rounded once (so with 'none' it equals the package's AffineGrid bit for bit). `out`: an
 * optional Float32Array of width * height * 2 to fill.
 */
export function flowGrid(flow, strength, theta, width, height, alignCorners, out) {
  const grid = out || new Float32Array(width * height * 2);
  // θ as the float32 tensor AffineGrid receives, so that both agree exactly.
  const [a, b, c, d, e, f] = Array.from(theta, Math.fround);
  const map = flow === 'none' ? null : FLOWS[flow]?.map;
  if (flow !== 'none' && !map) throw new RangeError(`unknown flow ${flow}`);
  // Normalised units per isotropic unit on each axis: 1 on the shorter side.
  const unit = Math.max(unitsPerPixel(width, alignCorners), unitsPerPixel(height, alignCorners));
  const kx = unit / unitsPerPixel(width, alignCorners);
  const ky = unit / unitsPerPixel(height, alignCorners);
  let k = 0;
  for (let i = 0; i < height; ++i) {
    const y0 = base(i, height, alignCorners);
    for (let j = 0; j < width; ++j) {
      let x = base(j, width, alignCorners);
      let y = y0;
      if (map) {
        const [u, v] = map(x * kx, y * ky, strength);
        x = u / kx;
        y = v / ky;
      }
      grid[k++] = a * x + b * y + c;
      grid[k++] = d * x + e * y + f;
    }
  }
  return grid;
}

/**
 * The flow (1, 2, height, width) in pixels, dx's plane then dy's, that `grid` (1, height,
 * width, 2) of normalised coordinates describes on an input of inWidth x inHeight:
 * out(p) = in(p + flow(p)) samples where GridSample on `grid` does. In double, rounded once.
 * `out`: an optional Float32Array of 2 * width * height to fill.
 */
export function flowFromGrid(grid, width, height, inWidth, inHeight, alignCorners, out) {
  const flow = out || new Float32Array(2 * width * height);
  const [sx, ox] = pixelLine(inWidth, alignCorners);
  const [sy, oy] = pixelLine(inHeight, alignCorners);
  const plane = width * height;
  for (let p = 0; p < plane; ++p) {
    flow[p] = grid[2 * p] * sx + ox - (p % width);
    flow[plane + p] = grid[2 * p + 1] * sy + oy - Math.floor(p / width);
  }
  return flow;
}

