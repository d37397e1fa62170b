// gs.multiScaleDeformableAttention's options.pointsPerLevel and options.sampling in every wasm variant: points per level against the rank-6 call padded with weight-0 points and the chain per level; discrete sampling against a float64 gather from D-FINE's formula (edge coordinates, W < H and W > H levels, float16 value); the heap tier, libraryRules, the pool's bands; hostile options with one-line errors.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createPool, load, simdSupported, threadsSupported } from '../../js/node.mjs';
import { libraryRules } from '../../js/core/api.mjs';
import { SPLIT_COST } from '../../js/pool/create_pool.mjs';
import { modules } from './lib/api_values.mjs';
import { assertSame, progress } from './lib/pool_checks.mjs';
import { argumentsOf, makeCase } from './lib/deformable_attention_chain.mjs';
import { assertMatches, chainPerLevel, discreteOracle, EDGE_COORDINATES, listedArguments, makeListedCase, paddedArguments } from './lib/deformable_attention_options.mjs';

const threaded = simdSupported() && threadsSupported() ? await load({ numThreads: 3 }) : null;
const all = { ...modules, ...(threaded ? { 'simd-threads': threaded } : {}) };

// Levels wider than high (D-FINE clamps the columns to H - 1: columns 2..5 of the 2x6 level are
// never read), higher than wide (the library also clamps the column to W - 1, where PyTorch
// raises), square, 1x1.
const LEVELS = [[2, 6], [5, 2], [4, 4], [1, 1]];
const LISTED = {
  'P_l = 3, 1, 2, 4 over 4 levels': { levels: LEVELS, points: [3, 1, 2, 4], seed: 1 },
  'N = 2, one point on the first level, D = 8': { N: 2, Lq: 5, M: 3, D: 8, levels: [[6, 7], [3, 4]], points: [1, 5], seed: 2 },
  'one level': { Lq: 3, M: 1, D: 5, levels: [[3, 5]], points: [6], seed: 3 },
  'float16 value': { Lq: 6, M: 2, D: 4, levels: [[5, 7], [3, 4], [2, 2]], points: [2, 4, 1], dtype: 'float16', seed: 4 },
};

for (const [variant, gs] of Object.entries(all)) {
  describe(`multiScaleDeformableAttention options, ${gs.backend} (${variant}, ${gs.threads} thread${gs.threads > 1 ? 's' : ''})`, () => {
    for (const [name, sizes] of Object.entries(LISTED)) {
      test(`pointsPerLevel: the padded rank-6 call's bytes and the chain per level: ${name}`, () => {
        const c = makeListedCase(sizes);
        const r = gs.multiScaleDeformableAttention(...listedArguments(c), { pointsPerLevel: sizes.points });
        assert.deepEqual(r.shape, [c.sizes.N, c.sizes.Lq, c.sizes.M * c.sizes.D]);
        assert.equal(r.dtype, c.value.type);
        assert.deepEqual(r.data, gs.multiScaleDeformableAttention(...paddedArguments(c)).data);
        assertMatches(r, chainPerLevel(gs, c), c.value.type, name);
        // Discrete sampling on the same ragged points, against D-FINE's gather.
        const d = gs.multiScaleDeformableAttention(...listedArguments(c), { pointsPerLevel: sizes.points, sampling: 'discrete' });
        assertMatches(d, discreteOracle(c, sizes.points), c.value.type, `${name}, discrete`);
        assert.deepEqual(d.data, gs.multiScaleDeformableAttention(...paddedArguments(c), { sampling: 'discrete' }).data);
      });
    }

    test('pointsPerLevel in every form gives the same bytes: numbers, bigints, BigInt64Array, Int32Array', () => {
      const c = makeListedCase({ seed: 5 });
      const want = gs.multiScaleDeformableAttention(...listedArguments(c), { pointsPerLevel: [3, 1, 2] }).data;
      for (const form of [[3n, 1n, 2n], BigInt64Array.of(3n, 1n, 2n), Int32Array.of(3, 1, 2)]) {
        assert.deepEqual(gs.multiScaleDeformableAttention(...listedArguments(c), { pointsPerLevel: form }).data, want, String(form));
      }
      // Equal P_l: the rank-5 locations are the rank-6 ones reshaped.
      const six = makeCase({ Lq: 3, M: 2, D: 3, P: 2, levels: [[4, 6], [2, 3]], seed: 6 });
      const [v, s, i, loc, w] = argumentsOf(six);
      const five = gs.multiScaleDeformableAttention(v, s, i, { data: loc.data, dims: [1, 3, 2, 4, 2] }, { data: w.data, dims: [1, 3, 2, 4] }, { pointsPerLevel: [2, 2] });
      assert.deepEqual(five.data, gs.multiScaleDeformableAttention(...argumentsOf(six)).data);
    });

    test("sampling 'discrete' at the rule's edges (.5 boundaries, just below, negatives, > 1, NaN / Inf read 0), float32 and float16 value", () => {
      for (const dtype of ['float32', 'float16']) {
        const c = makeCase({ N: 2, Lq: 11, M: 2, D: 3, P: 2, levels: LEVELS, dtype, seed: 7 });
        const loc = c.samplingLocations.data;
        for (let i = 0; i < loc.length; ++i) loc[i] = EDGE_COORDINATES[(i + (i >> 1)) % EDGE_COORDINATES.length];
        const r = gs.multiScaleDeformableAttention(...argumentsOf(c), { sampling: 'discrete' });
        assertMatches(r, discreteOracle(c), dtype, `discrete, ${dtype}`);
        // 'bilinear' is the default.
        assert.deepEqual(gs.multiScaleDeformableAttention(...argumentsOf(c), { sampling: 'bilinear' }).data,
          gs.multiScaleDeformableAttention(...argumentsOf(c)).data);
      }
      // One pixel, in float32: x = 0.375 on W = 4 gives 1.5 + 0.5 = 2, column 2; y = 0.375 - 2^-26
      // gives 1.5 - 2^-24 + 0.5, which float32 rounds to 2 (row 2), y = 0.375 - 2^-24 row 1.
      const one = gs.multiScaleDeformableAttention({ data: Float32Array.from({ length: 16 }, (_, i) => i), dims: [1, 16, 1, 1] },
        [[4, 4]], [0], { data: Float32Array.of(0.375, 0.375 - 2 ** -26, 0.375, 0.375 - 2 ** -24), dims: [1, 2, 1, 1, 1, 2] },
        { data: Float32Array.of(1, 1), dims: [1, 2, 1, 1, 1] }, { sampling: 'discrete' });
      assert.deepEqual(Array.from(one.data), [2 * 4 + 2, 1 * 4 + 2]);
    });

    test('heap tensors in and out with both options: the copying call\'s bytes, the heap flat after dispose()', () => {
      const c = makeListedCase({ N: 2, Lq: 5, levels: LEVELS, points: [1, 2, 3, 1], dtype: 'float16', seed: 8 });
      const options = { pointsPerLevel: c.sizes.points, sampling: 'discrete' };
      const want = gs.multiScaleDeformableAttention(...listedArguments(c), options);
      const before = gs.heapUsed();
      const [value, loc, w] = [c.value, c.samplingLocations, c.attentionWeights].map((t) => gs.tensorFrom(t));
      const y = gs.tensor('float16', want.shape);
      try {
        assert.equal(gs.multiScaleDeformableAttention(value, c.spatialShapes, c.levelStartIndex, loc, w, { ...options, out: y }), y);
        assert.deepEqual(y.data, want.data);
      } finally {
        for (const t of [value, loc, w, y]) t.dispose();
      }
      assert.equal(gs.heapUsed(), before);
    });
  });
}

describe('multiScaleDeformableAttention options: rules and errors', () => {
  test("libraryRules' output dims with options.pointsPerLevel; existing five-argument callers unchanged", () => {
    const rule = libraryRules(modules.scalar).multiScaleDeformableAttention;
    assert.deepEqual(rule([2, 5, 3, 4], [[2, 2], [1, 1]], [0, 4], [2, 7, 3, 2, 4, 2], [2, 7, 3, 2, 4]), [2, 7, 12]);
    assert.deepEqual(rule([2, 5, 3, 4], [[2, 2], [1, 1]], [0, 4], [2, 7, 3, 5, 2], [2, 7, 3, 5], { pointsPerLevel: [3, 2] }), [2, 7, 12]);
    assert.throws(() => rule([2, 5, 3, 4], [[2, 2], [1, 1]], [0, 4], [2, 7, 3, 6, 2], [2, 7, 3, 6], { pointsPerLevel: [3, 2] }),
      { name: 'RangeError', message: /^multiScaleDeformableAttention: sampling_locations: expected \[N, Lq, M, sum\(P_l\), 2\] with N = 2, M = 3 \(value's\) and sum\(P_l\) = 5 \(points_per_level\), got \[2, 7, 3, 6, 2\]$/ });
  });

  // The valid call: a 2x2 level with 2 points and a 1x1 level with 1, every location the centre.
  const call = (gs, options, loc = { data: new Float32Array(6).fill(0.5), dims: [1, 1, 1, 3, 2] }, w = { data: new Float32Array(3).fill(1), dims: [1, 1, 1, 3] }) =>
    gs.multiScaleDeformableAttention({ data: Float32Array.of(0, 2, 4, 6, 8), dims: [1, 5, 1, 1] }, [[2, 2], [1, 1]], [0, 4], loc, w, options);
  const head = '^multiScaleDeformableAttention: ';
  const CASES = [
    ['pointsPerLevel of 3 values for 2 levels', { pointsPerLevel: [1, 1, 1] }, RangeError, 'options\\.pointsPerLevel: expected 2 values \\(one per level of spatialShapes\\), got 3'],
    ['pointsPerLevel of 1 value', { pointsPerLevel: Int32Array.of(3) }, RangeError, 'options\\.pointsPerLevel: expected 2 values \\(one per level of spatialShapes\\), got 1'],
    ['a zero P_l', { pointsPerLevel: [3, 0] }, RangeError, 'points_per_level: expected P_l >= 1 for every level, got 0 for level 1'],
    ['a negative P_l', { pointsPerLevel: BigInt64Array.of(-1n, 4n) }, RangeError, 'points_per_level: expected P_l >= 1 for every level, got -1 for level 0'],
    ['P_l that add up to 4 for 3 points', { pointsPerLevel: [2, 2] }, RangeError, "sampling_locations: expected \\[N, Lq, M, sum\\(P_l\\), 2\\] with N = 1, M = 1 \\(value's\\) and sum\\(P_l\\) = 4 \\(points_per_level\\), got \\[1, 1, 1, 3, 2\\]"],
    ['P_l that overflow int64', { pointsPerLevel: [2n ** 62n, 2n ** 62n + 1n] }, RangeError, "points_per_level: the levels' P_l add up to more than int64 holds at level 1 \\(4611686018427387905\\)"],
    ['a fractional P_l', { pointsPerLevel: [1.5, 1] }, RangeError, 'options\\.pointsPerLevel\\[0\\]: expected an int64 integer, got 1\\.5'],
    ['a string P_l', { pointsPerLevel: ['2', 1] }, TypeError, 'options\\.pointsPerLevel\\[0\\]: expected an integer \\(a number or a bigint\\), got "2"'],
    ['pointsPerLevel a number', { pointsPerLevel: 3 }, TypeError, 'options\\.pointsPerLevel: expected an Array of 2 integers \\(P_l per level\\), a BigInt64Array or an Int32Array, got 3'],
    ['pointsPerLevel a Float32Array', { pointsPerLevel: Float32Array.of(2, 1) }, TypeError, 'options\\.pointsPerLevel: expected an Array of 2 integers .*, got .*Float32Array.*'],
    ['sampling an unknown name', { sampling: 'nearest' }, RangeError, "options\\.sampling: expected 'bilinear' or 'discrete', got \"nearest\""],
    ['sampling a number', { sampling: 1 }, TypeError, "options\\.sampling: expected 'bilinear' or 'discrete', got 1"],
    ['an unknown option', { method: 'discrete' }, TypeError, 'options\\.method: unknown option; expected out, pointsPerLevel, sampling'],
  ];
  for (const [variant, gs] of Object.entries(modules)) {
    test(`hostile options (${variant}): one error class and one-line message each; the module then computes known answers; the heap stays flat`, () => {
      const before = gs.heapUsed();
      for (const [what, options, ErrorClass, text] of CASES) {
        assert.throws(() => call(gs, options), (e) => {
          assert.equal(e.constructor, ErrorClass, `${what}: ${e.message}`);
          assert.match(e.message, new RegExp(`${head}${text}$`), what);
          assert.ok(!e.message.includes('\n'), what);
          return true;
        }, what);
      }
      // pointsPerLevel with rank-6 locations, and rank-5 ones without it: the library's words.
      const six = { data: new Float32Array(4).fill(0.5), dims: [1, 1, 1, 2, 1, 2] };
      assert.throws(() => call(gs, { pointsPerLevel: [1, 1] }, six, { data: new Float32Array(2), dims: [1, 1, 1, 2, 1] }),
        { name: 'RangeError', message: /^multiScaleDeformableAttention: sampling_locations: expected rank 5 \[N, Lq, M, sum\(P_l\), 2\] \(points_per_level is given\), got rank 6 shape \[1, 1, 1, 2, 1, 2\]$/ });
      assert.throws(() => call(gs, {}), { name: 'RangeError', message: /^multiScaleDeformableAttention: sampling_locations: expected rank 6 \[N, Lq, M, L, P, 2\] \(no points_per_level\), got rank 5 shape \[1, 1, 1, 3, 2\]$/ });
      // Known answers: the 2x2 level's mean (3) twice plus the 1x1 level (8); discrete reads
      // pixel (1, 1) of the 2x2 level (6) twice, then 8.
      assert.deepEqual(Array.from(call(gs, { pointsPerLevel: [2, 1] }).data), [14]);
      assert.deepEqual(Array.from(call(gs, { pointsPerLevel: [2, 1], sampling: 'discrete' }).data), [20]);
      assert.equal(gs.heapUsed(), before);
    });
  }
});

describe('pool.multiScaleDeformableAttention with the options (Node worker_threads)', () => {
  test('rank-5 locations split into bands of queries, discrete too: the bytes of one instance; errors are the instance\'s', async () => {
    const [gs, pool] = await Promise.all([load({ variant: 'simd' }), createPool({ workers: 2, [SPLIT_COST]: 0 })]);
    try {
      const c = makeListedCase({ N: 2, Lq: 23, M: 3, D: 5, levels: LEVELS, points: [2, 3, 1, 2], seed: 9 });
      for (const options of [{ pointsPerLevel: [2, 3, 1, 2] }, { pointsPerLevel: Int32Array.of(2, 3, 1, 2), sampling: 'discrete' }]) {
        const p = progress();
        const got = await pool.multiScaleDeformableAttention(...listedArguments(c), { ...options, onProgress: p.onProgress });
        assertSame(got, gs.multiScaleDeformableAttention(...listedArguments(c), options), JSON.stringify(options.sampling));
        assert.ok(p.split(), `not split (progress ${p.seen})`);
      }
      const six = makeCase({ N: 1, Lq: 20, M: 2, D: 4, P: 3, levels: [[6, 6], [3, 3]], seed: 10 });
      assertSame(await pool.multiScaleDeformableAttention(...argumentsOf(six), { sampling: 'discrete' }),
        gs.multiScaleDeformableAttention(...argumentsOf(six), { sampling: 'discrete' }), 'rank 6, discrete');
      const message = /^multiScaleDeformableAttention: points_per_level: expected P_l >= 1 for every level, got 0 for level 2$/;
      await assert.rejects(pool.multiScaleDeformableAttention(...listedArguments(c), { pointsPerLevel: [2, 3, 0, 3] }), { name: 'RangeError', message });
    } finally {
      await pool.terminate();
    }
  });
});
