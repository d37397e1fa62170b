// Multi-scale deformable attention cases and their oracle: the chain exporters write (GridSample per level at 2 * loc - 1, bilinear / zeros / align 0, then weights multiplied and summed) computed with gs.gridSample and float64 sums, and a tolerance from float32 rounding.
import assert from 'node:assert/strict';

import { f16ToNumber, numberToF16 } from './halfs.mjs';
import { prng } from './random.mjs';

export const ENCODE = { float32: (a) => Float32Array.from(a), float16: (a) => Uint16Array.from(a, numberToF16) };
export const DECODE = { float32: (a) => Float64Array.from(a), float16: (a) => Float64Array.from(a, f16ToNumber) };

/**
 * A case: sizes N, Lq, M (heads), D (channels a head), P (points), levels [[H, W], ...]; values
 * uniform in [-1, 1), locations in `locations` ([lo, hi), outside [0, 1] on purpose), weights in
 * [0, 1); `special` sets every 7th location coordinate to NaN, +-Inf or +-1e30; `dtype` is the
 * value's ('float32' or 'float16'), `coordinates` the locations' and weights'. Levels are given
 * as onnxruntime holds them: int64 tensors.
 */
export function makeCase({ N = 1, Lq = 5, M = 2, D = 3, P = 2, levels = [[4, 6], [2, 3], [1, 1]], seed = 1,
  locations = [-0.25, 1.25], special = false, dtype = 'float32', coordinates = 'float32' } = {}) {
  const rnd = prng(seed);
  const L = levels.length;
  const S = levels.reduce((s, [h, w]) => s + h * w, 0);
  const uniform = (n, lo, hi) => Array.from({ length: n }, () => lo + (hi - lo) * rnd());
  const loc = uniform(N * Lq * M * L * P * 2, ...locations);
  if (special) {
    const odd = [NaN, Infinity, -Infinity, 1e30, -1e30];
    for (let i = 3, k = 0; i < loc.length; i += 7, ++k) loc[i] = odd[k % odd.length];
  }
  const starts = [];
  levels.reduce((s, [h, w]) => (starts.push(s), s + h * w), 0);
  return {
    sizes: { N, Lq, M, D, P, L, S, levels },
    value: { data: ENCODE[dtype](uniform(N * S * M * D, -1, 1)), dims: [N, S, M, D], type: dtype },
    spatialShapes: { data: BigInt64Array.from(levels.flat(), BigInt), dims: [L, 2], type: 'int64' },
    levelStartIndex: { data: BigInt64Array.from(starts, BigInt), dims: [L], type: 'int64' },
    samplingLocations: { data: ENCODE[coordinates](loc), dims: [N, Lq, M, L, P, 2], type: coordinates },
    attentionWeights: { data: ENCODE[coordinates](uniform(N * Lq * M * L * P, 0, 1)), dims: [N, Lq, M, L, P], type: coordinates },
  };
}

/** The case's five arguments, in the call's order. */
export const argumentsOf = (c) => [c.value, c.spatialShapes, c.levelStartIndex, c.samplingLocations, c.attentionWeights];

/**
 * The exporters' chain for case `c` on module `gs`: per head m and level l, X = value's
 * [N, D, H_l, W_l] map and grid = 2 * loc - 1 [N, Lq, P, 2] (exact in float64, rounded once to
 * float32 as the chain's float32 Sub does) through gs.gridSample (bilinear, zeros, align 0),
 * then y[n, q, m * D + d] = sum over l, p of weight * sample in float64. Returns {y, tolerance}
 * per output, float32 rounding only: each sample is rounded (2^-24 of max |value| at most,
 * a few times over); the kernel's pixel coordinate loc * W - 0.5 and the chain's
 * ((2 * loc - 1 + 1) * W - 1) / 2 round differently (up to 2 * max(H_l, W_l) * 2^-24 pixels,
 * times a slope of at most 2 max |value| a pixel); the kernel sums L * P terms in float32. So
 * each term's |weight| * max |value| counts (L * P + 8 + 4 * max(H_l, W_l)) * 2^-24. A float16
 * value adds half an ulp of the result (one rounding at the end).
 */
export function chain(gs, c) {
  const { N, Lq, M, D, P, L, S, levels } = c.sizes;
  const value = DECODE[c.value.type](c.value.data);
  const loc = DECODE[c.samplingLocations.type](c.samplingLocations.data);
  const weights = DECODE[c.attentionWeights.type](c.attentionWeights.data);
  const y = new Float64Array(N * Lq * M * D);
  const bound = new Float64Array(N * Lq * M * D);
  const vmax = value.reduce((a, v) => Math.max(a, Math.abs(v)), 0);
  let start = 0;
  for (let l = 0; l < L; ++l) {
    const [H, W] = levels[l];
    const rounding = (L * P + 8 + 4 * Math.max(H, W)) * 2 ** -24 * vmax;
    for (let m = 0; m < M && N * Lq * D * P > 0; ++m) {
      const x = new Float32Array(N * D * H * W);
      for (let n = 0; n < N; ++n) {
        for (let d = 0; d < D; ++d) {
          for (let i = 0; i < H * W; ++i) x[(n * D + d) * H * W + i] = value[((n * S + start + i) * M + m) * D + d];
        }
      }
      const grid = new Float32Array(N * Lq * P * 2);
      for (let n = 0; n < N; ++n) {
        for (let q = 0; q < Lq; ++q) {
          for (let p = 0; p < P; ++p) {
            for (let k = 0; k < 2; ++k) grid[((n * Lq + q) * P + p) * 2 + k] = 2 * loc[((((n * Lq + q) * M + m) * L + l) * P + p) * 2 + k] - 1;
          }
        }
      }
      const s = gs.gridSample({ data: x, shape: [N, D, H, W] }, { data: grid, shape: [N, Lq, P, 2] },
        { mode: 'bilinear', paddingMode: 'zeros', alignCorners: false });
      assert.deepEqual(s.shape, [N, D, Lq, P]);
      for (let n = 0; n < N; ++n) {
        for (let q = 0; q < Lq; ++q) {
          for (let p = 0; p < P; ++p) {
            const w = weights[(((n * Lq + q) * M + m) * L + l) * P + p];
            for (let d = 0; d < D; ++d) {
              const o = ((n * Lq + q) * M + m) * D + d;
              y[o] += w * s.data[((n * D + d) * Lq + q) * P + p];
              bound[o] += Math.abs(w) * rounding;
            }
          }
        }
      }
    }
    start += H * W;
  }
  const f16 = c.value.type === 'float16';
  const tolerance = Float64Array.from(bound, (b, i) => b + (f16 ? 2 ** -11 * Math.abs(y[i]) : 0));
  return { y, tolerance };
}

/** The result `r` ({data, shape}, or a heap tensor) matches the chain within its tolerance; `decode` reads its elements. */
export function assertMatchesChain(r, expected, c, what) {
  const { N, Lq, M, D } = c.sizes;
  assert.deepEqual([...(r.shape ?? r.dims)], [N, Lq, M * D], `${what}: shape`);
  const got = DECODE[c.value.type](r.data);
  assert.equal(got.length, expected.y.length, `${what}: length`);
  for (let i = 0; i < got.length; ++i) {
    const err = Math.abs(got[i] - expected.y[i]);
    if (!(err <= expected.tolerance[i])) {
      const [o, d] = [Math.floor(i / D), i % D];
      assert.fail(`${what}: y[n=${Math.floor(o / (Lq * M))}, q=${Math.floor(o / M) % Lq}, m=${o % M}, d=${d}] = ${got[i]}, chain ${expected.y[i]} (|diff| ${err} > ${expected.tolerance[i]})`);
    }
  }
}

// The same elements, bit for bit (sign of zero included), as GPU results against the wasm build's: u32 words of float32, u16 of float16.
export function assertSameBits(got, want, what) {
  assert.equal(got.dtype, want.dtype, `${what}: dtype`);
  assert.deepEqual(Array.from(got.shape), Array.from(want.shape), `${what}: shape`);
  const bits = (t) => (t.dtype === 'float32' ? new Uint32Array(t.data.buffer, t.data.byteOffset, t.data.length) : t.data);
  const [a, b] = [bits(got), bits(want)];
  const i = a.findIndex((v, k) => v !== b[k]);
  assert.equal(i, -1, `${what}: element ${i} differs from the other's: ${got.data[i]} vs ${want.data[i]}`);
}
