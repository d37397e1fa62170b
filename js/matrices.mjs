// Pixel-space matrices as OpenCV writes them (rotationMatrix, perspectiveTransform) and their conversion into what the kernels take: theta for warpAffine, a pixel homography from output to input for warpPerspective.
//
// Pixel space (DESIGN.md section 9) is OpenCV's: pixel centres at integer coordinates, the
// origin at the top-left pixel's centre, and a matrix that maps the source to the destination
// unless `inverse` says it already maps the destination (output) to the source (OpenCV's
// WARP_INVERSE_MAP). Normalised space is AffineGrid's: theta or a 3x3 homography from the
// output's normalised coordinates to the input's. All arithmetic here is in double.
import { describe } from './messages.mjs';
import { cosSin, thetaFromPixelMap } from './pixel_space.mjs';

/** The spaces a matrix may be written in; `normalized` is the default and never guessed. */
export const SPACES = ['normalized', 'pixel'];

function readNumber(fn, what, v) {
  if (typeof v !== 'number') throw new TypeError(`${fn}: ${what}: expected a number, got ${describe(v)}`);
  if (!Number.isFinite(v)) throw new RangeError(`${fn}: ${what}: expected a finite number, got ${v}`);
  return v;
}

function readPoint(fn, what, p) {
  if (!Array.isArray(p) && !ArrayBuffer.isView(p)) {
    throw new TypeError(`${fn}: ${what}: expected a point [x, y], got ${describe(p)}`);
  }
  if (p.length !== 2) throw new RangeError(`${fn}: ${what}: expected a point [x, y] of 2 numbers, got ${p.length}`);
  return [readNumber(fn, `${what}[0]`, p[0]), readNumber(fn, `${what}[1]`, p[1])];
}

/**
 * The 2x3 matrix (six numbers, row-major) that rotates by `angleDeg` degrees about `center`
 * and scales by `scale`, as `cv.getRotationMatrix2D`: a positive angle turns the picture
 * counter-clockwise on screen (y down). Meant for `warpAffine(image, m, { space: 'pixel' })`.
 */
export function rotationMatrix(center, angleDeg, scale = 1) {
  const fn = 'rotationMatrix';
  const [cx, cy] = readPoint(fn, 'center', center);
  readNumber(fn, 'angleDeg', angleDeg);
  readNumber(fn, 'scale', scale);
  const [cos, sin] = cosSin(angleDeg);
  const a = scale * cos;
  const b = scale * sin;
  return [a, b, (1 - a) * cx - b * cy, -b, a, b * cx + (1 - a) * cy];
}

// Twice the signed area of the triangle p, q, r.
function cross(p, q, r) {
  return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
}

// The quad's four points, checked: finite, no three on a line (then no homography maps it
// onto a quad).
function readQuad(fn, what, quad) {
  if (!Array.isArray(quad)) throw new TypeError(`${fn}: ${what}: expected 4 points [[x, y], x4], got ${describe(quad)}`);
  if (quad.length !== 4) throw new RangeError(`${fn}: ${what}: expected 4 points [[x, y], x4], got ${quad.length}`);
  const p = quad.map((q, i) => readPoint(fn, `${what}[${i}]`, q));
  const scale = Math.max(...p.flat().map(Math.abs), 1);
  for (const [i, j, k] of [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]) {
    if (Math.abs(cross(p[i], p[j], p[k])) <= 1e-12 * scale * scale) {
      throw new RangeError(`${fn}: ${what}: points ${i}, ${j} and ${k} lie on one line (a degenerate quad): no perspective map takes it onto a quad`);
    }
  }
  return p;
}

// x solving a x = b (n unknowns), Gaussian elimination with partial pivoting; null when a is
// singular to working precision.
function solve(a, b) {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; ++c) {
    let pivot = c;
    for (let r = c + 1; r < n; ++r) if (Math.abs(m[r][c]) > Math.abs(m[pivot][c])) pivot = r;
    if (!(Math.abs(m[pivot][c]) > 1e-300)) return null;
    [m[c], m[pivot]] = [m[pivot], m[c]];
    for (let r = c + 1; r < n; ++r) {
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; ++k) m[r][k] -= f * m[c][k];
    }
  }
  const x = new Array(n);
  for (let r = n - 1; r >= 0; --r) {
    let s = m[r][n];
    for (let k = r + 1; k < n; ++k) s -= m[r][k] * x[k];
    x[r] = s / m[r][r];
  }
  return x;
}

/**
 * The 3x3 homography (nine numbers, row-major, h[8] = 1) taking the four points `src` onto
 * the four points `dst` ([[x, y] x4] each), as `cv.getPerspectiveTransform`: the exact solve
 * of the eight equations. Throws a RangeError for a degenerate quad (three points on a line).
 */
export function perspectiveTransform(src, dst) {
  const fn = 'perspectiveTransform';
  const s = readQuad(fn, 'src', src);
  const d = readQuad(fn, 'dst', dst);
  const a = [];
  const b = [];
  for (let i = 0; i < 4; ++i) {
    const [x, y] = s[i];
    const [u, v] = d[i];
    a.push([x, y, 1, 0, 0, 0, -x * u, -y * u]);
    b.push(u);
    a.push([0, 0, 0, x, y, 1, -x * v, -y * v]);
    b.push(v);
  }
  const h = solve(a, b);
  if (h === null || !h.every(Number.isFinite)) {
    throw new RangeError(`${fn}: no perspective map takes src onto dst (the equations are singular)`);
  }
  return [...h, 1];
}

// 3x3 helpers (row-major arrays of nine).
function multiply3(p, q) {
  const r = new Array(9);
  for (let i = 0; i < 3; ++i) {
    for (let j = 0; j < 3; ++j) r[i * 3 + j] = p[i * 3] * q[j] + p[i * 3 + 1] * q[3 + j] + p[i * 3 + 2] * q[6 + j];
  }
  return r;
}

// The inverse of a 3x3 matrix (the adjugate over the determinant), or null when singular.
function invert3(m) {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h;
  const B = f * g - d * i;
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (det === 0 || !Number.isFinite(det)) return null;
  return [A / det, (c * h - b * i) / det, (b * f - c * e) / det,
    B / det, (a * i - c * g) / det, (c * d - a * f) / det,
    C / det, (b * g - a * h) / det, (a * e - b * d) / det];
}

// Pixel position <-> normalised coordinate along a side of `size` pixels, as 3x3 diagonal
// maps for both axes (DESIGN.md section 2; AffineGrid's base coordinates use the same line,
// and a side of 1 pixel gives 0 with alignCorners).
function toNormalized([width, height], align) {
  const axis = (s) => (align ? (s > 1 ? [2 / (s - 1), -1] : [0, 0]) : [2 / s, 1 / s - 1]);
  const [sx, ox] = axis(width);
  const [sy, oy] = axis(height);
  return [sx, 0, ox, 0, sy, oy, 0, 0, 1];
}
function toPixels([width, height], align) {
  const axis = (s) => (align ? [(s - 1) / 2, (s - 1) / 2] : [s / 2, (s - 1) / 2]);
  const [sx, ox] = axis(width);
  const [sy, oy] = axis(height);
  return [sx, 0, ox, 0, sy, oy, 0, 0, 1];
}

/**
 * theta (six numbers) for warpAffine's kernel from the caller's pixel-space matrix `m` (named
 * `name` in errors), for an input and output of [width, height]: m maps source to destination
 * unless `inverse`; it is inverted here (RangeError when singular) and conjugated by the
 * normalisations with alignCorners false (pixel centres at integers either way).
 */
export function affineTheta(fn, name, m, inverse, inSize, outSize) {
  const map = inverse ? [...m, 0, 0, 1] : invertOrThrow(fn, name, [...m, 0, 0, 1]);
  // thetaFromPixelMap takes offsets from the images' centres ((S - 1) / 2 in pixels).
  const [a, b, c, d, e, f] = map;
  const cin = [(inSize[0] - 1) / 2, (inSize[1] - 1) / 2];
  const cout = [(outSize[0] - 1) / 2, (outSize[1] - 1) / 2];
  const centred = [a, b, a * cout[0] + b * cout[1] + c - cin[0], d, e, d * cout[0] + e * cout[1] + f - cin[1]];
  return thetaFromPixelMap(centred, inSize, outSize, false);
}

/**
 * The homography from output pixels to input pixels (nine numbers) that WarpPerspective takes,
 * from the caller's `h` (named `name` in errors) in `space`: pixel space inverts h unless
 * `inverse` (RangeError when singular); normalised space maps the output's normalised coordinates (AffineGrid's, with
 * `align`) to the input's, and is conjugated into pixels.
 */
export function perspectivePixelMap(fn, name, h, space, inverse, inSize, outSize, align) {
  if (space === 'normalized') {
    return multiply3(multiply3(toPixels(inSize, align), [...h]), toNormalized(outSize, align));
  }
  return inverse ? [...h] : invertOrThrow(fn, name, [...h]);
}

// The inverse of a source-to-destination matrix, or a RangeError naming what stops it.
function invertOrThrow(fn, name, m) {
  const bad = m.findIndex((v) => !Number.isFinite(v));
  if (bad >= 0) {
    throw new RangeError(`${fn}: ${name}[${bad}]: expected a finite number to invert the matrix, got ${m[bad]} (with inverse: true a non-finite entry gives transparent pixels where it reaches)`);
  }
  const inv = invert3(m);
  if (inv === null || !inv.every(Number.isFinite)) {
    throw new RangeError(`${fn}: ${name}: it is singular (determinant 0), so it cannot be inverted; give the output-to-input map with inverse: true`);
  }
  return inv;
}
