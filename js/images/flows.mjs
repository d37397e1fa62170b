// The non-affine flow presets (swirl, lens, wave) as GridSample grids, round on any aspect ratio (used by the CLI and the demo).
//
// A preset is a map of the output position, applied before θ (the distortion stays fixed in
// the view; θ moves the window over the source). It works in coordinates of equal pixel size
// on both axes: the shorter side spans -1..1 and the longer one proportionally more, so a
// swirl or a lens is a circle on a 320x200 picture, not an ellipse, and on a square picture
// these are θ's own normalised coordinates. `s` is the strength in [-1, 1]; its sign picks the
// direction.
import { unitsPerPixel } from './axis_line.mjs';

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


// AffineGrid's identity: its float64 grid is the base coordinates themselves.
const IDENTITY = Object.freeze({ data: Float64Array.of(1, 0, 0, 0, 1, 0), shape: [1, 2, 3] });

/**
 * A GridSample grid (1, height, width, 2) as a Float32Array: θ applied to the flow preset
 * `flow` ('none' or a FLOWS key) of every output pixel's base coordinate (the library's: `gs`,
 * a loaded module, gives them), in double and rounded once; with 'none', `gs`'s AffineGrid of
 * θ. `out`: an optional Float32Array of width * height * 2 to fill.
 */
export function flowGrid(gs, flow, strength, theta, width, height, alignCorners, out) {
  // θ as the float32 tensor AffineGrid receives.
  const [a, b, c, d, e, f] = Array.from(theta, Math.fround);
  const map = flow === 'none' ? null : FLOWS[flow]?.map;
  if (flow !== 'none' && !map) throw new RangeError(`unknown flow ${flow}`);
  if (!map) {
    const options = out ? { alignCorners, out } : { alignCorners };
    return gs.affineGrid({ data: Float32Array.of(a, b, c, d, e, f), shape: [1, 2, 3] }, [1, 1, height, width], options).data;
  }
  const grid = out || new Float32Array(width * height * 2);
  // Base coordinates: x of column j at xs[2j], y of row i at ys[2i + 1].
  const xs = gs.affineGrid(IDENTITY, [1, 1, 1, width], { alignCorners }).data;
  const ys = gs.affineGrid(IDENTITY, [1, 1, height, 1], { alignCorners }).data;
  // Normalised units per isotropic unit on each axis: 1 on the shorter side.
  const unit = Math.max(unitsPerPixel(width, alignCorners), unitsPerPixel(height, alignCorners));
  const kx = unit / unitsPerPixel(width, alignCorners);
  const ky = unit / unitsPerPixel(height, alignCorners);
  let k = 0;
  for (let i = 0; i < height; ++i) {
    const y0 = ys[2 * i + 1];
    for (let j = 0; j < width; ++j) {
      const [u, v] = map(xs[2 * j] * kx, y0 * ky, strength);
      const x = u / kx;
      const y = v / ky;
      grid[k++] = a * x + b * y + c;
      grid[k++] = d * x + e * y + f;
    }
  }
  return grid;
}
