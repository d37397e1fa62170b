// gs.multiScaleDeformableAttention in every wasm variant (simd, scalar; simd-threads on 3 threads): results against the exporters' chain computed here with gs.gridSample per level (many shapes and level counts, locations outside [0, 1] and non-finite, float16), the levels' forms (onnxruntime int64 tensors, Int32Array, arrays), empty outputs, options.out and the heap-tensor tier; its crossings into the wasm (one block address per binding call); the worker pool's twin, split into bands of queries, gives one instance's bytes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createPool, load, simdSupported, threadsSupported } from '../../js/node.mjs';
import { libraryRules } from '../../js/core/api.mjs';
import { DEFORMABLE_BLOCK } from '../../js/core/wasm_heap.mjs';
import { SPLIT_COST } from '../../js/pool/create_pool.mjs';
import { modules } from './lib/api_values.mjs';
import { countedGlue } from './lib/counted_module.mjs';
import { assertSame, progress } from './lib/pool_checks.mjs';
import { argumentsOf, assertMatchesChain, chain, makeCase } from './lib/deformable_attention_chain.mjs';

const threaded = simdSupported() && threadsSupported() ? await load({ numThreads: 3 }) : null;
const all = { ...modules, ...(threaded ? { 'simd-threads': threaded } : {}) };

// Shapes that reach every path: 1x1, 1xW and Hx1 levels, non-square ones, N = 2, several heads
// and points, channel counts below, at and past a SIMD vector, coordinates outside [0, 1].
const CASES = {
  'three levels, one query batch': {},
  '1x1, 1xW and Hx1 levels, N = 2': { N: 2, Lq: 7, M: 3, D: 4, P: 3, levels: [[1, 1], [1, 7], [5, 1]], seed: 2 },
  'one 1x1 level, one point, one channel': { Lq: 3, M: 1, D: 1, P: 1, levels: [[1, 1]], seed: 3 },
  'non-square levels, D = 8': { N: 2, Lq: 33, M: 4, D: 8, P: 4, levels: [[13, 17], [7, 9], [4, 5], [2, 3]], seed: 4 },
  'D = 5, 11 queries': { Lq: 11, M: 2, D: 5, P: 2, levels: [[6, 6], [3, 3]], seed: 5 },
  'locations far outside [0, 1]': { Lq: 9, M: 2, D: 3, levels: [[5, 4], [3, 2]], locations: [-3, 4], seed: 6 },
  'NaN, +-Inf and +-1e30 locations sample 0': { N: 2, Lq: 8, M: 2, D: 4, P: 3, levels: [[4, 4], [2, 2]], special: true, seed: 7 },
  'float16 value': { N: 2, Lq: 6, M: 2, D: 8, P: 2, levels: [[5, 7], [3, 4]], dtype: 'float16', seed: 8 },
  'float16 value, locations and weights': { Lq: 6, M: 2, D: 3, P: 2, levels: [[5, 7], [3, 4]], dtype: 'float16', coordinates: 'float16', seed: 9 },
  // 3 * 24 int64s: more than the room for levels after the call's block (they are allocated).
  '24 levels': { Lq: 3, M: 2, D: 2, P: 1, levels: Array.from({ length: 24 }, (_, l) => [1 + (l % 3), 1 + (l % 2)]), seed: 19 },
};

for (const [variant, gs] of Object.entries(all)) {
  describe(`multiScaleDeformableAttention, ${gs.backend} (${variant}, ${gs.threads} thread${gs.threads > 1 ? 's' : ''})`, () => {
    for (const [name, sizes] of Object.entries(CASES)) {
      test(`equals the exporters' chain: ${name}`, () => {
        const c = makeCase(sizes);
        const r = gs.multiScaleDeformableAttention(...argumentsOf(c));
        assert.equal(r.dtype, c.value.type);
        assert.ok(r.data instanceof (c.value.type === 'float16' ? Uint16Array : Float32Array));
        assertMatchesChain(r, chain(gs, c), c, name);
      });
    }

    test('non-finite locations give exactly 0 where every location of a query is non-finite', () => {
      const c = makeCase({ Lq: 2, M: 1, D: 4, P: 2, levels: [[3, 3], [2, 2]], seed: 10 });
      const loc = c.samplingLocations.data;
      loc.fill(NaN, 0, loc.length / 2);
      loc.fill(Infinity, loc.length / 2);
      const r = gs.multiScaleDeformableAttention(...argumentsOf(c));
      assert.deepEqual(Array.from(r.data), new Array(8).fill(0));
    });

    test('the levels in every form give the same bytes: int64 and int32 tensors, typed arrays, arrays of pairs, flat arrays', () => {
      const c = makeCase({ Lq: 4, M: 2, D: 3, P: 2, levels: [[3, 5], [2, 2], [1, 3]], seed: 11 });
      const [value, , , loc, w] = argumentsOf(c);
      const want = gs.multiScaleDeformableAttention(...argumentsOf(c)).data;
      const forms = [
        [{ data: Int32Array.of(3, 5, 2, 2, 1, 3), shape: [3, 2] }, { data: Int32Array.of(0, 15, 19), shape: [3], dtype: 'int32' }],
        [{ data: Int32Array.of(3, 5, 2, 2, 1, 3), dims: [3, 2], type: 'int32' }, BigInt64Array.of(0n, 15n, 19n)],
        [BigInt64Array.of(3n, 5n, 2n, 2n, 1n, 3n), Int32Array.of(0, 15, 19)],
        [[[3, 5], [2, 2], [1, 3]], [0, 15, 19]],
        [[[3n, 5n], [2n, 2n], [1n, 3n]], [0n, 15n, 19n]],
        [[3, 5, 2, 2, 1, 3], [0, 15, 19]],
      ];
      for (const [i, [shapes, starts]] of forms.entries()) {
        assert.deepEqual(gs.multiScaleDeformableAttention(value, shapes, starts, loc, w).data, want, `form ${i}`);
      }
      // {data, shape} and {data, dims} tensors of the float arguments, as gridSample takes them.
      const plain = (t) => ({ data: t.data, shape: t.dims });
      assert.deepEqual(gs.multiScaleDeformableAttention(plain(value), [[3, 5], [2, 2], [1, 3]], [0, 15, 19], plain(loc), plain(w)).data, want);
    });

    test('empty outputs have the right shape: Lq = 0, N = 0, D = 0, M = 0; P = 0 sums nothing', () => {
      for (const [sizes, shape] of [[{ Lq: 0 }, [1, 0, 6]], [{ N: 0 }, [0, 5, 6]], [{ D: 0 }, [1, 5, 0]], [{ M: 0 }, [1, 5, 0]]]) {
        const c = makeCase(sizes);
        const r = gs.multiScaleDeformableAttention(...argumentsOf(c));
        assert.deepEqual(r.shape, shape, JSON.stringify(sizes));
        assert.equal(r.data.length, 0);
      }
      const r = gs.multiScaleDeformableAttention(...argumentsOf(makeCase({ P: 0 })));
      assert.deepEqual(r.shape, [1, 5, 6]);
      assert.deepEqual(Array.from(r.data), new Array(30).fill(0));
    });

    test('options.out: a typed array, a tensor and a heap tensor, reused across calls; the result is the out given', () => {
      const a = makeCase({ Lq: 6, M: 2, D: 4, P: 2, levels: [[4, 3], [2, 2]], seed: 12 });
      const b = makeCase({ Lq: 6, M: 2, D: 4, P: 2, levels: [[4, 3], [2, 2]], seed: 13 });
      const [wantA, wantB] = [a, b].map((c) => gs.multiScaleDeformableAttention(...argumentsOf(c)).data);
      const array = new Float32Array(48).fill(7);
      const r = gs.multiScaleDeformableAttention(...argumentsOf(a), { out: array });
      assert.equal(r.data, array);
      assert.deepEqual(r.shape, [1, 6, 8]);
      assert.deepEqual(array, wantA);
      gs.multiScaleDeformableAttention(...argumentsOf(b), { out: array });
      assert.deepEqual(array, wantB);
      const tensor = { data: new Float32Array(48), shape: [1, 6, 8] };
      assert.equal(gs.multiScaleDeformableAttention(...argumentsOf(a), { out: tensor }), tensor);
      assert.deepEqual(tensor.data, wantA);
      const before = gs.heapUsed();
      const y = gs.tensor('float32', [1, 6, 8]);
      for (const [c, want] of [[a, wantA], [b, wantB], [a, wantA]]) {
        assert.equal(gs.multiScaleDeformableAttention(...argumentsOf(c), { out: y }), y);
        assert.deepEqual(y.data, want);
      }
      y.dispose();
      assert.equal(gs.heapUsed(), before);
    });

    test('heap tensors in, heap tensor out: the same bytes as the copying call, and the heap is flat after dispose()', () => {
      const c = makeCase({ N: 2, Lq: 9, M: 3, D: 4, P: 2, levels: [[5, 6], [3, 3], [1, 2]], dtype: 'float16', seed: 14 });
      const want = gs.multiScaleDeformableAttention(...argumentsOf(c));
      const before = gs.heapUsed();
      const [value, loc, w] = [c.value, c.samplingLocations, c.attentionWeights].map((t) => gs.tensorFrom(t));
      const y = gs.tensor('float16', want.shape);
      try {
        assert.equal(gs.multiScaleDeformableAttention(value, c.spatialShapes, c.levelStartIndex, loc, w, { out: y }), y);
        assert.deepEqual(y.data, want.data);
        // Heap inputs with a copied result, and heap inputs mixed with arrays.
        const copied = gs.multiScaleDeformableAttention(value, c.spatialShapes, c.levelStartIndex, loc, w);
        assert.deepEqual(copied.data, want.data);
        assert.equal(copied.dtype, 'float16');
        assert.deepEqual(gs.multiScaleDeformableAttention(c.value, c.spatialShapes, c.levelStartIndex, loc, c.attentionWeights).data, want.data);
      } finally {
        for (const t of [value, loc, w, y]) t.dispose();
      }
      assert.equal(gs.heapUsed(), before);
    });
  });
}

describe('multiScaleDeformableAttention across variants', () => {
  test("libraryRules' output dims (gridsample/onnx sizes its tensors with them): the library's, and its errors", () => {
    const rule = libraryRules(modules.scalar).multiScaleDeformableAttention;
    assert.deepEqual(rule([2, 5, 3, 4], BigInt64Array.of(2n, 2n, 1n, 1n), [0n, 4n], [2, 7, 3, 2, 4, 2], [2, 7, 3, 2, 4]), [2, 7, 12]);
    assert.throws(() => rule([2, 6, 3, 4], [[2, 2], [1, 1]], [0, 4], [2, 7, 3, 2, 4, 2], [2, 7, 3, 2, 4]),
      { name: 'RangeError', message: /^multiScaleDeformableAttention: value: expected S = 5 / });
    assert.throws(() => rule([2, 5, 3, 4], [[2, 2], [1, 1]], [0, 4], [2, 7, 3, 2, 4, 2], [2, 7, 3, 2, 3]),
      { name: 'RangeError', message: /^multiScaleDeformableAttention: attention_weights: expected \[2, 7, 3, 2, 4\]/ });
  });

  test('every variant and thread count gives the same bytes on a larger case (threads split the queries; the result does not depend on them)', () => {
    const c = makeCase({ N: 2, Lq: 300, M: 8, D: 32, P: 4, levels: [[32, 32], [16, 16], [8, 8], [4, 4]], seed: 15 });
    const results = Object.entries(all).map(([variant, gs]) => [variant, gs.multiScaleDeformableAttention(...argumentsOf(c)).data]);
    const [first, want] = results[0];
    assertMatchesChain({ data: want, shape: [2, 300, 256] }, chain(modules[first], c), c, first);
    // SIMD and scalar builds may round the float32 sums differently; the threaded build is the
    // SIMD one, so it must equal it byte for byte.
    if (threaded) assert.deepEqual(results.find(([v]) => v === 'simd-threads')[1], results.find(([v]) => v === 'simd')[1]);
  });
});

describe('crossings into the wasm per multiScaleDeformableAttention call', () => {
  test('its call and its output-shape query each take one argument, the address of its block; a steady call crosses once on heap tensors, at most three times on arrays; the query is asked again when the shapes or levels change', async () => {
    const { Module, gs, crossings } = await countedGlue();
    const taken = {};
    for (const name of ['multiScaleDeformableAttention', 'multiScaleDeformableAttentionOutputShape']) {
      const binding = Module[name];
      taken[name] = [];
      Module[name] = (...args) => {
        taken[name].push(args.length);
        return binding(...args);
      };
    }
    const c = makeCase({ Lq: 6, M: 2, D: 4, P: 2, levels: [[4, 3], [2, 2]], seed: 20 });
    const want = modules.simd.multiScaleDeformableAttention(...argumentsOf(c)).data;
    const out = new Float32Array(48);
    gs.multiScaleDeformableAttention(...argumentsOf(c), { out });
    assert.ok(crossings(() => gs.multiScaleDeformableAttention(...argumentsOf(c), { out })) <= 3, 'allocate, call, release');
    assert.deepEqual(out, want);
    const [value, loc, w] = [c.value, c.samplingLocations, c.attentionWeights].map((t) => gs.tensorFrom(t));
    const y = gs.tensor('float32', [1, 6, 8]);
    assert.equal(crossings(() => gs.multiScaleDeformableAttention(value, c.spatialShapes, c.levelStartIndex, loc, w, { out: y })), 1, 'the call');
    assert.deepEqual(y.data, want);
    for (const t of [value, loc, w, y]) t.dispose();
    // The rule gridsample/onnx sizes its tensors with answers from the same query.
    assert.deepEqual(libraryRules(gs).multiScaleDeformableAttention([1, 16, 2, 4], c.spatialShapes, c.levelStartIndex, [1, 6, 2, 2, 2, 2], [1, 6, 2, 2, 2]), [1, 6, 8]);
    assert.deepEqual(taken, { multiScaleDeformableAttention: [1, 1, 1], multiScaleDeformableAttentionOutputShape: [1] });
    // Other levels, other dims, another dtype: asked again, each answer (or refusal) its own.
    const other = makeCase({ Lq: 6, M: 2, D: 4, P: 2, levels: [[3, 4], [2, 2]], seed: 21 });
    assert.deepEqual(gs.multiScaleDeformableAttention(...argumentsOf(other)).data, modules.simd.multiScaleDeformableAttention(...argumentsOf(other)).data);
    assert.deepEqual(libraryRules(gs).multiScaleDeformableAttention([1, 16, 2, 4], c.spatialShapes, c.levelStartIndex, [1, 5, 2, 2, 2, 2], [1, 5, 2, 2, 2]), [1, 5, 8]);
    assert.throws(() => libraryRules(gs).multiScaleDeformableAttention([1, 17, 2, 4], c.spatialShapes, c.levelStartIndex, [1, 5, 2, 2, 2, 2], [1, 5, 2, 2, 2]), RangeError);
    const f64 = { data: new Float64Array(c.value.data), dims: c.value.dims, type: 'float64' };
    assert.throws(() => gs.multiScaleDeformableAttention(f64, c.spatialShapes, c.levelStartIndex, c.samplingLocations, c.attentionWeights), TypeError);
    assert.deepEqual(gs.multiScaleDeformableAttention(...argumentsOf(c)).data, want);
    assert.equal(taken.multiScaleDeformableAttentionOutputShape.length, 6);
  });

  test('a block whose rank is past the dimensions it holds is refused by the binding unread, by the query and by the call', async () => {
    const { Module, gs } = await countedGlue();
    const c = makeCase({ seed: 21 });
    const want = gs.multiScaleDeformableAttention(...argumentsOf(c)).data;
    let Lq = 7; // c has 5
    for (const name of ['multiScaleDeformableAttentionOutputShape', 'multiScaleDeformableAttention']) {
      const binding = Module[name];
      for (const [input, rank] of [[0, 33], [1, -1], [2, 2 ** 31 - 1]]) {
        Module[name] = (block) => {
          Module.HEAP32[((block + DEFORMABLE_BLOCK.rank) >> 2) + input] = rank;
          return binding(block);
        };
        // Shapes not asked before: the query runs (shapes it answered last take its answer).
        const d = makeCase({ seed: 21, Lq: Lq++ });
        assert.throws(() => gs.multiScaleDeformableAttention(...argumentsOf(d)),
          { name: 'RangeError', message: /^multiScaleDeformableAttention: a rank outside 0\.\.32$/ }, `${name}, input ${input} of rank ${rank}`);
      }
      Module[name] = binding;
    }
    assert.deepEqual(gs.multiScaleDeformableAttention(...argumentsOf(c)).data, want);
  });
});

describe('pool.multiScaleDeformableAttention (Node worker_threads)', () => {
  // Every call split that can be (threshold 0), and one pool with the default threshold.
  const ready = Promise.all([load({ variant: 'simd' }), createPool({ workers: 2, [SPLIT_COST]: 0 }), createPool({ workers: 2 })]);

  test('split into bands of queries, the bytes of one instance (N = 2, float16 value, levels as arrays)', async () => {
    const [gs, pool] = await ready;
    for (const sizes of [{ N: 2, Lq: 37, M: 3, D: 5, P: 2, levels: [[9, 7], [4, 3], [1, 2]], seed: 16 },
      { N: 1, Lq: 20, M: 2, D: 8, P: 3, levels: [[6, 6], [3, 3]], dtype: 'float16', seed: 17 }]) {
      const c = makeCase(sizes);
      const args = argumentsOf(c);
      const p = progress();
      const got = await pool.multiScaleDeformableAttention(...args, { onProgress: p.onProgress });
      assertSame(got, gs.multiScaleDeformableAttention(...args), JSON.stringify(sizes));
      assert.ok(p.split(), `not split (progress ${p.seen})`);
      const arrays = [c.value, c.sizes.levels, c.levelStartIndex.data, c.samplingLocations, c.attentionWeights];
      assertSame(await pool.multiScaleDeformableAttention(...arrays), gs.multiScaleDeformableAttention(...arrays), 'levels as arrays');
    }
  });

  test("a small call runs whole with the default threshold; errors are the instance's; heap tensors and out are refused", async () => {
    const [gs, , pool] = await ready;
    const c = makeCase({ seed: 18 });
    const p = progress();
    assertSame(await pool.multiScaleDeformableAttention(...argumentsOf(c), { onProgress: p.onProgress }), gs.multiScaleDeformableAttention(...argumentsOf(c)), 'whole');
    assert.ok(!p.split(), `split (progress ${p.seen})`);
    const bad = [c.value, [[4, 6], [2, 3], [1, 1]], [0, 23, 30], c.samplingLocations, c.attentionWeights];
    const message = /^multiScaleDeformableAttention: level_start_index: expected 24 for level 1 \(the sum of H \* W of the levels before it\), got 23$/;
    assert.throws(() => gs.multiScaleDeformableAttention(...bad), { name: 'RangeError', message });
    await assert.rejects(pool.multiScaleDeformableAttention(...bad), { name: 'RangeError', message });
    const value = gs.tensorFrom(c.value);
    await assert.rejects(pool.multiScaleDeformableAttention(value, ...argumentsOf(c).slice(1)),
      { name: 'TypeError', message: /^pool\.multiScaleDeformableAttention: value: a heap tensor lives in one instance's memory/ });
    value.dispose();
    await assert.rejects(pool.multiScaleDeformableAttention(...argumentsOf(c), { out: new Float32Array(30) }),
      { name: 'TypeError', message: /^pool\.multiScaleDeformableAttention: options\.out: not taken by pool calls/ });
  });

  test('terminate', async () => {
    const [, ...pools] = await ready;
    await Promise.all(pools.map((p) => p.terminate()));
  });
});
