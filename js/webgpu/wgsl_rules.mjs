// The sampling rules of DESIGN.md section 2 as WGSL pieces, one function per rule, written as the C++ planner (src/kernels/fast/plan-inl.h) and reference (src/kernels/reference/grid_sample_ref.cc) compute them, operation for operation, so that a GPU without fused or reassociated arithmetic (SwiftShader) rounds as the CPU does.

// Beyond 2^23 pixels outside an axis every float is an integer and all taps pad alike
// (src/kernels/fast/constants.h kFarPixels); past |g| = 3 reflection reduces g modulo 4
// (kReflectReduceAbove).
const FAR_PIXELS = '8388608.0';
const REFLECT_REDUCE_ABOVE = '3.0';

/** Whether the float32 with bits `b` is finite: on the bits, as WGSL may assume no NaN or Inf. */
export const FINITE = /* wgsl */ `
fn finite_f32(b: u32) -> bool { return (b & 0x7f800000u) != 0x7f800000u; }
fn finite_f16(b: u32) -> bool { return (b & 0x7c00u) != 0x7c00u; }`;

/**
 * float16 storage read and written as u32 words (no shader-f16 needed): element i of a packed
 * array, and a float32 rounded to float16 bits half to even (src/kernels/half.h FloatToHalf:
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
 * 0), then far points clamped to [-2^23, S + 2^23]. plan-inl.h Denormalise.
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

/** The Keys cubic kernel, A = -0.75, in the reference's order of operations. */
export const CUBIC = /* wgsl */ `
fn cubic_near(t: f32) -> f32 { return ((1.25 * t - 2.25) * t) * t + 1.0; }
fn cubic_far(t: f32) -> f32 { return ((-0.75 * t - -3.75) * t + -6.0) * t - -3.0; }`;

/** Taps per axis of each mode: its window. */
export const TAPS = { nearest: 1, linear: 2, cubic: 4 };

/**
 * The first tap (unpadded) and the tap weights at the pixel position x: round half to even for
 * nearest, else floor and the linear or Keys weights of the fraction (plan-inl.h AxisTaps).
 */
export function axisTaps(mode) {
  const k = TAPS[mode];
  const body = {
    nearest: `*w = array<f32, 1>(1.0);
  return i32(round(x));`,
    linear: `let f = floor(x);
  *w = array<f32, 2>((f + 1.0) - x, x - f);
  return i32(f);`,
    cubic: `let f = floor(x);
  let t = x - f;
  *w = array<f32, 4>(cubic_far(t + 1.0), cubic_near(t), cubic_near(1.0 - t), cubic_far(2.0 - t));
  return i32(f) - 1;`,
  }[mode];
  return /* wgsl */ `
fn axis_taps(x: f32, w: ptr<function, array<f32, ${k}>>) -> i32 {
  ${body}
}`;
}

/**
 * One axis's taps after padding, as index and weight per tap (an index of -1: a tap the sum
 * skips). With `fold` (the CPU's fast planner: GridSampleFoldsTaps), the taps are a window of
 * consecutive pixels inside the axis whose slot weights add the weights of every tap padding
 * maps there (zeros padding: a dropped tap weighs 0 and its slot is still read), as
 * plan-inl.h PlanPixels; without, each tap keeps its weight and padded index, as the reference.
 */
export function padTaps(mode, padding, fold) {
  const k = TAPS[mode];
  const pad = {
    zeros: `if (tap[k] < 0 || tap[k] >= s) { ${fold ? 'w[k] = 0.0;' : 'tap[k] = -1;'} }`,
    border: 'tap[k] = clamp(tap[k], 0, s - 1);',
    reflection: 'tap[k] = reflect_index(tap[k], s);',
  }[padding];
  let place;
  if (!fold) {
    place = `for (var k = 0; k < ${k}; k++) { (*idx)[k] = tap[k]; (*wo)[k] = w[k]; }`;
  } else if (mode === 'nearest') {
    place = '(*idx)[0] = clamp(tap[0], 0, s - 1);\n  (*wo)[0] = w[0];';
  } else {
    place = `var lo = tap[0];
  for (var k = 1; k < ${k}; k++) { lo = min(lo, tap[k]); }
  let start = clamp(lo, 0, s - ${k});
  for (var j = 0; j < ${k}; j++) {
    var sum = 0.0;
    for (var k = 0; k < ${k}; k++) { sum = sum + select(0.0, w[k], tap[k] == start + j); }
    (*idx)[j] = start + j;
    (*wo)[j] = sum;
  }`;
  }
  const interior = fold && mode !== 'nearest'
    ? `if (first > -1 && first < s - ${k} + 1) {
    for (var k = 0; k < ${k}; k++) { (*idx)[k] = first + k; (*wo)[k] = w_in[k]; }
    return;
  }
  ` : '';
  return /* wgsl */ `
fn pad_taps(first: i32, w_in: array<f32, ${k}>, s: i32, idx: ptr<function, array<i32, ${k}>>, wo: ptr<function, array<f32, ${k}>>) {
  ${interior}var tap: array<i32, ${k}>;
  var w = w_in;
  for (var k = 0; k < ${k}; k++) {
    tap[k] = first + k;
    ${pad}
  }
  ${place}
}`;
}
