// Seeded random numbers for the tests: a PRNG and typed arrays of uniform values, so that failures reproduce.

/** A seeded PRNG in [0, 1) (mulberry32). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` values uniform in [lo, hi) from `seed`, in a `Type` array. */
export function random(n, seed, lo = 0, hi = 1, Type = Float32Array) {
  const next = prng(seed);
  return Type.from({ length: n }, () => lo + (hi - lo) * next());
}
