// Pixel-space matrices as OpenCV writes them (rotationMatrix, perspectiveTransform) and their conversion into what the kernels take: a pixel homography from output to input (pixel-space warpAffine and every warpPerspective).
//
// Pixel space (DESIGN.md section 9) is OpenCV's: pixel centres at integer coordinates, the
// origin at the top-left pixel's centre, and a matrix that maps the source to the destination
// unless `inverse` says it already maps the destination (output) to the source (OpenCV's
// WARP_INVERSE_MAP). Normalised space is AffineGrid's: theta or a 3x3 homography from the
// output's normalised coordinates to the input's. All arithmetic here is in double.
import { describe } from '../core/messages.mjs';
import { normalizedLine, pixelLine } from './axis_line.mjs';
import { cosSin } from './pixel_space.mjs';

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

// Sums of products that no intermediate overflow or underflow can spoil: each factor is split
// into a mantissa and a power of two, so that only the final value is rounded into a double
// (Infinity only where it lies beyond double's range). A wide number is [mantissa, exponent].

// x * 2 ** e for any integer e (2 ** e alone leaves double's range beyond ±1023).
export function ldexp(x, e) {
  let y = x;
  let k = e;
  for (; k > 1000; k -= 1000) y *= 2 ** 1000;
  for (; k < -1000; k += 1000) y *= 2 ** -1000;
  return y * 2 ** k;
}

// x as a wide number, its mantissa near 1 in magnitude.
function wide(x) {
  if (x === 0) return [0, 0];
  const e = Math.floor(Math.log2(Math.abs(x)));
  return [ldexp(x, -e), e];
}

// Σ over `products` (each a list of factors: numbers or wide numbers) of the factors' product.
function sumOfProducts(products) {
  const terms = products.map((factors) => factors.reduce(([m, e], f) => {
    const [fm, fe] = typeof f === 'number' ? wide(f) : f;
    return [m * fm, e + fe];
  }, [1, 0]));
  const top = Math.max(...terms.filter(([m]) => m !== 0).map(([, e]) => e));
  if (top === -Infinity) return [0, 0];
  const [m, e] = wide(terms.reduce((sum, [tm, te]) => sum + ldexp(tm, te - top), 0));
  return [m, e + top];
}

const toNumber = ([m, e]) => ldexp(m, e);
const quotient = ([am, ae], [bm, be]) => ldexp(am / bm, ae - be);
const log2Abs = ([m, e]) => Math.log2(Math.abs(m)) + e;

/**
 * The 2x3 matrix (six numbers, row-major) that rotates by `angleDeg` degrees about `center`
 * and scales by `scale`, as `cv.getRotationMatrix2D`: a positive angle turns the picture
 * counter-clockwise on screen (y down). Meant for `warpAffine(image, m, { space: 'pixel' })`.
 * A RangeError where an entry lies beyond double's range.
 */
export function rotationMatrix(center, angleDeg, scale = 1) {
  const fn = 'rotationMatrix';
  const [cx, cy] = readPoint(fn, 'center', center);
  readNumber(fn, 'angleDeg', angleDeg);
  readNumber(fn, 'scale', scale);
  const [cos, sin] = cosSin(angleDeg);
  const a = scale * cos;
  const b = scale * sin;
  // OpenCV's (1 - a) cx - b cy and b cx + (1 - a) cy, summed in wide numbers: with a centre
  // near 1e308 a product may pass double's range where the entry does not.
  const c = toNumber(sumOfProducts([[cx], [-scale, cos, cx], [-scale, sin, cy]]));
  const f = toNumber(sumOfProducts([[cy], [scale, sin, cx], [-scale, cos, cy]]));
  const m = [a, b, c, -b, a, f];
  const bad = m.findIndex((v) => !Number.isFinite(v));
  if (bad >= 0) {
    throw new RangeError(`${fn}: scale: ${scale} about center [${cx}, ${cy}] gives entry ${bad} of the matrix beyond double's range (about 1.8e308)`);
  }
  return m;
}

// Twice the signed area of the triangle p, q, r.
function cross(p, q, r) {
  return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
}

// The quad's four points, checked: finite, no three on a line (then no homography maps it
// onto a quad). Returned in the quad's own frame with that frame: moved by the centre of its
// bounding box and scaled by a power of two, 2 ** exp (exact), to within [-1, 1], so that the
// collinearity test and the solve see the shape alone, whatever its size or place.
function readQuad(fn, what, quad) {
  if (!Array.isArray(quad)) throw new TypeError(`${fn}: ${what}: expected 4 points [[x, y], x4], got ${describe(quad)}`);
  if (quad.length !== 4) throw new RangeError(`${fn}: ${what}: expected 4 points [[x, y], x4], got ${quad.length}`);
  const p = quad.map((q, i) => readPoint(fn, `${what}[${i}]`, q));
  // Halves first: min + max and max - min may pass double's range where the halves do not.
  const axes = [0, 1].map((k) => {
    const lo = Math.min(...p.map((q) => q[k]));
    const hi = Math.max(...p.map((q) => q[k]));
    return { centre: lo / 2 + hi / 2, half: hi / 2 - lo / 2 };
  });
  const half = Math.max(axes[0].half, axes[1].half);
  const exp = half > 0 ? Math.ceil(Math.log2(half)) : 0;
  const q = p.map((point) => point.map((v, k) => ldexp(v - axes[k].centre, -exp)));
  for (const [i, j, k] of [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]) {
    if (Math.abs(cross(q[i], q[j], q[k])) <= 1e-12) {
      throw new RangeError(`${fn}: ${what}: points ${i}, ${j} and ${k} lie on one line (a degenerate quad): no perspective map takes it onto a quad`);
    }
  }
  return { q, centre: axes.map((a) => a.centre), exp };
}

// 3x3 helpers (row-major arrays of nine).
function multiply3(p, q) {
  const r = new Array(9);
  for (let i = 0; i < 3; ++i) {
    for (let j = 0; j < 3; ++j) r[i * 3 + j] = p[i * 3] * q[j] + p[i * 3 + 1] * q[3 + j] + p[i * 3 + 2] * q[6 + j];
  }
  return r;
}

// The adjugate, in wide numbers.
function adjugate3([a, b, c, d, e, f, g, h, i]) {
  const minor = (p, q, r, t) => sumOfProducts([[p, q], [-r, t]]);
  return [minor(e, i, f, h), minor(c, h, b, i), minor(b, f, c, e),
    minor(f, g, d, i), minor(a, i, c, g), minor(c, d, a, f),
    minor(d, h, e, g), minor(b, g, a, h), minor(a, e, b, d)];
}

// The inverse (the adjugate over the determinant), or null when singular. In wide numbers, so
// that an inverse within double's range is found however large or small the determinant and
// the products on the way (1e-200 I has determinant 1e-600, [1, 0, 1e308, ...] products of
// 1e308 and more).
function invert3(m) {
  const adj = adjugate3(m);
  const det = sumOfProducts([[m[0], adj[0]], [m[1], adj[3]], [m[2], adj[6]]]);
  return det[0] === 0 ? null : adj.map((v) => quotient(v, det));
}

// The homography taking quad s onto quad d (points within [-1, 1], no three on a line) by the
// projective basis, which assumes no entry is 1: the eight equations with h8 = 1 have no
// solution where the origin maps to infinity (OpenCV's issue 26916). With S the points s0,
// s1, s2 as homogeneous columns and λ = adj(S) s3 (by Cramer's rule, twice the areas of the
// triangles with s3 in place of each point), A = S diag(λ) takes e0, e1, e2 and (1, 1, 1) to
// s0..s3, and B likewise for d with μ; then H = B adj(A) = D diag(μ0 λ1 λ2, μ1 λ0 λ2, μ2 λ0 λ1) adj(S).
function basisHomography(s, d) {
  const weights = (p) => [cross(p[3], p[1], p[2]), cross(p[0], p[3], p[2]), cross(p[0], p[1], p[3])];
  const columns = (p) => [p[0][0], p[1][0], p[2][0], p[0][1], p[1][1], p[2][1], 1, 1, 1];
  const l = weights(s);
  const u = weights(d);
  const w = [u[0] * l[1] * l[2], u[1] * l[0] * l[2], u[2] * l[0] * l[1]];
  return multiply3(columns(d).map((v, k) => v * w[k % 3]), adjugate3(columns(s)).map(toNumber));
}

/**
 * The 3x3 homography (nine numbers, row-major) taking the four points `src` onto the four
 * points `dst` ([[x, y] x4] each), as `cv.getPerspectiveTransform`: h8 = 1; or where h8 is 0
 * (the origin maps to infinity) the matrix of norm 1 that OpenCV 4.12 returns there, its sign
 * chosen so that w > 0 at the src points (warpPerspective leaves w <= 0 transparent). Throws a
 * RangeError for a degenerate quad (three points on a line), and where src and dst differ so
 * much in scale that an entry lies beyond double's range.
 */
export function perspectiveTransform(src, dst) {
  const fn = 'perspectiveTransform';
  const s = readQuad(fn, 'src', src);
  const d = readQuad(fn, 'dst', dst);
  const n = basisHomography(s.q, d.q);
  // Back from the quads' frames: H ∝ [2^d.exp I, d.centre; 0, 1] n [I, -s.centre; 0, 2^s.exp],
  // in wide numbers, as its entries may span more than double's range between them.
  const [sx, sy] = s.centre;
  const sScale = [1, s.exp];
  const g = [0, 1, 2].flatMap((r) => [wide(n[3 * r]), wide(n[3 * r + 1]),
    sumOfProducts([[n[3 * r + 2], sScale], [-n[3 * r], sx], [-n[3 * r + 1], sy]])]);
  const h = g.map((v, k) => (k >= 6 ? v : sumOfProducts([[[1, d.exp], v], [d.centre[Math.floor(k / 3)], g[6 + (k % 3)]]])));
  // h8 = 1 unless h8 (w at the origin) is 0 within the rounding of the sum that gave it.
  const h8Terms = sumOfProducts([[Math.abs(n[8]), sScale], [Math.abs(n[6]), Math.abs(sx)], [Math.abs(n[7]), Math.abs(sy)]]);
  if (h[8][0] !== 0 && Math.abs(quotient(h[8], h8Terms)) > 1e-12) {
    const m = h.map((v) => quotient(v, h[8]) + 0); // + 0: no -0 where OpenCV writes 0
    if (!m.every(Number.isFinite)) {
      throw new RangeError(`${fn}: src and dst differ so much in scale that the homography between them has entries beyond double's range (about 1.8e308) with h8 = 1`);
    }
    return m;
  }
  // w at each src point is 2 ** s.exp times n's at the point in the quad's frame.
  const w = s.q.reduce((sum, [x, y]) => sum + n[6] * x + n[7] * y + n[8], 0);
  const top = Math.max(...h.map(log2Abs));
  const scaled = h.map(([m, e]) => ldexp(m, e - top));
  const norm = Math.hypot(...scaled) * (w < 0 ? -1 : 1);
  return scaled.map((v) => v / norm + 0);
}

// An axis line (axis_line.mjs) for both sides of an image [width, height], as a 3x3 diagonal map.
function lineMap(line, [width, height], align) {
  const [sx, ox] = line(width, align);
  const [sy, oy] = line(height, align);
  return [sx, 0, ox, 0, sy, oy, 0, 0, 1];
}

/**
 * The homography from output pixels to input pixels (nine numbers) that WarpPerspective takes,
 * from the caller's `h` (named `name` in errors) in `space`: pixel space inverts h unless
 * `inverse` (RangeError when singular); normalised space maps the output's normalised
 * coordinates (AffineGrid's, with `align`) to the input's, and is conjugated into pixels. A
 * pixel-space affine matrix is the homography with bottom row (0, 0, 1): the kernel samples its
 * positions as they are, as OpenCV's warpAffine.
 */
export function perspectivePixelMap(fn, name, h, space, inverse, inSize, outSize, align) {
  if (space === 'normalized') {
    return multiply3(multiply3(lineMap(pixelLine, inSize, align), [...h]),
      lineMap(normalizedLine, outSize, align));
  }
  return inverse ? [...h] : invertOrThrow(fn, name, [...h]);
}

// The inverse of a source-to-destination 3x3 matrix (nine numbers), or a RangeError naming what
// stops it (`fn`'s argument `name`; `inverseOption`: how the caller names the option that takes
// the output-to-input map instead, the command line's --inverse).
export function invertOrThrow(fn, name, m, inverseOption = 'inverse: true') {
  const bad = m.findIndex((v) => !Number.isFinite(v));
  if (bad >= 0) {
    throw new RangeError(`${fn}: ${name}[${bad}]: expected a finite number to invert the matrix, got ${m[bad]} (with ${inverseOption} a non-finite entry gives transparent pixels where it reaches)`);
  }
  const inv = invert3(m);
  if (inv === null) {
    throw new RangeError(`${fn}: ${name}: it is singular (determinant 0), so it cannot be inverted; give the output-to-input map with ${inverseOption}`);
  }
  if (!inv.every(Number.isFinite)) {
    throw new RangeError(`${fn}: ${name}: its inverse has entries beyond double's range (about 1.8e308): it is too nearly singular to invert; give the output-to-input map with ${inverseOption}`);
  }
  return inv;
}
