// Hostile input to gs.multiScaleDeformableAttention in both wasm variants: the generic tensor-argument cases (lib/hostile_arguments.mjs) on value, samplingLocations, attentionWeights and options.out, and its own (ranks, levels that disagree with S or with their starts, dtypes, negative and huge shapes, mismatched lengths, levels in wrong forms, options); each gives one error class and a one-line message naming the argument, the module then still computes known answers, and the heap stays flat.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { load } from '../../js/node.mjs';
import { numberToBf16 } from './lib/halfs.mjs';
import { assertModuleWorks, detached } from './lib/hostile.mjs';
import { f32, keep, other, runCase, slotCases, variants } from './lib/hostile_arguments.mjs';

// A call with a known answer: value[s, 0, d] = 2 s + d over a 2x2 level and a 1x1 level, every
// location the centre of its level, weights 1: the 2x2 level's mean plus the 1x1 level's value.
const VALUE = () => ({ data: Float32Array.from({ length: 10 }, (_, i) => i), shape: [1, 5, 1, 2] });
const LOC = () => ({ data: f32(4, 0.5), shape: [1, 1, 1, 2, 1, 2] });
const W = () => ({ data: f32(2, 1), shape: [1, 1, 1, 2, 1] });
const OUT = () => ({ data: f32(2), shape: [1, 1, 2] });
const ANSWER = [11, 13];
const check = (y) => assert.deepEqual(Array.from(y.data), ANSWER);

// The call with `args` in place of the valid arguments (undefined too, when given).
function msda(gs, args = {}) {
  const arg = (name, valid) => (name in args ? args[name] : valid());
  return gs.multiScaleDeformableAttention(arg('value', VALUE), arg('spatialShapes', () => [[2, 2], [1, 1]]),
    arg('levelStartIndex', () => [0, 4]), arg('loc', LOC), arg('w', W), args.options);
}

const SLOTS = [
  { fn: 'multiScaleDeformableAttention', arg: 'value', valid: VALUE, call: (gs, v) => msda(gs, { value: v }), check },
  { fn: 'multiScaleDeformableAttention', arg: 'samplingLocations', valid: LOC, call: (gs, v) => msda(gs, { loc: v }), check },
  { fn: 'multiScaleDeformableAttention', arg: 'attentionWeights', valid: W, call: (gs, v) => msda(gs, { w: v }), check },
  { fn: 'multiScaleDeformableAttention', arg: 'options.out', valid: OUT, out: true, call: (gs, v) => msda(gs, { options: { out: v } }), check },
];

function ownCases() {
  const cases = [];
  const head = '^multiScaleDeformableAttention: ';
  const add = (what, args, expect) => cases.push([what, (gs) => msda(gs, typeof args === 'function' ? args(gs) : args), expect]);
  const fails = (type, text) => [type, new RegExp(`${head}${text}$`)];
  const levels = (spatialShapes, levelStartIndex = [0, 4]) => ({ spatialShapes, levelStartIndex });
  const tensor = (data, shape) => ({ data, shape });

  // Ranks, S and the levels' starts (the library's rules and words).
  add('value of rank 3', { value: tensor(f32(10), [5, 1, 2]) }, fails(RangeError, 'value: expected rank 4 \\[N, S, M, D\\], got rank 3 shape \\[5, 1, 2\\]'));
  add('value of rank 0', { value: tensor(f32(1), []) }, fails(RangeError, 'value: expected rank 4 \\[N, S, M, D\\], got rank 0 shape \\[\\]'));
  add('samplingLocations of rank 5', { loc: tensor(f32(4), [1, 1, 1, 2, 2]) }, fails(RangeError, 'sampling_locations: expected rank 6 \\[N, Lq, M, L, P, 2\\] \\(no points_per_level\\), got rank 5 shape \\[1, 1, 1, 2, 2\\]'));
  // Ranks past the operator's, up to the 32 dimensions the call's block holds: the library's error (33 and more are
  // this package's, the generic cases').
  const ones = (rank, first) => [...first, ...new Array(rank - first.length).fill(1)];
  add('value of rank 7', { value: tensor(f32(10), ones(7, [1, 5, 1, 2])) }, fails(RangeError, 'value: expected rank 4 \\[N, S, M, D\\], got rank 7 shape \\[1, 5, 1, 2, 1, 1, 1\\]'));
  add('value of rank 32', { value: tensor(f32(10), ones(32, [1, 5, 1, 2])) }, fails(RangeError, 'value: expected rank 4 \\[N, S, M, D\\], got rank 32 shape \\[1, 5, 1, 2(, 1){28}\\]'));
  add('samplingLocations of rank 7', { loc: tensor(f32(4), ones(7, [1, 1, 1, 2, 1, 2])) }, fails(RangeError, 'sampling_locations: expected rank 6 \\[N, Lq, M, L, P, 2\\] \\(no points_per_level\\), got rank 7 shape \\[1, 1, 1, 2, 1, 2, 1\\]'));
  add('attentionWeights of rank 32', { w: tensor(f32(2), ones(32, [1, 1, 1, 2, 1])) }, fails(RangeError, 'attention_weights: expected rank 5 \\[N, Lq, M, L, P\\], got rank 32 shape \\[1, 1, 1, 2, 1(, 1){27}\\]'));
  add('attentionWeights of rank 4', { w: tensor(f32(2), [1, 1, 1, 2]) }, fails(RangeError, 'attention_weights: expected rank 5 \\[N, Lq, M, L, P\\], got rank 4 shape \\[1, 1, 1, 2\\]'));
  add('S is not the sum of H * W', { value: tensor(f32(12), [1, 6, 1, 2]) }, fails(RangeError, 'value: expected S = 5 \\(the sum of H \\* W over spatial_shapes\\) in \\[N, S, M, D\\], got \\[1, 6, 1, 2\\]'));
  add('a level start that disagrees', levels([[2, 2], [1, 1]], [0, 3]), fails(RangeError, 'level_start_index: expected 4 for level 1 \\(the sum of H \\* W of the levels before it\\), got 3'));
  add('a first level start of 1', levels([[2, 2], [1, 1]], [1, 4]), fails(RangeError, 'level_start_index: expected 0 for level 0 \\(the sum of H \\* W of the levels before it\\), got 1'));
  add('no level', levels([], []), fails(RangeError, 'levels: expected at least one level \\(L >= 1\\), got L = 0'));
  add('samplingLocations with 3 levels for 2', { loc: tensor(f32(6), [1, 1, 1, 3, 1, 2]), w: tensor(f32(3), [1, 1, 1, 3, 1]) },
    fails(RangeError, "sampling_locations: expected \\[N, Lq, M, L, P, 2\\] with N = 1, M = 1 \\(value's\\) and L = 2 \\(levels\\), got \\[1, 1, 1, 3, 1, 2\\]"));
  add('samplingLocations of 3 coordinates', { loc: tensor(f32(6), [1, 1, 1, 2, 1, 3]) }, fails(RangeError, 'sampling_locations: expected \\[N, Lq, M, L, P, 2\\] with .*, got \\[1, 1, 1, 2, 1, 3\\]'));
  add('samplingLocations of another N', { loc: tensor(f32(8), [2, 1, 1, 2, 1, 2]) }, fails(RangeError, 'sampling_locations: expected \\[N, Lq, M, L, P, 2\\] with N = 1, .*, got \\[2, 1, 1, 2, 1, 2\\]'));
  add('attentionWeights of another P', { w: tensor(f32(4), [1, 1, 1, 2, 2]) }, fails(RangeError, "attention_weights: expected \\[1, 1, 1, 2, 1\\] \\(sampling_locations' \\[N, Lq, M, L, P\\]\\), got \\[1, 1, 1, 2, 2\\]"));

  // Dtypes: float32, float16 and bfloat16 only, refused before anything is copied.
  add('an int32 value', { value: tensor(new Int32Array(10), [1, 5, 1, 2]) }, fails(TypeError, 'value: expected dtype float32, float16 or bfloat16, got int32'));
  add('a float64 value', { value: tensor(new Float64Array(10), [1, 5, 1, 2]) }, fails(TypeError, 'value: expected dtype float32, float16 or bfloat16, got float64'));
  add('float64 samplingLocations', { loc: tensor(new Float64Array(4), [1, 1, 1, 2, 1, 2]) }, fails(TypeError, 'sampling_locations: expected dtype float32, float16 or bfloat16, got float64'));
  add('uint8 attentionWeights', { w: tensor(new Uint8Array(2), [1, 1, 1, 2, 1]) }, fails(TypeError, 'attention_weights: expected dtype float32, float16 or bfloat16, got uint8'));
  add('a bfloat16 value (valid)', { value: { data: Uint16Array.from(VALUE().data, numberToBf16), shape: [1, 5, 1, 2], dtype: 'bfloat16' } }, { ok: true, check: (y) => {
    assert.equal(y.dtype, 'bfloat16');
    assert.deepEqual(Array.from(y.data), ANSWER.map(numberToBf16));
  } });

  // Level values the library refuses: H or W below 1, H * W past int64.
  add('a negative H', levels([[-1, 4], [1, 1]]), fails(RangeError, 'spatial_shapes: expected H >= 1 and W >= 1 for every level, got \\[-1, 4\\] for level 0'));
  add('a zero W', levels([[2, 2], [1, 0]]), fails(RangeError, 'spatial_shapes: expected H >= 1 and W >= 1 for every level, got \\[1, 0\\] for level 1'));
  add('int64 min as H', levels([[-(2n ** 63n), 1n], [1n, 1n]]), fails(RangeError, 'spatial_shapes: expected H >= 1 and W >= 1 for every level, got \\[-9223372036854775808, 1\\] for level 0'));
  add('H * W past int64', levels([[3037000500, 3037000500], [1, 1]]), fails(RangeError, "spatial_shapes: the levels' H \\* W add up to more than int64 holds at level 0 \\[3037000500, 3037000500\\]"));
  add('the sum of H * W past int64', levels(BigInt64Array.of(2n ** 62n, 1n, 2n ** 62n, 2n)), fails(RangeError, "spatial_shapes: the levels' H \\* W add up to more than int64 holds at level 1 \\[4611686018427387904, 2\\]"));
  add('huge levels that fit int64', levels([[2 ** 31, 2 ** 31], [1, 1]], [0, 2 ** 62]), fails(RangeError, 'value: expected S = 4611686018427387905 .*got \\[1, 5, 1, 2\\]'));

  // Level arguments in forms that are not levels (this package's reading, named as given).
  const forms = "an int64 or int32 tensor \\[L, 2\\] \\(BigInt64Array or Int32Array data, as onnxruntime's\\), a BigInt64Array, an Int32Array or an Array of \\[H, W\\] pairs";
  add('spatialShapes is a string', levels('2,2,1,1'), fails(TypeError, `spatialShapes: expected ${forms}, got "2,2,1,1"`));
  add('spatialShapes is missing', levels(undefined), fails(TypeError, `spatialShapes: expected ${forms}, got undefined`));
  add('levelStartIndex is null', levels([[2, 2], [1, 1]], null), fails(TypeError, 'levelStartIndex: expected an int64 or int32 tensor \\[L\\] .*, got null'));
  add('spatialShapes is a Float32Array', levels(Float32Array.of(2, 2, 1, 1)), fails(TypeError, `spatialShapes: expected ${forms}, got Float32Array\\(4\\)`));
  add('spatialShapes data is a Float64Array', levels(tensor(Float64Array.of(2, 2, 1, 1), [2, 2])), fails(TypeError, 'spatialShapes\\.data: expected a BigInt64Array or an Int32Array, got Float64Array\\(4\\)'));
  add('spatialShapes data is an Array', levels(tensor([2, 2, 1, 1], [2, 2])), fails(TypeError, 'spatialShapes\\.data: expected a BigInt64Array or an Int32Array, got Array\\(4\\)'));
  add("spatialShapes of type 'int32' with BigInt64Array data", levels({ data: BigInt64Array.of(2n, 2n, 1n, 1n), dims: [2, 2], type: 'int32' }),
    fails(TypeError, "spatialShapes\\.type: expected 'int64' for BigInt64Array data, got \"int32\""));
  add('spatialShapes on the GPU', levels({ get data() { throw new Error('unreachable'); }, dims: [2, 2], type: 'int64', location: 'gpu-buffer' }),
    fails(TypeError, "spatialShapes: expected a CPU tensor, got one on 'gpu-buffer'; download it first \\(await tensor\\.getData\\(\\)\\)"));
  add('spatialShapes of shape [4]', levels(tensor(BigInt64Array.of(2n, 2n, 1n, 1n), [4])), fails(RangeError, 'spatialShapes: expected shape \\[L, 2\\], got \\[4\\]'));
  add('spatialShapes of shape [2, 3]', levels(tensor(new Int32Array(6).fill(1), [2, 3])), fails(RangeError, 'spatialShapes: expected shape \\[L, 2\\], got \\[2, 3\\]'));
  add('spatialShapes data shorter than its shape', levels(tensor(BigInt64Array.of(2n, 2n, 1n), [2, 2])), fails(RangeError, 'spatialShapes: data has 3 elements but shape \\[2, 2\\] needs 4'));
  add('levelStartIndex of shape [2, 1]', levels([[2, 2], [1, 1]], tensor(BigInt64Array.of(0n, 4n), [2, 1])), fails(RangeError, 'levelStartIndex: expected shape \\[L\\], got \\[2, 1\\]'));
  add('an odd count of flat spatialShapes', levels([2, 2, 1]), fails(RangeError, 'spatialShapes: expected an even number of values \\(H, W per level\\), got 3'));
  add('levelStartIndex one short', levels([[2, 2], [1, 1]], [0]), fails(RangeError, 'levelStartIndex: expected 2 values \\(one per level of spatialShapes \\[2, 2\\]\\), got 1'));
  add('a pair of 3', levels([[2, 2, 1], [1, 1]]), fails(TypeError, 'spatialShapes\\[0\\]: expected an \\[H, W\\] pair, got Array\\(3\\)'));
  add('a fractional W', levels([[2, 1.5], [1, 1]]), fails(RangeError, 'spatialShapes\\[0\\]\\[1\\]: expected an int64 integer, got 1\\.5'));
  add('a NaN start', levels([[2, 2], [1, 1]], [0, NaN]), fails(RangeError, 'levelStartIndex\\[1\\]: expected an int64 integer, got NaN'));
  add('a start of 1e20', levels([[2, 2], [1, 1]], [0, 1e20]), fails(RangeError, 'levelStartIndex\\[1\\]: expected an int64 integer, got 100000000000000000000'));
  add('a bigint start of 2^63', levels([[2, 2], [1, 1]], [0n, 2n ** 63n]), fails(RangeError, 'levelStartIndex\\[1\\]: expected an int64 integer, got 9223372036854775808n'));
  add("a start '4' (a string)", levels([[2, 2], [1, 1]], [0, '4']), fails(TypeError, 'levelStartIndex\\[1\\]: expected an integer \\(a number or a bigint\\), got "4"'));
  add('a detached levelStartIndex', levels([[2, 2], [1, 1]], detached(BigInt64Array.of(0n, 4n))),
    fails(TypeError, 'levelStartIndex: the ArrayBuffer is detached \\(transferred, or a wasm memory view from before the memory grew\\); pass a live array'));

  // Options.
  add('an unknown option (threads are load()\'s numThreads)', { options: { threads: 2 } }, fails(TypeError, 'options\\.threads: unknown option; expected out, pointsPerLevel, sampling'));
  add('options a string', { options: 'out' }, fails(TypeError, 'options: expected an object, got "out"'));
  add('out one element long', { options: { out: f32(3) } }, fails(RangeError, 'options\\.out: expected 2 elements for shape \\[1, 1, 2\\], got 3'));
  add('out of another class', { options: { out: new Uint16Array(2) } }, fails(TypeError, 'options\\.out: expected Float32Array for dtype float32, got Uint16Array\\(2\\)'));
  add('out of another shape', { options: { out: tensor(f32(2), [1, 2, 1]) } }, fails(RangeError, 'options\\.out: expected shape \\[1, 1, 2\\], got \\[1, 2, 1\\]'));
  add('a float32 out for a float16 value', { value: { data: new Uint16Array(10), shape: [1, 5, 1, 2], dtype: 'float16' }, options: { out: tensor(f32(2), [1, 1, 2]) } },
    fails(TypeError, "options\\.out: expected dtype float16 \\(the input's\\), got float32"));
  // A getter of options.out (read once the output shape is known, before the call) that makes another call of other
  // shapes and levels (more than fit the room after the call's block): this call still runs on its own.
  const other = (gs) => gs.multiScaleDeformableAttention({ data: f32(92, 1), shape: [1, 46, 1, 2] },
    Array.from({ length: 23 }, () => [1, 2]), Array.from({ length: 23 }, (_, l) => 2 * l),
    { data: f32(3 * 23 * 2, 0.5), shape: [1, 3, 1, 23, 1, 2] }, { data: f32(3 * 23, 1), shape: [1, 3, 1, 23, 1] });
  add('an out whose shape getter makes another call', (gs) => ({ options: { out: { data: f32(2), get shape() {
    assert.deepEqual(Array.from(other(gs).data), new Array(6).fill(23));
    return [1, 1, 2];
  } } } }), { ok: true, check });
  add('a heap tensor out of another dtype', (gs) => ({ options: { out: keep(gs.tensor('float16', [1, 1, 2])) } }), fails(TypeError, "options\\.out: expected dtype float32 \\(the input's\\), got float16"));
  return cases;
}

const modules = {};
for (const variant of variants) modules[variant] = await load({ variant });
const peers = {};
for (const variant of variants) peers[variant] = modules[other[variant]] || await load({ variant });

const TABLES = () => [
  ...SLOTS.flatMap((slot) => slotCases(slot).map(([what, call, expect]) => [what, call, expect.ok ? { ok: true, check: slot.check } : expect])),
  ...ownCases().map(([what, call, expect]) => [`multiScaleDeformableAttention: ${what}`, call, expect]),
];

for (const variant of variants) {
  const gs = modules[variant];
  const peer = peers[variant];
  describe(`${gs.backend}: hostile input to multiScaleDeformableAttention`, () => {
    let used;
    before(() => {
      // Warm-up: the first calls of each kind may allocate lasting runtime state (embind).
      for (const m of [gs, peer]) {
        assertModuleWorks(m);
        check(msda(m));
        assert.throws(() => msda(m, { spatialShapes: [[0, 1], [1, 1]] }));
      }
      used = gs.heapUsed();
    });
    for (const [what, call, expect] of TABLES()) {
      test(what, () => {
        const before = gs.heapUsed();
        const peerBefore = peer.heapUsed();
        runCase(gs, peer, call, expect);
        assert.equal(gs.heapUsed(), before, 'heap bytes in use after the case');
        assert.equal(peer.heapUsed(), peerBefore, "the other module's heap bytes in use after the case");
        // The module still computes: this call, a heap-tensor one, and every other operator.
        check(msda(gs));
        const y = gs.tensor('float32', [1, 1, 2]);
        check(msda(gs, { options: { out: y } }));
        y.dispose();
        assertModuleWorks(gs);
        assert.equal(gs.heapUsed(), before, 'heap bytes in use after the next calls');
      });
    }
    test('the heap is flat over the whole suite', () => {
      assert.equal(gs.heapUsed(), used, 'heapUsed() after warm-up and at the end');
    });
  });
}
