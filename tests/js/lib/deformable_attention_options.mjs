// Cases and oracles of multiScaleDeformableAttention's options: points per level (the rank-6 call padded with weight-0 points, the chain per level) and discrete sampling (a float64 gather written from D-FINE's formula).
import assert from 'node:assert/strict';

import { prng } from './random.mjs';
import { chain, DECODE, ENCODE } from './deformable_attention_chain.mjs';

/**
 * A case of points per level: sizes N, Lq, M, D, levels [[H, W], ...], points [P_l, ...];
 * values uniform in [-1, 1), locations uniform in `locations`, weights in [0, 1). Locations
 * [N, Lq, M, sum(P_l), 2] and weights [N, Lq, M, sum(P_l)] (float32), levels as int64 tensors.
 */
export function makeListedCase({ N = 1, Lq = 4, M = 2, D = 3, levels = [[4, 6], [5, 2], [1, 1]], points = [3, 1, 2], seed = 1,
  locations = [-0.25, 1.25], dtype = 'float32' } = {}) {
  const rnd = prng(seed);
  const L = levels.length;
  const P = points.reduce((a, b) => a + b, 0);
  const S = levels.reduce((s, [h, w]) => s + h * w, 0);
  const uniform = (n, lo, hi) => Array.from({ length: n }, () => lo + (hi - lo) * rnd());
  const loc = Float32Array.from(uniform(N * Lq * M * P * 2, ...locations));
  const starts = [];
  levels.reduce((s, [h, w]) => (starts.push(s), s + h * w), 0);
  return {
    sizes: { N, Lq, M, D, L, S, P, levels, points },
    value: { data: ENCODE[dtype](uniform(N * S * M * D, -1, 1)), dims: [N, S, M, D], type: dtype },
    spatialShapes: { data: BigInt64Array.from(levels.flat(), BigInt), dims: [L, 2], type: 'int64' },
    levelStartIndex: { data: BigInt64Array.from(starts, BigInt), dims: [L], type: 'int64' },
    samplingLocations: { data: loc, dims: [N, Lq, M, P, 2], type: 'float32' },
    attentionWeights: { data: Float32Array.from(uniform(N * Lq * M * P, 0, 1)), dims: [N, Lq, M, P], type: 'float32' },
  };
}

/**
 * Coordinates at the discrete rule's edges on levels of 2 to 6 pixels: exact .5 boundaries
 * (x * W + 0.5 an integer: 0.125, 0.375 on W = 4; 0.25, 0.75 on W = 2; 0.5 on W = 1 or 3) and
 * the float32 just below them, 0, 1, negatives (trunc toward zero: -0.05 reads 0 as -0.9 does),
 * past 1, and NaN / +-Inf (sample 0: the library's rule; PyTorch's int64 conversion of them is
 * undefined).
 */
export const EDGE_COORDINATES = [0.125, Math.fround(0.125 - 2 ** -27), 0.375, Math.fround(0.375 - 2 ** -26), 0.25, 0.75,
  0.5, Math.fround(0.5 - 2 ** -25), 0, 1, -0.05, -0.9, -3, 1.2, 7, 0.99, NaN, Infinity, -Infinity, 1 / 3, 2 / 3, 0.1];

/** The case's five arguments, in the call's order (the options apart). */
export const listedArguments = (c) => [c.value, c.spatialShapes, c.levelStartIndex, c.samplingLocations, c.attentionWeights];

/**
 * The rank-6 call of case `c`: P = max P_l points a level, level l's first P_l the case's, the
 * rest at (0.5, 0.5) with weight 0 (a sample times 0 adds +-0: the same float32 sums).
 */
export function paddedArguments(c) {
  const { N, Lq, M, L, P: total, points } = c.sizes;
  const P = Math.max(...points);
  const loc = new Float32Array(N * Lq * M * L * P * 2).fill(0.5);
  const w = new Float32Array(N * Lq * M * L * P);
  for (let row = 0; row < N * Lq * M; ++row) {
    let j = row * total;
    for (let l = 0; l < L; ++l) {
      for (let p = 0; p < points[l]; ++p, ++j) {
        const k = (row * L + l) * P + p;
        w[k] = c.attentionWeights.data[j];
        loc[2 * k] = c.samplingLocations.data[2 * j];
        loc[2 * k + 1] = c.samplingLocations.data[2 * j + 1];
      }
    }
  }
  return [c.value, c.spatialShapes, c.levelStartIndex,
    { data: loc, dims: [N, Lq, M, L, P, 2], type: 'float32' }, { data: w, dims: [N, Lq, M, L, P], type: 'float32' }];
}

/**
 * The chain oracle (lib/deformable_attention_chain.mjs) level by level: one single-level case of
 * P_l points each (the value's rows of that level, its locations and weights), the results and
 * tolerances summed, plus the kernel's longer float32 sum (sum(P_l) terms).
 */
export function chainPerLevel(gs, c) {
  const { N, Lq, M, D, L, S, P: total, levels, points } = c.sizes;
  const y = new Float64Array(N * Lq * M * D);
  const tolerance = new Float64Array(N * Lq * M * D);
  const value = DECODE[c.value.type](c.value.data);
  const vmax = value.reduce((a, v) => Math.max(a, Math.abs(v)), 0);
  let start = 0;
  let first = 0;  // level l's first point in a row
  for (let l = 0; l < L; ++l) {
    const [H, W] = levels[l];
    const P = points[l];
    const v = new Float32Array(N * H * W * M * D);
    for (let n = 0; n < N; ++n) {
      v.set(value.subarray((n * S + start) * M * D, (n * S + start + H * W) * M * D), n * H * W * M * D);
    }
    const loc = new Float32Array(N * Lq * M * P * 2);
    const w = new Float32Array(N * Lq * M * P);
    for (let row = 0; row < N * Lq * M; ++row) {
      loc.set(c.samplingLocations.data.subarray(2 * (row * total + first), 2 * (row * total + first + P)), 2 * row * P);
      w.set(c.attentionWeights.data.subarray(row * total + first, row * total + first + P), row * P);
    }
    const one = {
      sizes: { N, Lq, M, D, P, L: 1, S: H * W, levels: [[H, W]] },
      value: { data: v, type: 'float32' }, samplingLocations: { data: loc, type: 'float32' }, attentionWeights: { data: w, type: 'float32' },
    };
    const part = chain(gs, one);
    for (let i = 0; i < y.length; ++i) {
      y[i] += part.y[i];
      tolerance[i] += part.tolerance[i];
    }
    start += H * W;
    first += P;
  }
  const f16 = c.value.type === 'float16';
  for (let i = 0; i < y.length; ++i) {
    const row = Math.floor(i / D);
    const weights = c.attentionWeights.data.subarray(row * total, (row + 1) * total).reduce((a, v) => a + Math.abs(v), 0);
    tolerance[i] += total * 2 ** -24 * vmax * weights + (f16 ? 2 ** -11 * Math.abs(y[i]) : 0);
  }
  return { y, tolerance };
}

/**
 * D-FINE's discrete index (src/zoo/dfine/utils.py, deformable_attention_core_func_v2,
 * method='discrete'): (loc * size + 0.5).to(torch.int64) in float32 (the product and the sum
 * each rounded; the conversion truncates toward zero), then .clamp(0, h - 1) with h the level's
 * height for both coordinates. `widthLast`: the library's extra clamp of the column to W - 1
 * where W < H (PyTorch would raise an IndexError there).
 */
function dfineIndex(coordinate, size, h, widthLast = Infinity) {
  const t = Math.fround(Math.fround(coordinate * size) + 0.5);
  return Math.min(Math.max(Math.trunc(t), 0), h - 1, widthLast);
}

/**
 * The discrete oracle for case `c` (locations [N, Lq, M, L, P, 2] with `points` undefined, or
 * [N, Lq, M, sum(P_l), 2] with points [P_l, ...]): per point value_l[n, row, col, m, d] at
 * D-FINE's (col, row), times its weight, summed in float64; a non-finite coordinate samples 0.
 * Returns {y, tolerance}: the kernel's float32 sum of K terms, K * 2^-24 of sum |w * v|, and
 * half an ulp of a float16 result.
 */
export function discreteOracle(c, points) {
  const { N, Lq, M, D, S, levels } = c.sizes;
  const L = levels.length;
  const per = points ?? new Array(L).fill(c.samplingLocations.dims[4]);
  const total = per.reduce((a, b) => a + b, 0);
  const value = DECODE[c.value.type](c.value.data);
  const loc = DECODE[c.samplingLocations.type](c.samplingLocations.data);
  const weights = DECODE[c.attentionWeights.type](c.attentionWeights.data);
  const y = new Float64Array(N * Lq * M * D);
  const magnitude = new Float64Array(N * Lq * M * D);
  for (let n = 0; n < N; ++n) {
    for (let q = 0; q < Lq; ++q) {
      for (let m = 0; m < M; ++m) {
        const row = (n * Lq + q) * M + m;
        let j = row * total;
        let start = 0;
        for (let l = 0; l < L; ++l) {
          const [H, W] = levels[l];
          for (let p = 0; p < per[l]; ++p, ++j) {
            const [x, yy] = [loc[2 * j], loc[2 * j + 1]];
            if (!Number.isFinite(x) || !Number.isFinite(yy)) continue;
            const col = dfineIndex(x, W, H, W - 1);
            const line = dfineIndex(yy, H, H);
            for (let d = 0; d < D; ++d) {
              const v = value[((n * S + start + line * W + col) * M + m) * D + d];
              y[row * D + d] += weights[j] * v;
              magnitude[row * D + d] += Math.abs(weights[j] * v);
            }
          }
          start += H * W;
        }
      }
    }
  }
  const f16 = c.value.type === 'float16';
  const tolerance = Float64Array.from(magnitude, (s, i) => (total + 1) * 2 ** -24 * s + (f16 ? 2 ** -11 * Math.abs(y[i]) : 0));
  return { y, tolerance };
}

/** The result `r` matches `expected` ({y, tolerance}) element by element. */
export function assertMatches(r, expected, dtype, what) {
  const got = DECODE[dtype](r.data);
  assert.equal(got.length, expected.y.length, `${what}: length`);
  for (let i = 0; i < got.length; ++i) {
    const err = Math.abs(got[i] - expected.y[i]);
    if (!(err <= expected.tolerance[i])) assert.fail(`${what}: y[${i}] = ${got[i]}, oracle ${expected.y[i]} (|diff| ${err} > ${expected.tolerance[i]})`);
  }
}
