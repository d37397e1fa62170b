// The hostile-input suite's arguments with known answers and its case tables for the tensor arguments, the options and the shapes of every function, with the runner of one case.
import assert from 'node:assert/strict';

import { DTYPE_NAMES, HeapTensor, simdSupported } from '../../../js/node.mjs';
import { assertClose, detached, esc, expectError, IDENTITY_GRID_2x2 } from './hostile.mjs';
import { BASIC, PRINTED_ATOL } from './onnx_examples.mjs';

export const variants = ['simd', 'scalar'].filter((v) => v === 'scalar' || simdSupported());
export const other = { simd: 'scalar', scalar: 'simd' };
export const MODES = ['linear', 'nearest', 'cubic'];
export const PADDINGS = ['zeros', 'border', 'reflection'];

// --- arguments with known answers ------------------------------------------------------------

export const X = () => ({ data: BASIC.x.data.slice(), shape: [1, 1, 4, 4] });
export const G = () => ({ data: BASIC.grid.data.slice(), shape: [1, 6, 6, 2] });
const XCL = () => ({ data: BASIC.x.data.slice(), shape: [1, 4, 4, 1] });
export const THETA = () => ({ data: Float32Array.from([1, 0, 0, 0, 1, 0]), shape: [1, 2, 3] });
const OUT = () => ({ data: new Float32Array(36), shape: [1, 1, 6, 6] });
export const IMG = () => ({ data: Uint8ClampedArray.from({ length: 16 }, (_, i) => 16 * i), width: 2, height: 2 });
export const I6 = [1, 0, 0, 0, 1, 0];
const I9 = [1, 0, 0, 0, 1, 0, 0, 0, 1];
export const f32 = (n, v = 0) => new Float32Array(n).fill(v);
export const lazy = (n) => new Float32Array(n); // never written: the OS commits no memory for it
export const nearBasic = (data) => assertClose(data, BASIC.y, PRINTED_ATOL, 'result');

// The tensor arguments of the package. `valid()` makes a correct value, `call(gs, v)` passes
// `v` in its place, `check(result)` verifies a call that succeeded.
export const SLOTS = [
  { fn: 'gridSample', arg: 'x', valid: X, call: (gs, v) => gs.gridSample(v, G()), check: (y) => nearBasic(y.data) },
  { fn: 'gridSample', arg: 'grid', valid: G, call: (gs, v) => gs.gridSample(X(), v), check: (y) => nearBasic(y.data) },
  { fn: 'gridSample', arg: 'options.out', valid: OUT, out: true, call: (gs, v) => gs.gridSample(X(), G(), { out: v }), check: (y) => nearBasic(y.data) },
  { fn: 'gridSampleChannelsLast', arg: 'x', valid: XCL, call: (gs, v) => gs.gridSampleChannelsLast(v, G()), check: (y) => nearBasic(y.data) },
  { fn: 'gridSampleChannelsLast', arg: 'grid', valid: G, call: (gs, v) => gs.gridSampleChannelsLast(XCL(), v), check: (y) => nearBasic(y.data) },
  { fn: 'affineGrid', arg: 'theta', valid: THETA, call: (gs, v) => gs.affineGrid(v, [1, 1, 2, 2]), check: (g) => assert.deepEqual(Array.from(g.data), IDENTITY_GRID_2x2) },
  {
    fn: 'tensorFrom', arg: 'source', valid: X,
    call: (gs, v) => { const t = gs.tensorFrom(v); try { return Array.from(t.data); } finally { t.dispose(); } },
    check: (d) => assert.deepEqual(d, Array.from(BASIC.x.data)),
  },
];

// A Proxy whose every trap throws, and the error it throws.
const TRAP = new RangeError('thrown by a Proxy trap');
const trapProxy = () => new Proxy({}, { get() { throw TRAP; }, has() { throw TRAP; }, ownKeys() { throw TRAP; } });
export const GETTER = new Error('thrown by a getter');
const LOOKALIKE = 'an object that only inherits from HeapTensor \\(a Proxy of a heap tensor or Object\\.create\\(HeapTensor\\.prototype\\)\\); pass the tensor itself';

function hugeLengthProxy() {
  // An "array" of 2^32 - 1 dimensions: must be refused without iterating it.
  return new Proxy([1], { get: (o, k) => (k === 'length' ? 2 ** 32 - 1 : k in o ? o[k] : 1) });
}

// Cases of one slot: [what, (gs, peer) => the call, expectation]. An expectation is
// [ErrorClass, pattern], {rethrows: error} (the caller's own exception passes through), or
// {ok: true} (a valid, unusual argument; the slot's check runs on the result).
export function slotCases(slot) {
  const { fn, arg, valid, call } = slot;
  const head = `^${esc(fn)}: ${esc(arg)}`;
  const v = valid();
  const n = v.data.length;
  const shape = v.shape;
  const shapeText = esc(`[${shape.join(', ')}]`);
  const withData = (data) => ({ data, shape: shape.slice() });
  const withShape = (s) => ({ data: v.data.slice(), shape: s });
  const cases = [];
  const add = (what, make, expect) => cases.push([`${fn} ${arg}: ${what}`, (gs, peer) => call(gs, make(gs, peer)), expect]);
  const expected = slot.out ? 'a typed array or a tensor \\{data, shape\\}' : 'a tensor \\{data, shape\\} or \\{data, dims\\}';

  // Wrong types.
  for (const [what, value, given] of [
    ['null', null, 'null'], ['a string', '1,1,4,4', '"1,1,4,4"'], ['a number', 16, '16'], ['a bigint', 16n, '16n'],
    ['a symbol', Symbol('s'), 'Symbol\\(s\\)'], ['true', true, 'true'], ['a function', function f() {}, 'function f'],
  ]) {
    add(`is ${what}`, () => value, [TypeError, new RegExp(`${head}: expected ${expected}, got ${given}$`)]);
  }
  if (!slot.out) {
    add('is missing', () => undefined, [TypeError, new RegExp(`${head}: expected ${expected}, got undefined$`)]);
    add('is a bare typed array', () => v.data.slice(), [TypeError, new RegExp(`${head}: expected ${expected}, got Float32Array\\(${n}\\)$`)]);
  }
  add('is a plain array of numbers', () => Array.from(v.data), [TypeError, new RegExp(`${head}: expected a tensor \\{data, shape\\} or \\{data, dims\\}, got Array\\(${n}\\)$`)]);

  // Wrong data.
  const dataExpect = (given) => [TypeError, new RegExp(`${head}\\.data: expected a typed array, got ${given}$`)];
  add('data is a plain array', () => withData(Array.from(v.data)), dataExpect(`Array\\(${n}\\)`));
  add('data is an ArrayBuffer', () => withData(v.data.slice().buffer), dataExpect(`ArrayBuffer\\(${4 * n}\\)`));
  add('data is a SharedArrayBuffer', () => withData(new SharedArrayBuffer(4 * n)), dataExpect(`SharedArrayBuffer\\(${4 * n}\\)`));
  add('data is a DataView', () => withData(new DataView(v.data.slice().buffer)), dataExpect('a DataView'));
  add('data is missing', () => ({ shape: shape.slice() }), dataExpect('undefined'));
  add('data is a Proxy of a Float32Array', () => withData(new Proxy(v.data.slice(), {})),
    dataExpect('an object posing as a Float32Array \\(not a typed array itself: a Proxy or a copy of its prototype\\)'));
  add('data is a BigInt64Array (int64 is not a dtype)', () => withData(new BigInt64Array(n)),
    [TypeError, new RegExp(`${head}\\.data: expected one of Float32Array, Float64Array, .*, got BigInt64Array\\(${n}\\)$`)]);
  add('data is detached', () => withData(detached(v.data.slice())),
    [TypeError, new RegExp(`${head}\\.data: the ArrayBuffer is detached \\(transferred, or a wasm memory view from before the memory grew\\); pass a live array$`)]);
  add('dtype names another type than the array', () => ({ ...withData(v.data.slice()), dtype: 'float64' }),
    [TypeError, new RegExp(`${head}\\.data: expected Float64Array for dtype float64, got Float32Array\\(${n}\\)$`)]);
  add("dtype is '__proto__'", () => ({ ...withData(v.data.slice()), dtype: '__proto__' }),
    [RangeError, new RegExp(`${head}\\.dtype: expected one of ${DTYPE_NAMES.join(', ')}, got "__proto__"$`)]);

  // The caller's own exceptions pass through unchanged.
  add('data is a getter that throws', () => ({ get data() { throw GETTER; }, shape: shape.slice() }), { rethrows: GETTER });
  add('shape is a getter that throws', () => ({ data: v.data.slice(), get shape() { throw GETTER; } }), { rethrows: GETTER });
  add('is a Proxy whose traps throw', () => trapProxy(), { rethrows: TRAP });

  // Wrong shapes.
  const dim = (given, type = RangeError) => [type, new RegExp(`${head}\\.shape\\[1\\]: expected a non-negative integer, got ${given}`)];
  const at1 = (d) => { const s = shape.slice(); s[1] = d; return withShape(s); };
  add('a negative dim', () => at1(-1), dim('-1 in \\['));
  add('a fractional dim', () => at1(1.5), dim('1\\.5 in \\['));
  add('a NaN dim', () => at1(NaN), dim('NaN in \\['));
  add('an infinite dim', () => at1(-Infinity), dim('-Infinity in \\['));
  add('a dim of 2^53', () => at1(2 ** 53), dim('9007199254740992 in \\['));
  add('a negative bigint dim', () => at1(-1n), dim('-1n in \\['));
  add("a dim '4' (a string)", () => at1('4'), dim('"4"$', TypeError));
  add('a dim null', () => at1(null), dim('null$', TypeError));
  add('a dim that is an object', () => at1({ valueOf: () => 4 }), dim('an object$', TypeError));
  add('shape is a string', () => withShape('1,1,4,4'), [TypeError, new RegExp(`${head}\\.shape: expected an array of non-negative integers, got "1,1,4,4"$`)]);
  add('shape has 33 dims', () => withShape(new Array(33).fill(1)), [RangeError, new RegExp(`${head}\\.shape: expected at most 32 dimensions, got 33$`)]);
  add('shape claims 2^32 - 1 dims', () => withShape(hugeLengthProxy()), [RangeError, new RegExp(`${head}\\.shape: expected at most 32 dimensions, got 4294967295$`)]);
  add('shape and dims disagree', () => ({ ...withShape(shape.slice()), dims: [...shape.slice(0, -1), shape.at(-1) + 1] }),
    [RangeError, new RegExp(`${head}: shape ${shapeText} and dims \\[.*\\] disagree$`)]);
  // Products beyond 32 bits and beyond 53 bits, reported exactly.
  add('a product of 2^34 elements', () => withShape([1, 2 ** 17, 2 ** 17, 1]),
    [RangeError, new RegExp(`${head} would need 68719476736 bytes \\(64 GiB\\): shape \\[1, 131072, 131072, 1\\] is 17179869184 float32 elements; the wasm heap is limited to 2 GiB$`)]);
  add('a product of 2^90 elements', () => withShape([2 ** 30, 2 ** 30, 2 ** 30, 1]),
    [RangeError, new RegExp(`${head} would need 4951760157141521099596496896 bytes \\(.* EiB\\): shape \\[1073741824, 1073741824, 1073741824, 1\\] is 1237940039285380274899124224 float32 elements; the wasm heap is limited to 2 GiB$`)]);
  add('an empty shape whose other dims overflow', () => ({ data: new Float32Array(0), shape: [0, 2 ** 30, 2 ** 30, 2 ** 30] }),
    [RangeError, new RegExp(`${head} would need .* bytes .*: shape \\[0, 1073741824, 1073741824, 1073741824\\] is empty, but its nonzero dimensions alone make 1237940039285380274899124224 float32 elements; the wasm heap is limited to 2 GiB$`)]);
  add('data one element short', () => withData(v.data.slice(1)),
    [RangeError, new RegExp(`${head}: data has ${n - 1} elements but shape ${shapeText} needs ${n}$`)]);
  add('data one element long', () => withData(f32(n + 1)),
    [RangeError, new RegExp(`${head}: data has ${n + 1} elements but shape ${shapeText} needs ${n}$`)]);

  // Heap tensors: look-alikes, disposed ones (of this module and of another).
  add('a Proxy of a heap tensor', (gs) => new Proxy(keep(gs.tensorFrom(valid())), {}), [TypeError, new RegExp(`${head}: expected a heap tensor made by gs\\.tensor\\(\\) or gs\\.tensorFrom\\(\\), got ${LOOKALIKE}$`)]);
  add('Object.create(HeapTensor.prototype)', () => Object.create(HeapTensor.prototype), [TypeError, new RegExp(`${head}: expected a heap tensor made by gs\\.tensor\\(\\) or gs\\.tensorFrom\\(\\), got ${LOOKALIKE}$`)]);
  add('a disposed heap tensor', (gs) => { const t = gs.tensorFrom(valid()); t.dispose(); return t; },
    [TypeError, new RegExp(`${head}: this float32 tensor of shape ${shapeText} was disposed$`)]);
  add('a disposed heap tensor of another module', (gs, peer) => { const t = peer.tensorFrom(valid()); t.dispose(); return t; },
    [TypeError, new RegExp(`${head}: this float32 tensor of shape ${shapeText} was disposed$`)]);

  // Unusual but valid: each must give the right answer.
  const ok = { ok: true };
  add('data in a SharedArrayBuffer', () => { const d = new Float32Array(new SharedArrayBuffer(4 * n)); d.set(v.data); return withData(d); }, ok);
  add('data a subarray at an offset', () => { const big = f32(n + 13, 99); big.set(v.data, 7); return withData(big.subarray(7, 7 + n)); }, ok);
  add('data an odd-offset view of a shared buffer', () => { const b = new ArrayBuffer(4 * n + 12); const d = new Float32Array(b, 8, n); d.set(v.data); return withData(d); }, ok);
  add('a Proxy of a valid tensor object', () => new Proxy(valid(), {}), ok);
  add('a frozen tensor with a frozen shape', () => Object.freeze({ data: v.data.slice(), shape: Object.freeze(shape.slice()) }), ok);
  add('dims (onnxruntime) as a BigInt64Array and type', () => ({ data: v.data.slice(), dims: BigInt64Array.from(shape, BigInt), type: 'float32' }), ok);
  add('shape as a Float64Array', () => ({ data: v.data.slice(), shape: Float64Array.from(shape) }), ok);
  add('a heap tensor of this module', (gs) => keep(gs.tensorFrom(valid())), ok);
  add('a heap tensor of another module (read by copy)', (gs, peer) => keep(peer.tensorFrom(valid())), ok);
  return cases;
}

// Heap tensors a case made that must outlive the call; freed after the case.
let kept = [];
export function keep(t) {
  kept.push(t);
  return t;
}

// --- per-function cases beyond the tensor slots -------------------------------------------------

export function optionCases() {
  const cases = [];
  const calls = {
    gridSample: [(gs, o) => gs.gridSample(X(), G(), o), 'mode, paddingMode, padding_mode, alignCorners, align_corners, out'],
    gridSampleChannelsLast: [(gs, o) => gs.gridSampleChannelsLast(XCL(), G(), o), 'mode, paddingMode, padding_mode, alignCorners, align_corners, out'],
    warpAffine: [(gs, o) => gs.warpAffine(IMG(), I6, o), 'mode, paddingMode, padding_mode, alignCorners, align_corners, width, height, out, space, inverse, fill, rows'],
    warpPerspective: [(gs, o) => gs.warpPerspective(IMG(), I9, o), 'mode, paddingMode, padding_mode, alignCorners, align_corners, width, height, out, space, inverse, fill, rows'],
    affineGrid: [(gs, o) => gs.affineGrid(THETA(), [1, 1, 2, 2], o), 'alignCorners, align_corners, out'],
  };
  const modes = "'linear', 'bilinear', 'nearest', 'cubic' or 'bicubic'";
  const paddings = "'zeros', 'border' or 'reflection'";
  for (const [fn, [call, known]] of Object.entries(calls)) {
    const add = (what, options, expect) => cases.push([`${fn} options: ${what}`, (gs) => call(gs, options()), expect]);
    const head = `^${esc(fn)}: options`;
    add('a string', () => 'bilinear', [TypeError, new RegExp(`${head}: expected an object, got "bilinear"$`)]);
    add('an array', () => [], [TypeError, new RegExp(`${head}: expected an object, got Array\\(0\\)$`)]);
    add('a number', () => 1, [TypeError, new RegExp(`${head}: expected an object, got 1$`)]);
    add('a typed array', () => new Uint8Array(2), [TypeError, new RegExp(`${head}: expected an object, got Uint8Array\\(2\\)$`)]);
    add('an unknown key', () => ({ padding: 'zeros' }), [TypeError, new RegExp(`${head}\\.padding: unknown option; expected ${esc(known)}$`)]);
    add('a misspelt key', () => ({ aligncorners: true }), [TypeError, new RegExp(`${head}\\.aligncorners: unknown option; expected ${esc(known)}$`)]);
    add('a getter that throws', () => ({ get alignCorners() { throw GETTER; } }), { rethrows: GETTER });
    add('a Proxy whose traps throw', () => trapProxy(), { rethrows: TRAP });
    add('alignCorners 2', () => ({ alignCorners: 2 }), [RangeError, new RegExp(`${head}\\.alignCorners: expected true, false, 0 or 1, got 2$`)]);
    add('alignCorners -1', () => ({ alignCorners: -1 }), [RangeError, new RegExp(`${head}\\.alignCorners: expected true, false, 0 or 1, got -1$`)]);
    add('alignCorners NaN', () => ({ alignCorners: NaN }), [RangeError, new RegExp(`${head}\\.alignCorners: expected true, false, 0 or 1, got NaN$`)]);
    add("alignCorners 'false'", () => ({ alignCorners: 'false' }), [TypeError, new RegExp(`${head}\\.alignCorners: expected true, false, 0 or 1, got "false"$`)]);
    add('alignCorners null', () => ({ alignCorners: null }), [TypeError, new RegExp(`${head}\\.alignCorners: expected true, false, 0 or 1, got null$`)]);
    add('alignCorners 1n', () => ({ align_corners: 1n }), [TypeError, new RegExp(`${head}\\.align_corners: expected true, false, 0 or 1, got 1n$`)]);
    add('alignCorners and align_corners', () => ({ alignCorners: true, align_corners: true }), [TypeError, new RegExp(`${head}: give alignCorners or align_corners, not both$`)]);
    add('out is a number', () => ({ out: 5 }), [TypeError, new RegExp(`${head}\\.out: expected .*, got 5$`)]);
    if (fn === 'affineGrid') continue;
    add("mode 'trilinear'", () => ({ mode: 'trilinear' }), [RangeError, new RegExp(`${head}\\.mode: expected ${esc(modes)}, got "trilinear"$`)]);
    add("mode 'Linear'", () => ({ mode: 'Linear' }), [RangeError, new RegExp(`${head}\\.mode: expected ${esc(modes)}, got "Linear"$`)]);
    add("mode ' linear'", () => ({ mode: ' linear' }), [RangeError, new RegExp(`${head}\\.mode: expected ${esc(modes)}, got " linear"$`)]);
    add("mode 'toString' (an inherited name)", () => ({ mode: 'toString' }), [RangeError, new RegExp(`${head}\\.mode: expected ${esc(modes)}, got "toString"$`)]);
    add('mode 0', () => ({ mode: 0 }), [TypeError, new RegExp(`${head}\\.mode: expected ${esc(modes)}, got 0$`)]);
    add('mode a String object', () => ({ mode: new String('linear') }), [TypeError, new RegExp(`${head}\\.mode: expected ${esc(modes)}, got a String$`)]);
    add('mode null', () => ({ mode: null }), [TypeError, new RegExp(`${head}\\.mode: expected ${esc(modes)}, got null$`)]);
    add("paddingMode 'reflect'", () => ({ paddingMode: 'reflect' }), [RangeError, new RegExp(`${head}\\.paddingMode: expected ${esc(paddings)}, got "reflect"$`)]);
    add('padding_mode 1', () => ({ padding_mode: 1 }), [TypeError, new RegExp(`${head}\\.padding_mode: expected ${esc(paddings)}, got 1$`)]);
    add('paddingMode and padding_mode', () => ({ paddingMode: 'zeros', padding_mode: 'border' }), [TypeError, new RegExp(`${head}: give paddingMode or padding_mode, not both$`)]);
  }
  // warpAffine's size options.
  const wa = (what, options, expect) => cases.push([`warpAffine options: ${what}`, (gs) => gs.warpAffine(IMG(), I6, options), expect]);
  wa('width -1', { width: -1 }, [RangeError, /^warpAffine: options\.width: expected a non-negative integer, got -1$/]);
  wa('width 1.5', { width: 1.5 }, [RangeError, /^warpAffine: options\.width: expected a non-negative integer, got 1\.5$/]);
  wa('width NaN', { width: NaN }, [RangeError, /^warpAffine: options\.width: expected a non-negative integer, got NaN$/]);
  wa('height Infinity', { height: Infinity }, [RangeError, /^warpAffine: options\.height: expected a non-negative integer, got Infinity$/]);
  wa('height 2^53', { height: 2 ** 53 }, [RangeError, /^warpAffine: options\.height: expected a non-negative integer, got 9007199254740992$/]);
  wa("width '4'", { width: '4' }, [TypeError, /^warpAffine: options\.width: expected a non-negative integer, got "4"$/]);
  wa('width 4n', { width: 4n }, [TypeError, /^warpAffine: options\.width: expected a non-negative integer, got 4n$/]);
  wa('width 2^40 (the output overflows the heap)', { width: 2 ** 40, height: 1 },
    [RangeError, /^warpAffine: the output would need 4398046511104 bytes \(4 TiB\): shape \[1, 1, 1099511627776, 4\] is 4398046511104 uint8 elements; the wasm heap is limited to 2 GiB$/]);
  // Valid unusual options.
  const ok = { ok: true, check: null };
  cases.push(['gridSample options: null', (gs) => nearBasic(gs.gridSample(X(), G(), null).data), ok]);
  cases.push(['gridSample options: a prototype-less object', (gs) => nearBasic(gs.gridSample(X(), G(), Object.assign(Object.create(null), { mode: 'bilinear', alignCorners: 0 })).data), ok]);
  cases.push(['gridSample options: a Proxy of valid options', (gs) => nearBasic(gs.gridSample(X(), G(), new Proxy({ padding_mode: 'zeros' }, {})).data), ok]);
  cases.push(['gridSample options: undefined values are defaults', (gs) => nearBasic(gs.gridSample(X(), G(), { mode: undefined, paddingMode: undefined, alignCorners: undefined, out: undefined }).data), ok]);
  return cases;
}

export function shapeCases() {
  const cases = [];
  const add = (what, call, expect) => cases.push([what, call, expect]);
  // Ranks and batch sizes that disagree.
  add('gridSample: x of rank 3 with a grid of rank 4', (gs) => gs.gridSample({ data: f32(4), shape: [1, 1, 4] }, G()),
    [RangeError, /^gridSample: X has shape \[1, 1, 4\], 1 spatial axis \[N, C, W\], so grid must have rank 3 and last dimension 1 \(\[N, Wo, 1\]\); got grid shape \[1, 6, 6, 2\] \(rank 4\), which samples X of shape \[N, C, H, W\] \(is X missing its channel axis\? \[1, 1, 1, 4\] for one channel\)$/]);
  add('gridSample: x of rank 11', (gs) => gs.gridSample({ data: f32(1), shape: new Array(11).fill(1) }, G()),
    [RangeError, /^gridSample: X: expected rank 3 to 10 \(N, C, D1\.\.Dr\), got rank 11 shape \[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1\]$/]);
  add('gridSample: x of rank 0', (gs) => gs.gridSample({ data: f32(1), shape: [] }, G()),
    [RangeError, /^gridSample: X: expected rank 3 to 10 \(N, C, D1\.\.Dr\), got rank 0 shape \[\]$/]);
  add('gridSample: grid batch 0 for x batch 1', (gs) => gs.gridSample(X(), { data: f32(0), shape: [0, 6, 6, 2] }),
    [RangeError, /^gridSample: grid: expected batch size N = 1 \(X's\), got shape \[0, 6, 6, 2\]$/]);
  add('gridSampleChannelsLast: x of rank 5', (gs) => gs.gridSampleChannelsLast({ data: f32(16), shape: [1, 1, 4, 4, 1] }, G()),
    [RangeError, /^gridSampleChannelsLast: X: expected rank 4 \(N, H, W, C\), got rank 5 shape \[1, 1, 4, 4, 1\]$/]);
  add('gridSampleChannelsLast: grid of rank 5', (gs) => gs.gridSampleChannelsLast(XCL(), { data: f32(72), shape: [1, 1, 6, 6, 2] }),
    [RangeError, /^gridSampleChannelsLast: grid: expected shape \[N, Ho, Wo, 2\] \(rank 4\), got \[1, 1, 6, 6, 2\]$/]);
  add('gridSampleChannelsLast: a float16 grid in a Float32Array', (gs) => gs.gridSampleChannelsLast(XCL(), { ...G(), dtype: 'float16' }),
    [TypeError, /^gridSampleChannelsLast: grid\.data: expected Uint16Array( or Float16Array)? for dtype float16, got Float32Array\(72\)$/]);
  add('gridSample: a uint8 grid', (gs) => gs.gridSample(X(), { data: new Uint8Array(72), shape: [1, 6, 6, 2] }),
    [TypeError, /^gridSample: grid: expected dtype float32, float64, float16 or bfloat16, got uint8$/]);
  // affineGrid's size.
  const size = (what, s, expect) => add(`affineGrid: size ${what}`, (gs) => gs.affineGrid(THETA(), s), expect);
  size('of 6 values', [1, 1, 1, 2, 2, 2], [RangeError, /^affineGrid: size: expected 4 values \(N, C, H, W\) or 5 \(N, C, D, H, W\), got 6: \[1, 1, 1, 2, 2, 2\]$/]);
  size('of 0 values', [], [RangeError, /^affineGrid: size: expected 4 values .*, got 0: \[\]$/]);
  size('with a string', [1, 1, '2', 2], [TypeError, /^affineGrid: size\[2\]: expected a non-negative integer, got "2"$/]);
  size('with -0.5', [1, 1, -0.5, 2], [RangeError, /^affineGrid: size\[2\]: expected a non-negative integer, got -0\.5 in \[1, 1, -0\.5, 2\]$/]);
  size('with Infinity', [1, 1, Infinity, 2], [RangeError, /^affineGrid: size\[2\]: expected a non-negative integer, got Infinity in /]);
  size('with 2^53 as a bigint', [1n, 1n, 2n ** 53n, 2n], [RangeError, /^affineGrid: size\[2\]: expected a non-negative integer, got 9007199254740992n in /]);
  size('a Float32Array with a fraction', Float32Array.from([1, 1, 2, 2.5]), [RangeError, /^affineGrid: size\[3\]: expected a non-negative integer, got 2\.5 in \[1, 1, 2, 2\.5\]$/]);
  size('a tensor without data', { dims: [4] }, [TypeError, /^affineGrid: size: expected an array \[N, C, H, W\] \/ \[N, C, D, H, W\] or a 1-D tensor of them, got an object$/]);
  size('a DataView', new DataView(new ArrayBuffer(32)), [TypeError, /^affineGrid: size: expected an array .*, got a DataView$/]);
  size('of 2^32 - 1 values', hugeLengthProxy(), [RangeError, /^affineGrid: size: expected at most 32 dimensions, got 4294967295$/]);
  size('whose grid needs 2^62 bytes', [1, 1, 2 ** 30, 2 ** 29], [RangeError, /^affineGrid: the output grid would need 4611686018427387904 bytes \(4 EiB\): shape \[1, 1073741824, 536870912, 2\] is 1152921504606846976 float32 elements; the wasm heap is limited to 2 GiB$/]);
  add('affineGrid: 2-D theta for a 3-D size', (gs) => gs.affineGrid(THETA(), [1, 1, 2, 2, 2]),
    [RangeError, /^affineGrid: theta: expected shape \[1, 3, 4\] for size \[1, 1, 2, 2, 2\], got \[1, 2, 3\]$/]);
  add('affineGrid: an int32 theta', (gs) => gs.affineGrid({ data: new Int32Array(6), shape: [1, 2, 3] }, [1, 1, 2, 2]),
    [TypeError, /^affineGrid: theta: expected dtype float32, float64, float16 or bfloat16, got int32$/]);
  // warpAffine's image and theta.
  const wa = (what, call, expect) => add(`warpAffine: ${what}`, call, expect);
  wa('image null', (gs) => gs.warpAffine(null, I6), [TypeError, /^warpAffine: image: expected an image \{data, width, height\} \(e\.g\. ImageData\) or a heap tensor, got null$/]);
  wa('image an array', (gs) => gs.warpAffine([1, 2, 3, 4], I6), [TypeError, /^warpAffine: image: expected an image .*, got Array\(4\)$/]);
  wa('image.data a DataView', (gs) => gs.warpAffine({ data: new DataView(new ArrayBuffer(16)), width: 2, height: 2 }, I6),
    [TypeError, /^warpAffine: image\.data: expected a Uint8ClampedArray, Uint8Array or Float32Array, got a DataView$/]);
  wa('image.data a Float64Array', (gs) => gs.warpAffine({ data: new Float64Array(16), width: 2, height: 2 }, I6),
    [TypeError, /^warpAffine: image\.data: expected a Uint8ClampedArray, Uint8Array or Float32Array, got Float64Array\(16\)$/]);
  wa('image.data detached', (gs) => gs.warpAffine({ data: detached(new Uint8Array(16)), width: 2, height: 2 }, I6),
    [TypeError, /^warpAffine: image\.data: the ArrayBuffer is detached/]);
  wa('image.width a getter that throws', (gs) => gs.warpAffine({ data: new Uint8Array(16), get width() { throw GETTER; }, height: 2 }, I6), { rethrows: GETTER });
  wa('image.width 2^53', (gs) => gs.warpAffine({ data: new Uint8Array(16), width: 2 ** 53, height: 2 }, I6),
    [RangeError, /^warpAffine: image\.width: expected a non-negative integer, got 9007199254740992$/]);
  wa('image.height NaN', (gs) => gs.warpAffine({ data: new Uint8Array(16), width: 2, height: NaN }, I6),
    [RangeError, /^warpAffine: image\.height: expected a non-negative integer, got NaN$/]);
  wa('image.channels 0', (gs) => gs.warpAffine({ data: new Uint8Array(16), width: 2, height: 2, channels: 0 }, I6),
    [RangeError, /^warpAffine: image\.channels: expected an integer from 1 to 4, got 0$/]);
  wa('image 2^26 x 2^26 with 16 bytes', (gs) => gs.warpAffine({ data: new Uint8Array(16), width: 2 ** 26, height: 2 ** 26, channels: 4 }, I6),
    [RangeError, /^warpAffine: image would need 18014398509481984 bytes \(16 PiB\): shape \[67108864, 67108864, 4\] is 18014398509481984 uint8 elements; the wasm heap is limited to 2 GiB$/]);
  wa('image a Proxy of a heap tensor', (gs) => gs.warpAffine(new Proxy(keep(gs.tensor('uint8', [2, 2, 4])), {}), I6),
    [TypeError, new RegExp(`^warpAffine: image: expected a heap tensor made by gs\\.tensor\\(\\) or gs\\.tensorFrom\\(\\), got ${LOOKALIKE}$`)]);
  wa('a disposed heap image of another module', (gs, peer) => { const t = peer.tensor('uint8', [2, 2, 4]); t.dispose(); return gs.warpAffine(t, I6); },
    [TypeError, /^warpAffine: image: this uint8 tensor of shape \[2, 2, 4\] was disposed$/]);
  wa('theta a sparse array', (gs) => gs.warpAffine(IMG(), [1, , 0, 0, 1, 0]), // eslint-disable-line no-sparse-arrays
    [TypeError, /^warpAffine: theta\[1\]: expected a number, got undefined$/]);
  wa('theta with a bigint', (gs) => gs.warpAffine(IMG(), [1, 0, 0n, 0, 1, 0]), [TypeError, /^warpAffine: theta\[2\]: expected a number, got 0n$/]);
  wa('theta with a getter that throws', (gs) => gs.warpAffine(IMG(), Object.defineProperty([1, 0, 0, 0, 1, 0], 3, { get() { throw GETTER; } })), { rethrows: GETTER });
  const wp = (what, call, expect) => add(`warpPerspective: ${what}`, call, expect);
  wp('h a sparse array', (gs) => gs.warpPerspective(IMG(), [1, 0, 0, 0, 1, 0, 0, , 1]), // eslint-disable-line no-sparse-arrays
    [TypeError, /^warpPerspective: h\[7\]: expected a number, got undefined$/]);
  wp('h with a getter that throws', (gs) => gs.warpPerspective(IMG(), Object.defineProperty([...I9], 8, { get() { throw GETTER; } })), { rethrows: GETTER });
  wp('h of 2^32 - 1 holes', (gs) => gs.warpPerspective(IMG(), new Array(2 ** 32 - 1)),
    [RangeError, /^warpPerspective: h: expected 9 numbers \[h0, h1, \.\.\., h8\] \(the 3x3 matrix, row-major\), got 4294967295$/]);
  wp('h a Proxy of a Float64Array', (gs) => gs.warpPerspective(IMG(), new Proxy(new Float64Array(9), {})), [TypeError, /^warpPerspective: h: expected 9 numbers .*, got an object posing as a Float64Array/]);
  wp('h a Float32Array of 6', (gs) => gs.warpPerspective(IMG(), new Float32Array(6)), [RangeError, /^warpPerspective: h: expected 9 numbers .*, got 6$/]);
  wp('a pixel-space matrix of non-finite entries to invert', (gs) => gs.warpPerspective(IMG(), [1, 0, 0, 0, 1, 0, 0, 0, -Infinity], { space: 'pixel' }),
    [RangeError, /^warpPerspective: h\[8\]: expected a finite number to invert the matrix, got -Infinity/]);
  wa('theta of 2^32 - 1 holes', (gs) => gs.warpAffine(IMG(), new Array(2 ** 32 - 1)),
    [RangeError, /^warpAffine: theta: expected 6 numbers \[a, b, c, d, e, f\] \(the 2x3 matrix, row-major\), got 4294967295$/]);
  wa('theta a Float32Array of 7', (gs) => gs.warpAffine(IMG(), new Float32Array(7)), [RangeError, /^warpAffine: theta: expected 6 numbers .*, got 7$/]);
  wa('theta a BigInt64Array', (gs) => gs.warpAffine(IMG(), new BigInt64Array(6)), [TypeError, /^warpAffine: theta: expected 6 numbers \[a, b, c, d, e, f\] as an Array, Float32Array or Float64Array, got BigInt64Array\(6\)$/]);
  wa('theta a Proxy of a Float64Array', (gs) => gs.warpAffine(IMG(), new Proxy(new Float64Array(6), {})), [TypeError, /^warpAffine: theta: expected 6 numbers .*, got an object posing as a Float64Array/]);
  wa('out a Proxy of a Uint8Array', (gs) => gs.warpAffine(IMG(), I6, { out: new Proxy(new Uint8Array(16), {}) }),
    [TypeError, /^warpAffine: options\.out: expected a typed array or an image \{data, width, height\}, got an object posing as a Uint8Array \(not a typed array itself: a Proxy or a copy of its prototype\)$/]);
  // tensor().
  const t = (what, call, expect) => add(`tensor: ${what}`, call, expect);
  t('no arguments', (gs) => gs.tensor(), [TypeError, /^tensor: dtype: expected a dtype name \(float32, .*\), got undefined$/]);
  t("dtype 'Float32'", (gs) => gs.tensor('Float32', [2]), [RangeError, /^tensor: dtype: expected one of float32, float64, .*, got "Float32"$/]);
  t("dtype 'int64'", (gs) => gs.tensor('int64', [2]), [RangeError, /^tensor: dtype: expected one of .*, got "int64"$/]);
  t('dtype Float32Array (a class)', (gs) => gs.tensor(Float32Array, [2]), [TypeError, /^tensor: dtype: expected a dtype name .*, got function Float32Array$/]);
  t('shape missing', (gs) => gs.tensor('float32'), [TypeError, /^tensor: shape: expected an array of non-negative integers, got undefined$/]);
  t('shape a number', (gs) => gs.tensor('float32', 3), [TypeError, /^tensor: shape: expected an array of non-negative integers, got 3$/]);
  t("shape '3'", (gs) => gs.tensor('float32', '3'), [TypeError, /^tensor: shape: expected an array of non-negative integers, got "3"$/]);
  t("shape ['3']", (gs) => gs.tensor('float32', ['3']), [TypeError, /^tensor: shape\[0\]: expected a non-negative integer, got "3"$/]);
  t('shape [2^53]', (gs) => gs.tensor('float32', [2 ** 53]), [RangeError, /^tensor: shape\[0\]: expected a non-negative integer, got 9007199254740992 in \[9007199254740992\]$/]);
  t('shape [2^32, 2^32]', (gs) => gs.tensor('uint8', [2 ** 32, 2 ** 32]),
    [RangeError, /^tensor: a uint8 tensor would need 18446744073709551616 bytes \(16 EiB\): shape \[4294967296, 4294967296\] is 18446744073709551616 uint8 elements; the wasm heap is limited to 2 GiB$/]);
  t('shape of 33 dims', (gs) => gs.tensor('uint8', new Array(33).fill(1)), [RangeError, /^tensor: shape: expected at most 32 dimensions, got 33$/]);
  t('constructing HeapTensor directly', () => new HeapTensor(), [TypeError, /^HeapTensor: create heap tensors with gs\.tensor\(\) or gs\.tensorFrom\(\)$/]);
  return cases;
}

export function runCase(gs, peer, call, expect) {
  try {
    if (expect.rethrows) {
      assert.throws(() => call(gs, peer), (e) => e === expect.rethrows);
    } else if (expect.ok) {
      const result = call(gs, peer);
      if (expect.check) expect.check(result);
    } else {
      expectError(() => call(gs, peer), expect[0], expect[1]);
    }
  } finally {
    for (const t of kept) t.dispose();
    kept = [];
  }
}
