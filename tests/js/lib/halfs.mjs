// float16 / bfloat16 <-> number conversions for the tests, written from IEEE 754 independently of the library.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE binary16 bits -> number. */
export function f16ToNumber(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** number -> IEEE binary16 bits, rounded to nearest even (exact for the small values the tests use). */
export function numberToF16(x) {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  let a = Math.abs(x);
  if (a >= 65520) return sign | 0x7c00; // rounds to infinity
  if (a < 2 ** -14) {
    // subnormal: units of 2^-24
    return sign | roundHalfEven(a * 2 ** 24);
  }
  let exp = Math.floor(Math.log2(a));
  if (2 ** exp > a) exp -= 1; // guard log2 rounding
  if (2 ** (exp + 1) <= a) exp += 1;
  let mant = roundHalfEven((a / 2 ** exp - 1) * 1024);
  if (mant === 1024) { mant = 0; exp += 1; }
  if (exp > 15) return sign | 0x7c00;
  return sign | ((exp + 15) << 10) | mant;
}

/** bfloat16 bits -> number (the upper half of a float32). */
export function bf16ToNumber(h) {
  u32[0] = (h & 0xffff) << 16;
  return f32[0];
}

/** number -> bfloat16 bits via float32, rounded to nearest even. */
export function numberToBf16(x) {
  f32[0] = x;
  const bits = u32[0];
  if (Number.isNaN(f32[0])) return 0x7fc0;
  const lower = bits & 0xffff;
  let upper = bits >>> 16;
  if (lower > 0x8000 || (lower === 0x8000 && (upper & 1))) upper += 1;
  return upper & 0xffff;
}

export function roundHalfEven(v) {
  const f = Math.floor(v);
  const d = v - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}
