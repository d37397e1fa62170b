// The sampling rules of DESIGN.md section 2 as WGSL pieces, one function per rule, written as the C++ planner (src/kernels/planner/axis_plan-inl.h) and reference (src/kernels/reference/grid_sample_ref.cc) compute them, operation for operation, so that a GPU without fused or reassociated arithmetic (SwiftShader) rounds as the CPU does.

// Beyond 2^23 pixels outside an axis every float is an integer and all taps pad alike
// (src/kernels/rules/constants.h kFarPixels); past |g| = 3 reflection reduces g modulo 4
// (kReflectReduceAbove).
const FAR_PIXELS = '8388608.0';
const REFLECT_REDUCE_ABOVE = '3.0';

/** Whether the float32 with bits `b` is finite: on the bits, as WGSL may assume no NaN or Inf. */
export const FINITE = /* wgsl */ `
fn finite_f32(b: u32) -> bool { return (b & 0x7f800000u) != 0x7f800000u; }
fn finite_f16(b: u32) -> bool { return (b & 0x7c00u) != 0x7c00u; }`;

/**
 * float16 storage read and written as u32 words (no shader-f16 needed): element i of a packed
 * array, and a float32 rounded to float16 bits half to even (src/kernels/rules/half.h FloatToHalf:
 * overflow gives Inf, NaN stays a quiet NaN), on the bits so that no GPU conversion mode matters.
 */
export const HALF = /* wgsl */ `
fn half_bits(words: u32, i: u32) -> u32 { return (words >> ((i & 1u) * 16u)) & 0xffffu; }
fn half_to_f32(h: u32) -> f32 { return unpack2x16float(h).x; }
fn f32_to_half(v: f32) -> u32 {
  let u = bitcast<u32>(v);
  let sign = (u >> 16u) & 0x8000u;
  let a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) { return sign | 0x7c00u | select(0u, 0x200u, a > 0x7f800000u); }
  if (a >= 0x477ff000u) { return sign | 0x7c00u; }
  let e = i32(a >> 23u) - 112;              // float16 exponent field
  if (e <= 0) {                             // subnormal float16 (or zero)
    if (e < -10) { return sign; }
    let m = (a & 0x7fffffu) | 0x800000u;
    let shift = u32(14 - e);
    let r = m >> shift;
    let rest = m & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    return sign | (r + select(0u, 1u, rest > half || (rest == half && (r & 1u) == 1u)));
  }
  let r = (u32(e) << 10u) | ((a >> 13u) & 0x3ffu);
  let rest = a & 0x1fffu;
  return sign | (r + select(0u, 1u, rest > 0x1000u || (rest == 0x1000u && (r & 1u) == 1u)));
}`;

/**
 * A normalised coordinate g (finite) as a pixel position on an axis of `size`: reduced modulo 4
 * first for reflection (`reduce`) past |g| = 3, exactly (g - 4 trunc(g / 4) is fmod's value),
 * denormalised as ((g + 1) * scale - shift) * 0.5 (align 0: scale S, shift 1; align 1: S - 1 and
 * 0), then far points clamped to [-2^23, S + 2^23]. axis_plan-inl.h Denormalise.
 */
export function denormalise(align, reduce) {
  return /* wgsl */ `
fn denormalise(g_in: f32, size: i32) -> f32 {
  var g = g_in;
  ${reduce ? `if (abs(g) > ${REFLECT_REDUCE_ABOVE}) { g = g - 4.0 * trunc(g * 0.25); }` : ''}
  let x = ((g + 1.0) * f32(${align ? 'size - 1' : 'size'}) - ${align ? '0.0' : '1.0'}) * 0.5;
  return min(max(x, -${FAR_PIXELS}), f32(size) + ${FAR_PIXELS});
}`;
}

/**
 * A location u in [0, 1] of an axis of `size` pixels (multi-scale deformable attention's sampling
 * locations, finite) as a pixel position: u * S - 0.5 (rules/axis_line.h GRIDSAMPLE_PIXEL_OF_UNIT,
 * the align 0 line at g = 2 u - 1 without the rounding of 2 u - 1), then far points clamped as
 * denormalise clamps them (drivers/attention_driver.cc PlanPoints).
 */
export const UNIT_PIXEL = /* wgsl */ `
fn unit_pixel(u: f32, size: i32) -> f32 {
  let x = u * f32(size) - 0.5;
  return min(max(x, -${FAR_PIXELS}), f32(size) + ${FAR_PIXELS});
}`;

/**
 * The pixel (col, line) a finite location (u, v) reads on an h x w level under discrete sampling:
 * src/kernels/rules/discrete_tap.h's DiscreteTap, trunc(u * w + 0.5) and trunc(v * h + 0.5) in
 * float32 clamped to [0, h - 1], the column also to w - 1. Every level fits a u32 here.
 */
export const DISCRETE_TAP = /* wgsl */ `
fn discrete_index(u: f32, size: u32, last: u32) -> u32 {
  let t = u * f32(size) + 0.5;
  if (!(t >= 1.0)) { return 0u; }
  if (t >= 4294967296.0) { return last; }
  return min(u32(t), last);
}
fn discrete_tap(u: f32, v: f32, h: u32, w: u32, col: ptr<function, u32>, line: ptr<function, u32>) {
  *col = discrete_index(u, w, min(w, h) - 1u);
  *line = discrete_index(v, h, h - 1u);
}`;

/** Reflection of a tap index about [-0.5, S - 0.5] (align 0) or [0, S - 1] (align 1), as often as needed: the reference's ReflectIndex. */
export function reflectIndex(align) {
  const body = align
    ? `if (s == 1) { return 0; }
  let p = 2 * (s - 1);
  var m = i % p;
  if (m < 0) { m = m + p; }
  return select(p - m, m, m < s);`
    : `let p = 2 * s;
  var m = i % p;
  if (m < 0) { m = m + p; }
  return select(p - 1 - m, m, m < s);`;
  return /* wgsl */ `
fn reflect_index(i: i32, s: i32) -> i32 {
  ${body}
}`;
}

/**
 * Double-float arithmetic (pairs of float32, about 44 bits), since WGSL has no float64: error-free
 * transformations (Dekker, Knuth), exact when the GPU neither fuses nor reassociates (SwiftShader;
 * a fused multiply-add where it fuses only makes them more exact), and the pair rounded to one
 * float32 (nearest) or to odd (for a float16 that then rounds once). Needs FINITE.
 */
export const DOUBLE_FLOAT = /* wgsl */ `
fn quick_two_sum(a: f32, b: f32) -> vec2<f32> { let s = a + b; return vec2<f32>(s, b - (s - a)); }
fn two_sum(a: f32, b: f32) -> vec2<f32> {
  let s = a + b;
  let bb = s - a;
  return vec2<f32>(s, (a - (s - bb)) + (b - bb));
}
fn split(a: f32) -> vec2<f32> { let c = 4097.0 * a; let hi = c - (c - a); return vec2<f32>(hi, a - hi); }
fn two_prod(a: f32, b: f32) -> vec2<f32> {
  let p = a * b;
  if (!finite_f32(bitcast<u32>(p))) { return vec2<f32>(p, 0.0); }
  let u = split(a);
  let v = split(b);
  return vec2<f32>(p, ((u.x * v.x - p) + u.x * v.y + u.y * v.x) + u.y * v.y);
}
fn df_add(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  let s = two_sum(a.x, b.x);
  if (!finite_f32(bitcast<u32>(s.x))) { return vec2<f32>(s.x, 0.0); }
  let t = two_sum(a.y, b.y);
  let u = quick_two_sum(s.x, s.y + t.x);
  return quick_two_sum(u.x, u.y + t.y);
}
fn df_mul(a: vec2<f32>, b: f32) -> vec2<f32> {
  let p = two_prod(a.x, b);
  if (!finite_f32(bitcast<u32>(p.x))) { return vec2<f32>(p.x, 0.0); }
  return quick_two_sum(p.x, p.y + a.y * b);
}
// a / b for exact integers a, b (b > 0): a first quotient, then the remainder's.
fn df_div(a: f32, b: f32) -> vec2<f32> {
  let q = a / b;
  let p = two_prod(q, b);
  let r = (a - p.x) - p.y;
  return quick_two_sum(q, r / b);
}
// The float32 nearest the pair (float32 output), or the pair rounded to odd (a float16 output
// then rounds once, as DoubleToFloatRoundToOdd makes the CPU's).
fn nearest(v: vec2<f32>) -> f32 { return v.x + v.y; }
fn round_to_odd(v: vec2<f32>) -> f32 {
  let r = v.x + v.y;
  let lo = v.y - (r - v.x);
  let bits = bitcast<u32>(r);
  if (lo == 0.0 || (bits & 1u) == 1u || !finite_f32(bits)) { return r; }
  return bitcast<f32>(select(bits - 1u, bits + 1u, (lo > 0.0) == (r > 0.0)));
}`;

/** The Keys cubic kernel, A = -0.75, in the reference's order of operations. */
export const CUBIC = /* wgsl */ `
fn cubic_near(t: f32) -> f32 { return ((1.25 * t - 2.25) * t) * t + 1.0; }
fn cubic_far(t: f32) -> f32 { return ((-0.75 * t - -3.75) * t + -6.0) * t - -3.0; }`;

/** Taps per axis of each mode: its window. */
export const TAPS = { nearest: 1, linear: 2, cubic: 4 };

// Names 0 .. k - 1 joined: the fields or statements of one per tap.
const each = (k, f, sep = ', ') => Array.from({ length: k }, (_, j) => f(j)).join(sep);

/**
 * One axis's taps as scalars (a struct of TAPS indices i0.. and weights w0.., never an array, so
 * that no driver needs local memory for them), and the first tap (unpadded) and the tap weights
 * at the pixel position x: round half to even for nearest, else floor and the linear or Keys
 * weights of the fraction (axis_plan-inl.h AxisTaps).
 */
export function axisTaps(mode) {
  const k = TAPS[mode];
  const body = {
    nearest: `return Axis(i32(round(x)), 1.0);`,
    linear: `let f = floor(x);
  let i = i32(f);
  return Axis(i, i + 1, (f + 1.0) - x, x - f);`,
    cubic: `let f = floor(x);
  let t = x - f;
  let i = i32(f) - 1;
  return Axis(i, i + 1, i + 2, i + 3, cubic_far(t + 1.0), cubic_near(t), cubic_near(1.0 - t), cubic_far(2.0 - t));`,
  }[mode];
  return /* wgsl */ `
struct Axis { ${each(k, (j) => `i${j}: i32`)}, ${each(k, (j) => `w${j}: f32`)} }
fn axis_taps(x: f32) -> Axis {
  ${body}
}`;
}

/**
 * One axis's taps after padding, folded into a window of consecutive pixels inside the axis
 * whose slot weights add the weights of every tap padding maps there in tap order (zeros
 * padding: a dropped tap weighs 0 and its slot is still read), as the CPU folds them
 * (axis_plan-inl.h PlanPixels, grid_sample_ref.cc FoldTaps): an axis shorter than the window
 * starts it at 0, its slots past the axis weighing 0 and reading the last pixel. Unrolled over
 * the taps.
 */
export function padTaps(mode, padding) {
  const k = TAPS[mode];
  const pad = {
    zeros: (j) => `if (o.i${j} < 0 || o.i${j} >= s) { o.w${j} = 0.0; }`,
    border: (j) => `o.i${j} = clamp(o.i${j}, 0, s - 1);`,
    reflection: (j) => `o.i${j} = reflect_index(o.i${j}, s);`,
  }[padding];
  let place;
  if (mode === 'nearest') {
    place = 'o.i0 = clamp(o.i0, 0, s - 1);\n  return o;';
  } else {
    // Slot j's weight: 0 plus, tap by tap, the weight of each tap padded onto it.
    const sum = (j) => each(k, (t) => `select(0.0, o.w${t}, o.i${t} == start + ${j})`, ') + ');
    place = `let lo = ${'min('.repeat(k - 1)}o.i0, ${each(k - 1, (t) => `o.i${t + 1})`)};
  let start = max(min(max(lo, 0), s - ${k}), 0);
  ${each(k, (j) => `let w${j} = ${'('.repeat(k)}0.0 + ${sum(j)});`, '\n  ')}
  return Axis(${each(k, (j) => `min(start + ${j}, s - 1)`)}, ${each(k, (j) => `w${j}`)});`;
  }
  const interior = mode !== 'nearest' ? `if (t.i0 > -1 && t.i0 < s - ${k} + 1) { return t; }\n  ` : '';
  return /* wgsl */ `
fn pad_taps(t: Axis, s: i32) -> Axis {
  ${interior}var o = t;
  ${each(k, pad, '\n  ')}
  ${place}
}`;
}

/**
 * One axis of an output point's plan: the padded taps (padTaps) and weights (axisTaps) of the
 * finite coordinate v on an axis of `size`, taken to a pixel position by `toPixel`
 * (denormalise for a normalised coordinate, pixel_position for a pixel one).
 */
export function axisPlan(toPixel) {
  return /* wgsl */ `
fn axis_plan(v: f32, size: i32) -> Axis { return pad_taps(axis_taps(${toPixel}(v, size)), size); }`;
}

/**
 * The taps of a window of `k` taps on each of `rank` axes, in the CPU's order (axis 0, the
 * outermost, slowest): each tap's digits (its tap on each axis) and its weight's name. The
 * weights are `let`s of `lines`, the product of the axes' weights innermost axis first, as the
 * CPU multiplies them ((w_{r-1} w_{r-2}) ...) w_0: a tap's product shares its first factors with
 * its neighbours' (the same operations in the same order, once). `weight(a, j)`: axis a's tap j.
 */
export function tapWeights(rank, k, weight) {
  const lines = [];
  const taps = [];
  // name(a, digits): the product over axes a .. rank - 1 of the taps digits[a ..].
  const name = (a, digits) => (a === rank - 1 ? weight(a, digits[a]) : `q${a}_${digits.slice(a).join('')}`);
  // Tap t of n axes as its digits in base k, the first axis's most significant.
  const digitsOf = (t, n) => Array.from({ length: n }, (_, a) => Math.floor(t / k ** (n - 1 - a)) % k);
  for (let a = rank - 2; a >= 0; --a) {
    for (let t = 0; t < k ** (rank - a); ++t) {
      const digits = [...Array(a).fill(0), ...digitsOf(t, rank - a)];
      lines.push(`let ${name(a, digits)} = ${name(a + 1, digits)} * ${weight(a, digits[a])};`);
    }
  }
  for (let t = 0; t < k ** rank; ++t) {
    const digits = digitsOf(t, rank);
    taps.push({ t, digits, weight: name(0, digits) });
  }
  return { lines, taps };
}

/**
 * A finite pixel position u (Remap's maps, a homography's quotient: pixel_rule.h) on an axis of
 * `size`, as the reference takes it: with `reduce` (reflection) a far position (outside
 * [-period, 2 period], the period 2 S about -0.5 and S - 0.5, or 2 (S - 1) about 0 and S - 1
 * with `align`) moved by whole periods to fmod(u + centre, period) - centre, exactly, as
 * ReducePixel does in double: below 2^23 in float32 steps that are each exact, above it (u an
 * integer M 2^E) from |u| mod period in integers (from 2^52 on, u + 0.5 rounds to u in double, and
 * so here); then far points clamped to [-2^23, S + 2^23].
 */
export function pixelPosition(align, reduce) {
  const centre = align ? '0.0' : '0.5';
  const reduction = !reduce ? '' : /* wgsl */ `
  let period = ${align ? '2 * (size - 1)' : '2 * size'};
  let pf = f32(period);
  if (period > 0 && (u < -pf || u > 2.0 * pf)) {
    if (abs(u) < ${FAR_PIXELS}) {
      // a exact below 2^23; trunc(a / pf) the quotient or one more (a quotient just below an
      // integer rounded up), times pf an integer below 2^24; r then a remainder no larger
      // than |a| on a's grid (exact), brought to fmod's sign and range.
      let a = u + ${centre};
      var r = a - trunc(a / pf) * pf;
      if (a >= 0.0) {
        if (r < 0.0) { r = r + pf; }
        if (r >= pf) { r = r - pf; }
      } else {
        if (r > 0.0) { r = r - pf; }
        if (r <= -pf) { r = r + pf; }
      }
      u = r - ${centre};
    } else {
      let m = f32(integer_mod(bitcast<u32>(u), u32(period)));
      ${align ? 'u = select(m, -m, u < 0.0);' : `// u + 0.5 is exact in double on [-2^52, 2^52); beyond, it rounds to u.
      if (u < 4503599627370496.0 && u >= -4503599627370496.0) {
        u = select(m, select(-m, -pf, m == 0.0), u < 0.0);
      } else {
        u = select(m, -m, u < 0.0) - 0.5;
      }`}
    }
  }`;
  const integerMod = !reduce ? '' : /* wgsl */ `
// |v| mod p for the float32 bits of an integer |v| = M 2^E >= 2^23 (p < 2^26): 2^E mod p by
// doubling, then M times it by double-and-add, every value below 2^27.
fn integer_mod(bits: u32, p: u32) -> u32 {
  let e = ((bits >> 23u) & 0xffu) - 150u;
  let m = (bits & 0x7fffffu) | 0x800000u;
  var t = 1u % p;
  for (var k = 0u; k < e; k++) { t = (2u * t) % p; }
  var acc = 0u;
  for (var b = 23; b >= 0; b--) {
    acc = (2u * acc) % p;
    if (((m >> u32(b)) & 1u) == 1u) { acc = (acc + t) % p; }
  }
  return acc;
}`;
  return /* wgsl */ `${integerMod}
fn pixel_position(u_in: f32, size: i32) -> f32 {
  var u = u_in;${reduction}
  return min(max(u, -${FAR_PIXELS}), f32(size) + ${FAR_PIXELS});
}`;
}
