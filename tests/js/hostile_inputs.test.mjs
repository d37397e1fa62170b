// Hostile input to every public function of the package (the four operators, the warps, heap tensors) in both wasm variants: each case expects one error class and message, or the documented result; after each the module still computes known answers, and the heap stays flat over the suite.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { DTYPE_NAMES, HeapTensor, load } from '../../js/node.mjs';
import { assertClose, assertModuleWorks, detached, expectError, IDENTITY_GRID_2x2 } from './lib/hostile.mjs';
import { BASIC } from './lib/onnx_examples.mjs';
import { f32, G, I6, IMG, keep, lazy, MODES, nearBasic, optionCases, other, PADDINGS, runCase, shapeCases, slotCases, SLOTS, THETA, variants, X } from './lib/hostile_arguments.mjs';

const SUITE_START = performance.now();

// Heap tensor life cycle, other modules, and arguments that change during the call.
function lifecycleCases() {
  const cases = [];
  const add = (what, call, expect) => cases.push([what, call, expect]);
  const ok = { ok: true, check: null };
  add('dispose() twice, then Symbol.dispose: idempotent, metadata stays readable', (gs) => {
    const before = gs.heapUsed();
    const t = gs.tensor('float64', [3, 5]);
    t.dispose();
    t.dispose();
    t[Symbol.dispose]();
    assert.equal(gs.heapUsed(), before);
    assert.equal(t.disposed, true);
    assert.deepEqual([t.dtype, [...t.shape], [...t.dims], t.size, t.byteLength], ['float64', [3, 5], [3, 5], 15, 120]);
  }, ok);
  add('data of a disposed tensor', (gs) => { const t = gs.tensor('uint16', [2, 2]); t.dispose(); return t.data; },
    [TypeError, /^HeapTensor\.data: this uint16 tensor of shape \[2, 2\] was disposed$/]);
  add('a disposed tensor as warpAffine out', (gs) => { const t = gs.tensor('uint8', [2, 2, 4]); t.dispose(); return gs.warpAffine(IMG(), I6, { out: t }); },
    [TypeError, /^warpAffine: options\.out: this uint8 tensor of shape \[2, 2, 4\] was disposed$/]);
  add('a disposed tensor as affineGrid out', (gs) => { const t = gs.tensor('float32', [1, 2, 2, 2]); t.dispose(); return gs.affineGrid(THETA(), [1, 1, 2, 2], { out: t }); },
    [TypeError, /^affineGrid: options\.out: this float32 tensor of shape \[1, 2, 2, 2\] was disposed$/]);
  add('a getter of a Proxy of a heap tensor', (gs) => new Proxy(keep(gs.tensor('float32', [2])), {}).data,
    [TypeError, /^HeapTensor\.data: expected a heap tensor made by gs\.tensor\(\) or gs\.tensorFrom\(\), got an object that only inherits from HeapTensor/]);
  add('HeapTensor getters on a plain object', () => Object.getOwnPropertyDescriptor(HeapTensor.prototype, 'dtype').get.call({}),
    [TypeError, /^HeapTensor\.dtype: expected a heap tensor made by gs\.tensor\(\) or gs\.tensorFrom\(\), got an object$/]);
  add('HeapTensor dispose on a number', () => HeapTensor.prototype.dispose.call(5),
    [TypeError, /^HeapTensor\.dispose: expected a heap tensor made by gs\.tensor\(\) or gs\.tensorFrom\(\), got 5$/]);
  add('a heap tensor as out of a call on another module (written by copy)', (gs, peer) => {
    const y = keep(peer.tensor('float32', [1, 1, 6, 6]));
    assert.equal(gs.gridSample(X(), G(), { out: y }), y);
    nearBasic(y.data);
  }, ok);
  add('warpAffine between heap tensors of another module', (gs, peer) => {
    const image = keep(peer.tensorFrom({ data: IMG().data, shape: [2, 2, 4], dtype: 'uint8' }));
    const out = keep(peer.tensor('uint8', [2, 2, 4]));
    const y = gs.warpAffine(image, [-1, 0, 0, 0, 1, 0], { alignCorners: true, out });
    assert.deepEqual(Array.from(y.data), [64, 80, 96, 112, 0, 16, 32, 48, 192, 208, 224, 240, 128, 144, 160, 176]);
    assert.deepEqual(Array.from(out.data), Array.from(y.data));
  }, ok);
  add('a heap tensor disposed by a getter of a later argument', (gs) => {
    const x = gs.tensorFrom(X());
    return gs.gridSample(x, { get data() { x.dispose(); return G().data; }, shape: [1, 6, 6, 2] });
  }, [TypeError, /^gridSample: x: this float32 tensor of shape \[1, 1, 4, 4\] was disposed during the call$/]);
  add('an array detached by a getter of a later argument', (gs) => {
    const x = X();
    return gs.gridSample(x, { get data() { detached(x.data); return G().data; }, shape: [1, 6, 6, 2] });
  }, [TypeError, /^gridSample: x\.data: the ArrayBuffer is detached/]);
  if (typeof ArrayBuffer.prototype.resize === 'function') {
    add('a resizable ArrayBuffer shrunk by a getter of a later argument', (gs) => {
      const buffer = new ArrayBuffer(64, { maxByteLength: 128 });
      const data = new Float32Array(buffer); // tracks the buffer's length
      data.set(BASIC.x.data);
      return gs.gridSample({ data, shape: [1, 1, 4, 4] }, { get data() { buffer.resize(32); return G().data; }, shape: [1, 6, 6, 2] });
    }, [TypeError, /^gridSample: x\.data: expected 64 bytes as when the call began, got 32 \(its resizable ArrayBuffer was resized during the call\)$/]);
    add('a resizable ArrayBuffer grown by a getter (out)', (gs) => {
      const buffer = new ArrayBuffer(36 * 4, { maxByteLength: 1024 });
      const out = new Float32Array(buffer);
      return gs.gridSample(X(), G(), { get out() { return out; }, get mode() { buffer.resize(1024); return 'linear'; } });
    }, [RangeError, /^gridSample: options\.out: expected 36 elements for shape \[1, 1, 6, 6\], got 256$/]);
  }
  add('a call from inside a getter (re-entrant) gives both right answers', (gs) => {
    let inner;
    const y = gs.gridSample(X(), { get data() { inner = gs.gridSample(X(), G()); return G().data; }, shape: [1, 6, 6, 2] });
    nearBasic(inner.data);
    nearBasic(y.data);
  }, ok);
  // A call keeps one of a few call blocks: calls of other shapes made from a getter of its
  // output (read after its block was chosen) may write theirs into it; it still runs on its own.
  add('calls of five other shapes from a getter of out (re-entrant): each right, this call on its own shapes', (gs) => {
    const inner = [];
    const out = new Float32Array(36);
    const y = gs.gridSample(X(), G(), { out: { get data() {
      for (const s of [1, 2, 3, 5, 7]) inner.push([s, gs.gridSample(X(), { data: new Float32Array(2 * s * s), shape: [1, s, s, 2] })]);
      return out;
    }, shape: [1, 1, 6, 6] } });
    nearBasic(y.data);
    assert.equal(y.data, out);
    const centre = gs.gridSample(X(), { data: new Float32Array(2), shape: [1, 1, 1, 2] }).data[0];
    for (const [s, r] of inner) assert.deepEqual([[...r.shape], [...new Set(r.data)]], [[1, 1, s, s], [centre]]);
  }, ok);
  add('functions work detached from the object', (gs) => {
    const { gridSample, affineGrid, heapUsed } = gs;
    nearBasic(gridSample(X(), G()).data);
    assert.deepEqual(Array.from(affineGrid(THETA(), [1, 1, 2, 2]).data), IDENTITY_GRID_2x2);
    assert.equal(typeof heapUsed(), 'number');
  }, ok);
  add('the API object, DTYPE_NAMES and heap tensor shapes are frozen', (gs) => {
    assert.throws(() => { gs.gridSample = null; }, TypeError);
    assert.throws(() => { DTYPE_NAMES.push('int64'); }, TypeError);
    const t = keep(gs.tensor('uint8', [2]));
    assert.throws(() => { t.shape[0] = 3; }, TypeError);
    assert.throws(() => { t.data = null; }, TypeError);
  }, ok);
  return cases;
}

// Empty tensors, size-1 axes and non-finite values: valid input with a documented result.
function resultCases() {
  const cases = [];
  const add = (what, call) => cases.push([what, call, { ok: true, check: null }]);
  const xs = (shape, fill) => ({ data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(fill), shape });
  add('empty grid: an empty result of the right shape', (gs) => {
    const y = gs.gridSample(X(), { data: f32(0), shape: [1, 0, 6, 2] });
    assert.deepEqual([y.shape, y.data.length, y.dtype], [[1, 1, 0, 6], 0, 'float32']);
  });
  add('N = 0 and C = 0', (gs) => {
    assert.deepEqual(gs.gridSample({ data: f32(0), shape: [0, 1, 4, 4] }, { data: f32(0), shape: [0, 6, 6, 2] }).shape, [0, 1, 6, 6]);
    assert.deepEqual(gs.gridSample({ data: f32(0), shape: [1, 0, 4, 4] }, G()).shape, [1, 0, 6, 6]);
    assert.deepEqual(gs.gridSampleChannelsLast({ data: f32(0), shape: [1, 4, 4, 0] }, G()).shape, [1, 6, 6, 0]);
  });
  add('C = 0 with empty spatial axes: an empty result in every mode and padding (no division by a 0 size)', (gs) => {
    for (const mode of MODES) {
      for (const paddingMode of PADDINGS) {
        for (const alignCorners of [false, true]) {
          const o = { mode, paddingMode, alignCorners };
          assert.deepEqual(gs.gridSample({ data: f32(0), shape: [1, 0, 0, 0] }, G(), o).shape, [1, 0, 6, 6], JSON.stringify(o));
          assert.deepEqual(gs.gridSample({ data: f32(0), shape: [1, 0, 0] }, { data: f32(3), shape: [1, 3, 1] }, o).shape, [1, 0, 3], JSON.stringify(o));
          assert.deepEqual(gs.gridSampleChannelsLast({ data: f32(0), shape: [1, 0, 0, 0] }, G(), o).shape, [1, 6, 6, 0], JSON.stringify(o));
          assert.deepEqual(gs.gridSampleChannelsLast({ data: new Uint8Array(0), shape: [1, 0, 0, 0] }, G(), o).shape, [1, 6, 6, 0], JSON.stringify(o));
        }
      }
    }
  });
  add('empty x sampled by a non-empty grid is an error (C++ status)', (gs) => {
    expectError(() => gs.gridSample({ data: f32(0), shape: [1, 1, 4, 0] }, G()), RangeError,
      /^gridSample: X: a spatial dimension is 0 in shape \[1, 1, 4, 0\] but the output \[1, 1, 6, 6\] asks for samples from it$/);
  });
  add('affineGrid of empty sizes', (gs) => {
    assert.deepEqual(gs.affineGrid({ data: f32(0), shape: [0, 2, 3] }, [0, 1, 4, 4]).shape, [0, 4, 4, 2]);
    assert.deepEqual(gs.affineGrid(THETA(), [1, 3, 0, 4]).shape, [1, 0, 4, 2]);
  });
  add('empty heap tensors, and a rank-0 one', (gs) => {
    const e = gs.tensor('float32', [0, 3]);
    assert.deepEqual([e.size, e.byteLength, e.data.length], [0, 0, 0]);
    e.dispose();
    const s = gs.tensor('int8', []);
    assert.deepEqual([s.size, s.data.length, [...s.shape]], [1, 1, []]);
    s.dispose();
  });
  add('warpAffine: empty image to empty output, and width 0 from a real image', (gs) => {
    const y = gs.warpAffine({ data: new Uint8Array(0), width: 0, height: 0 }, I6);
    assert.deepEqual([y.width, y.height, y.data.length], [0, 0, 0]);
    assert.equal(gs.warpAffine(IMG(), I6, { width: 0, height: 3 }).data.length, 0);
  });
  add('size-1 axes: S = 1 with align_corners=1 maps every g to pixel 0', (gs) => {
    const x = { data: Float32Array.from([5]), shape: [1, 1, 1, 1] };
    const grid = { data: Float32Array.from([0.9, -0.7, 0, 0, -1, 1]), shape: [1, 1, 3, 2] };
    for (const mode of MODES) {
      assert.deepEqual(Array.from(gs.gridSample(x, grid, { mode, alignCorners: true }).data), [5, 5, 5], mode);
    }
    // align 0, zeros: g = 0.9 is x = 0.45: pixel 0 weighs 0.55, the outside tap 0.
    assertClose(gs.gridSample(x, { data: Float32Array.from([0.9, 0]), shape: [1, 1, 1, 2] }).data, [2.75], 1e-6);
  });
  add('size-1 axes in affineGrid: base coordinate 0 for both aligns', (gs) => {
    const theta = { data: Float32Array.from([2, 3, 0.25, 4, 5, -0.5]), shape: [1, 2, 3] };
    for (const alignCorners of [false, true]) {
      assert.deepEqual(Array.from(gs.affineGrid(theta, [1, 1, 1, 1], { alignCorners }).data), [0.25, -0.5]);
    }
  });
  // Non-finite grid values give 0 in every mode, padding and align, any grid dtype.
  const bad = [NaN, Infinity, -Infinity];
  const half = { float16: [0x7e00, 0x7c00, 0xfc00], bfloat16: [0x7fc0, 0x7f80, 0xff80] };
  add('NaN and ±Inf grid coordinates give 0 (every mode, padding, align; float32/64/16, bfloat16)', (gs) => {
    const x = xs([1, 2, 4, 4], 7);
    const xcl = xs([1, 4, 4, 2], 7);
    const grids = [];
    for (const [Ctor, dtype, values] of [[Float32Array, 'float32', bad], [Float64Array, 'float64', bad], [Uint16Array, 'float16', half.float16], [Uint16Array, 'bfloat16', half.bfloat16]]) {
      const data = [];
      for (const v of values) data.push(v, 0, 0, v, v, v); // 0 is +0 in every encoding
      grids.push({ data: Ctor.from(data), shape: [1, 1, 9, 2], dtype });
    }
    for (const grid of grids) {
      for (const mode of MODES) {
        for (const paddingMode of PADDINGS) {
          for (const alignCorners of [false, true]) {
            const o = { mode, paddingMode, alignCorners };
            assert.deepEqual(Array.from(gs.gridSample(x, grid, o).data), new Array(18).fill(0), `${grid.dtype} ${JSON.stringify(o)}`);
            assert.deepEqual(Array.from(gs.gridSampleChannelsLast(xcl, grid, o).data), new Array(18).fill(0), `channels-last ${grid.dtype} ${JSON.stringify(o)}`);
          }
        }
      }
    }
  });
  add('±1e38 grid coordinates follow the padding rule', (gs) => {
    const g = (pts) => ({ data: Float32Array.from(pts.flat()), shape: [1, 1, pts.length, 2] });
    const pts = [[1e38, 0], [-1e38, -1e38], [1e38, 1e38], [-3.4e38, 3.4e38]];
    for (const mode of MODES) {
      assert.deepEqual(Array.from(gs.gridSample(X(), g(pts), { mode }).data), [0, 0, 0, 0], `${mode} zeros`);
    }
    // Border: clamped to the edge; y = 0 is row 1.5 (align 0).
    assertClose(gs.gridSample(X(), g(pts), { paddingMode: 'border' }).data, [9, 0, 15, 12], 1e-5, 'linear border');
    assertClose(gs.gridSample(X(), g(pts), { paddingMode: 'border', mode: 'nearest' }).data, [11, 0, 15, 12], 0, 'nearest border');
    assertClose(gs.gridSample(X(), g(pts), { paddingMode: 'border', mode: 'cubic' }).data.slice(1), [0, 15, 12], 1e-5, 'cubic border');
    // Reflection repeats every 4 in normalised units: a huge g samples where g mod 4 (exact for
    // doubles, as JavaScript's %) does, through a float32 or a float64 grid.
    const reduced = pts.map((p) => p.map((v) => Math.fround(v) % 4));
    for (const mode of MODES) {
      for (const alignCorners of [false, true]) {
        const o = { mode, paddingMode: 'reflection', alignCorners };
        const want = Array.from(gs.gridSample(X(), { data: Float64Array.from(reduced.flat()), shape: [1, 1, 4, 2] }, o).data);
        assertClose(gs.gridSample(X(), g(pts), o).data, want, 1e-5, `float32 grid ${JSON.stringify(o)}`);
        assertClose(gs.gridSample(X(), { ...g(pts), data: Float64Array.from(pts.flat().map(Math.fround)) }, o).data, want, 1e-5, `float64 grid ${JSON.stringify(o)}`);
      }
    }
  });
  add('non-finite theta: affineGrid gives NaN/±Inf coordinates where they reach, gridSample then 0', (gs) => {
    const theta = { data: Float32Array.from([NaN, 0, 0, 0, Infinity, 0]), shape: [1, 2, 3] };
    const grid = gs.affineGrid(theta, [1, 1, 2, 2]);
    // x = NaN everywhere; y = Inf * base_y (base_y = -0.5, 0.5).
    assert.deepEqual(Array.from(grid.data), [NaN, -Infinity, NaN, -Infinity, NaN, Infinity, NaN, Infinity]);
    assert.deepEqual(Array.from(gs.gridSample(X(), grid, { paddingMode: 'border' }).data), [0, 0, 0, 0]);
    const big = gs.affineGrid({ data: Float32Array.from([1e38, 0, 0, 0, 1, -1e38]), shape: [1, 2, 3] }, [1, 1, 2, 2]);
    assertClose(big.data, [-5e37, -1e38, 5e37, -1e38, -5e37, -1e38, 5e37, -1e38], 1e31);
  });
  add('non-finite theta in warpAffine: transparent pixels; ±1e38 follows the padding', (gs) => {
    const image = { data: Uint8Array.from({ length: 3 * 4 * 4 }, (_, i) => 1 + i), width: 4, height: 3 };
    for (const theta of [[NaN, 0, 0, 0, 1, 0], [1, 0, 0, 0, 1, Infinity], [Infinity, 0, 0, 0, 1, 0]]) {
      for (const paddingMode of PADDINGS) {
        for (const mode of MODES) {
          for (const T of [Float64Array, Float32Array]) {
            assert.deepEqual(Array.from(gs.warpAffine(image, T.from(theta), { mode, paddingMode }).data), new Array(48).fill(0), `${theta} ${mode} ${paddingMode}`);
          }
        }
      }
    }
    // x far to the right, y unchanged: border repeats the last column.
    const y = gs.warpAffine(image, [0, 0, 1e38, 0, 1, 0], { paddingMode: 'border', mode: 'nearest' }).data;
    for (let row = 0; row < 3; ++row) {
      for (let col = 0; col < 4; ++col) {
        assert.deepEqual(Array.from(y.slice((row * 4 + col) * 4, (row * 4 + col + 1) * 4)), Array.from(image.data.slice((row * 4 + 3) * 4, (row * 4 + 4) * 4)));
      }
    }
    assert.deepEqual(Array.from(gs.warpAffine(image, [0, 0, -1e38, 0, 1, 0]).data), new Array(48).fill(0));
  });
  add('NaN and Inf in X reach only outputs whose taps touch them', (gs) => {
    // 8x8 ramp with NaN at pixel (0, 0) and +Inf at (7, 7); the centre's taps (rows and
    // columns 2..5, even for cubic) are clean.
    const data = Float32Array.from({ length: 64 }, (_, i) => i);
    data[0] = NaN;
    data[63] = Infinity;
    const x = { data, shape: [1, 1, 8, 8] };
    const clean = { data: Float32Array.from({ length: 64 }, (_, i) => i), shape: [1, 1, 8, 8] };
    // Pixel centres (align 0): pixel k is at (2k + 1) / 8 - 1.
    const c = (k) => (2 * k + 1) / 8 - 1;
    const grid = { data: Float32Array.from([0, 0, c(3), c(4), c(0), c(0), c(7), c(7)]), shape: [1, 1, 4, 2] };
    for (const mode of MODES) {
      for (const paddingMode of PADDINGS) {
        const o = { mode, paddingMode };
        const y = gs.gridSample(x, grid, o).data;
        const want = gs.gridSample(clean, grid, o).data;
        assert.equal(y[0], want[0], `centre ${JSON.stringify(o)}`);
        assert.equal(y[1], want[1], `pixel (4, 3) ${JSON.stringify(o)}`);
        if (mode === 'nearest') assert.deepEqual([y[2], y[3]], [NaN, Infinity], `the pixels themselves ${JSON.stringify(o)}`);
        else assert.ok(!Number.isFinite(y[2]) && !Number.isFinite(y[3]), `the pixels themselves ${JSON.stringify(o)}: ${y}`);
      }
    }
  });
  return cases;
}

// The total a call allocates is checked before anything is allocated: heapSize() stays put.
function budgetCases() {
  const cases = [];
  const add = (what, call, expect) => cases.push([what, (gs) => {
    const size = gs.heapSize();
    try {
      return call(gs);
    } finally {
      assert.equal(gs.heapSize(), size, 'the memory did not grow: nothing was allocated');
    }
  }, expect]);
  // 1.2 GB of input and 1.2 GB of output: each fits, together they cannot. JavaScript
  // allocates the input lazily (it is never touched).
  add('gridSample: x and the output together exceed 2 GiB', (gs) => gs.gridSample({ data: lazy(3e8), shape: [1, 600, 1, 5e5] }, { data: lazy(1e6), shape: [1, 1, 5e5, 2] }),
    [RangeError, /^gridSample: the call would need 2404000000 bytes \(2\.2 GiB\) in the wasm heap for x \(1200000000\) \+ grid \(4000000\) \+ the output \(1200000000\); the wasm heap is limited to 2 GiB$/]);
  add('gridSampleChannelsLast: x and the output together exceed 2 GiB', (gs) => gs.gridSampleChannelsLast({ data: lazy(3e8), shape: [1, 1, 5e5, 600] }, { data: lazy(1e6), shape: [1, 1, 5e5, 2] }),
    [RangeError, /^gridSampleChannelsLast: the call would need 2404000000 bytes \(2\.2 GiB\) in the wasm heap for x \(1200000000\) \+ grid \(4000000\) \+ the output \(1200000000\); the wasm heap is limited to 2 GiB$/]);
  add('warpAffine: image and output together exceed 2 GiB', (gs) => gs.warpAffine({ data: new Uint8Array(1.2e9), width: 30000, height: 10000 }, I6),
    [RangeError, /^warpAffine: the call would need 2400000000 bytes \(2\.2 GiB\) in the wasm heap for image \(1200000000\) \+ the output \(1200000000\); the wasm heap is limited to 2 GiB$/]);
  add('affineGrid: theta and the grid together exceed 2 GiB', (gs) => gs.affineGrid({ data: lazy(4.2e8), shape: [7e7, 2, 3] }, [7e7, 1, 1, 1]),
    [RangeError, /^affineGrid: the call would need 2240000000 bytes \(2\.1 GiB\) in the wasm heap for theta \(1680000000\) \+ the output \(560000000\); the wasm heap is limited to 2 GiB$/]);
  return cases;
}

// --- running the tables ------------------------------------------------------------------------

const modules = {};
for (const variant of variants) modules[variant] = await load({ variant });
// The other module of a case (tensors from a different instance): the other variant, else a
// second instance of the same one.
const peers = {};
for (const variant of variants) peers[variant] = modules[other[variant]] || await load({ variant });

const TABLES = () => [
  ...SLOTS.flatMap((slot) => slotCases(slot).map(([what, call, expect]) => [what, call, expect.ok ? { ok: true, check: slot.check } : expect])),
  ...optionCases(),
  ...shapeCases(),
  ...lifecycleCases(),
  ...resultCases(),
  ...budgetCases(),
];

const heapReport = {};
for (const variant of variants) {
  const gs = modules[variant];
  const peer = peers[variant];
  describe(`${gs.backend}: hostile input to every function`, () => {
    let used;
    let size;
    before(() => {
      // Warm-up: the first calls of each kind may allocate lasting runtime state (embind).
      assertModuleWorks(gs);
      assertModuleWorks(peer);
      used = gs.heapUsed();
      size = gs.heapSize();
    });
    for (const [what, call, expect] of TABLES()) {
      test(what, () => {
        const before = gs.heapUsed();
        const peerBefore = peer.heapUsed();
        runCase(gs, peer, call, expect);
        assert.equal(gs.heapUsed(), before, 'heap bytes in use after the case');
        assert.equal(peer.heapUsed(), peerBefore, "the other module's heap bytes in use after the case");
        assertModuleWorks(gs);
        assert.equal(gs.heapUsed(), before, 'heap bytes in use after the next calls');
      });
    }
    test('the heap is flat over the whole suite', () => {
      heapReport[variant] = { used, end: gs.heapUsed(), size, sizeEnd: gs.heapSize() };
      assert.equal(gs.heapUsed(), used, 'heapUsed() after warm-up and at the end');
      // Nothing in the suite may grow the memory much: the budget cases allocate nothing.
      assert.ok(gs.heapSize() <= Math.max(size, 32 * 2 ** 20), `heapSize() grew from ${size} to ${gs.heapSize()}`);
    });
  });
}

test('suite duration', () => {
  const s = (performance.now() - SUITE_START) / 1000;
  const report = Object.entries(heapReport).map(([v, h]) => `${v}: heapUsed ${h.used} -> ${h.end}, heapSize ${h.size} -> ${h.sizeEnd}`).join('; ');
  console.log(`# hostile suite: ${s.toFixed(1)} s; ${report}`);
});
