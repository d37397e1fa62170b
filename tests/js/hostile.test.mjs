// Hostile input to every public function and option of the package (load, the four operators, heap tensors, the CLI) in both wasm variants: each case expects one error class and message, or the documented result; after each the module still computes known answers, and the heap stays flat over the suite.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { deflateSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';

import { DTYPE_NAMES, HeapTensor, load, simdSupported } from '../../js/node.mjs';
import { assertClose, assertModuleWorks, detached, esc, expectError, IDENTITY_GRID_2x2 } from './lib/hostile.mjs';
import { BASIC, PRINTED_ATOL } from './lib/onnx_examples.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const JS = join(HERE, '..', '..', 'js');
const variants = ['simd', 'scalar'].filter((v) => v === 'scalar' || simdSupported());
const other = { simd: 'scalar', scalar: 'simd' };
const MODES = ['linear', 'nearest', 'cubic'];
const PADDINGS = ['zeros', 'border', 'reflection'];
const SUITE_START = performance.now();

// --- arguments with known answers ------------------------------------------------------------

const X = () => ({ data: BASIC.x.data.slice(), shape: [1, 1, 4, 4] });
const G = () => ({ data: BASIC.grid.data.slice(), shape: [1, 6, 6, 2] });
const XCL = () => ({ data: BASIC.x.data.slice(), shape: [1, 4, 4, 1] });
const THETA = () => ({ data: Float32Array.from([1, 0, 0, 0, 1, 0]), shape: [1, 2, 3] });
const OUT = () => ({ data: new Float32Array(36), shape: [1, 1, 6, 6] });
const IMG = () => ({ data: Uint8ClampedArray.from({ length: 16 }, (_, i) => 16 * i), width: 2, height: 2 });
const I6 = [1, 0, 0, 0, 1, 0];
const I9 = [1, 0, 0, 0, 1, 0, 0, 0, 1];
const f32 = (n, v = 0) => new Float32Array(n).fill(v);
const lazy = (n) => new Float32Array(n); // never written: the OS commits no memory for it
const nearBasic = (data) => assertClose(data, BASIC.y, PRINTED_ATOL, 'result');

// The tensor arguments of the package. `valid()` makes a correct value, `call(gs, v)` passes
// `v` in its place, `check(result)` verifies a call that succeeded.
const SLOTS = [
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
const GETTER = new Error('thrown by a getter');
const LOOKALIKE = 'an object that only inherits from HeapTensor \\(a Proxy of a heap tensor or Object\\.create\\(HeapTensor\\.prototype\\)\\); pass the tensor itself';

function hugeLengthProxy() {
  // An "array" of 2^32 - 1 dimensions: must be refused without iterating it.
  return new Proxy([1], { get: (o, k) => (k === 'length' ? 2 ** 32 - 1 : k in o ? o[k] : 1) });
}

// Cases of one slot: [what, (gs, peer) => the call, expectation]. An expectation is
// [ErrorClass, pattern], {rethrows: error} (the caller's own exception passes through), or
// {ok: true} (a valid, unusual argument; the slot's check runs on the result).
function slotCases(slot) {
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
function keep(t) {
  kept.push(t);
  return t;
}

// --- per-function cases beyond the tensor slots -------------------------------------------------

function optionCases() {
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

function shapeCases() {
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
    [RangeError, /^warpAffine: the call would need 2400000048 bytes \(2\.2 GiB\) in the wasm heap for image \(1200000000\) \+ theta \(48\) \+ the output \(1200000000\); the wasm heap is limited to 2 GiB$/]);
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

function runCase(gs, peer, call, expect) {
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

// --- the wasm32 limit: requests that fail inside the module -------------------------------------

describe('wasm32 limits: allocation failures are clear errors and the module stays usable', () => {
  for (const variant of variants) {
    test(`${variant}: 1.5 GB of heap tensors, then 1 GB more; a request that fits on paper only; a full heap`, async () => {
      const gs = await load({ variant }); // its own module: its memory grows to 2 GiB
      assertModuleWorks(gs);
      const used = gs.heapUsed();
      const big = gs.tensor('uint8', [1.5e9]);
      try {
        assert.ok(gs.heapUsed() >= used + 1.5e9);
        const size = gs.heapSize();
        // Cannot fit next to what is in use: refused before allocating.
        expectError(() => gs.tensor('uint8', [1e9]), RangeError,
          /^tensor: a uint8 tensor of shape \[1000000000\] would need 1000000000 bytes \(954 MiB\) in the wasm heap, but 1500\d{6} bytes \(1\.4 GiB\) of its 2 GiB are in use \(heap tensors\); dispose some or make the request smaller$/);
        expectError(() => gs.gridSample({ data: f32(256), shape: [1, 256, 1, 1] }, { data: lazy(2 ** 21), shape: [1, 1, 2 ** 20, 2] }), RangeError,
          /^gridSample: the call would need 1082131456 bytes \(1 GiB\) in the wasm heap for x \(1024\) \+ grid \(8388608\) \+ the output \(1073741824\), but 1500\d{6} bytes \(1\.4 GiB\) of its 2 GiB are in use \(heap tensors\); dispose some or make the request smaller$/);
        assert.equal(gs.heapSize(), size, 'refused requests allocate nothing');
        assertModuleWorks(gs);

        // Fits next to what is in use on paper (1 MiB to spare), but the memory also holds the
        // stack and static data: malloc returns null inside the module.
        const paper = 2 ** 31 - gs.heapUsed() - 2 ** 20;
        expectError(() => gs.tensor('uint8', [paper]), RangeError,
          new RegExp(`^tensor: could not allocate ${paper} bytes \\(.*\\) for a uint8 tensor of shape \\[${paper}\\] in the wasm heap \\(\\d+ bytes in use, memory \\d+ bytes, 2 GiB at most\\); dispose heap tensors or make the request smaller$`));
        // The same inside gridSample: heap-tensor inputs, so only the output is allocated.
        const w = 4096;
        const grid = gs.tensor('float32', [1, 1, w, 2]);
        const c = Math.floor((2 ** 31 - gs.heapUsed() - 2 ** 20 - 2 ** 18) / (4 * w));
        const x = gs.tensor('float32', [1, c, 1, 1]);
        try {
          const before = gs.heapUsed();
          expectError(() => gs.gridSample(x, grid), RangeError,
            new RegExp(`^gridSample: could not allocate ${4 * c * w} bytes \\(.*\\) for the output in the wasm heap \\(\\d+ bytes in use, memory \\d+ bytes, 2 GiB at most\\); dispose heap tensors or make the request smaller$`));
          assert.equal(gs.heapUsed(), before);
        } finally {
          x.dispose();
          grid.dispose();
        }
        assertModuleWorks(gs);

        // The heap filled to the last byte by heap tensors: calls whose arguments are all heap
        // tensors (nothing to allocate) and one that fails in C++ (which allocates its
        // message) are RangeErrors, not an aborted module.
        const hx = gs.tensorFrom(BASIC.x);
        const hg = gs.tensorFrom(BASIC.grid);
        const hy = gs.tensor('float32', BASIC.yShape);
        const empty = gs.tensor('float32', [1, 1, 0, 4]);
        const fill = [];
        try {
          for (let bytes = 2 ** 29; bytes >= 1;) {
            try {
              fill.push(gs.tensor('uint8', [bytes]));
            } catch {
              bytes = Math.floor(bytes / 2);
            }
          }
          const full = /^gridSample: the wasm heap is full \(\d+ bytes in use, memory 2147483648 bytes, 2 GiB at most\), with no room left for the call itself; dispose heap tensors$/;
          expectError(() => gs.gridSample(hx, hg, { out: hy }), RangeError, full);
          expectError(() => gs.gridSample(empty, hg, { out: hy }), RangeError, full);
          // A grid to copy in: the library is asked for the output shape before anything is
          // allocated, so the full heap is what it reports.
          expectError(() => gs.gridSample(hx, BASIC.grid), RangeError, full);
        } finally {
          for (const t of fill) t.dispose();
        }
        gs.gridSample(hx, hg, { out: hy });
        assertClose(hy.data, BASIC.y, PRINTED_ATOL, 'a call after the heap was full');
        expectError(() => gs.gridSample(empty, hg, { out: hy }), RangeError, /^gridSample: X: a spatial dimension is 0 in shape \[1, 1, 0, 4\]/);
        for (const t of [hx, hg, hy, empty]) t.dispose();
        assertModuleWorks(gs);
      } finally {
        big.dispose();
      }
      assert.equal(gs.heapUsed(), used, 'everything freed');
      // The space is reusable: 1 GB now fits.
      const again = gs.tensor('uint8', [1e9]);
      again.dispose();
      assert.equal(gs.heapUsed(), used);
      assertModuleWorks(gs);
    });
  }
});

// --- load() -----------------------------------------------------------------------------------

describe('load() with hostile options', () => {
  const require = createRequire(import.meta.url);
  const bytes = (v) => readFileSync(join(JS, 'dist', `gridsample-${v}.wasm`));
  const dir = mkdtempSync(join(tmpdir(), 'gridsample-hostile-load-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const rejects = (options, type, pattern) => async () => {
    await assert.rejects(load(typeof options === 'function' ? options() : options), (e) => {
      assert.ok(e instanceof type, `expected ${type.name}, got ${e && e.name}: ${e && e.message}`);
      assert.equal(e.name, type.name);
      assert.match(e.message, pattern);
      return true;
    });
  };
  const someVariant = variants[0];
  const wrong = other[someVariant];

  test("variant 'SIMD'", rejects({ variant: 'SIMD' }, RangeError, /^load: options\.variant: expected 'simd', 'scalar', 'simd-threads' or 'auto', got "SIMD"$/));
  test('variant null', rejects({ variant: null }, TypeError, /^load: options\.variant: expected 'simd', 'scalar', 'simd-threads' or 'auto', got null$/));
  test('a misspelt option', rejects({ wasmurl: 'x.wasm' }, TypeError, /^load: options\.wasmurl: unknown option; expected variant, numThreads, wasmUrl, wasmBinary, wasmModule, warmUp$/));
  test('options an array', rejects([], TypeError, /^load: options: expected an object, got Array\(0\)$/));
  test('wasmUrl a number', rejects({ wasmUrl: 7 }, TypeError, /^load: options\.wasmUrl: expected a string, a URL or a function \(variant\) => URL, got 7$/));
  test('wasmUrl a function returning undefined', rejects({ wasmUrl: () => undefined }, TypeError, /^load: options\.wasmUrl\('(simd|scalar)'\): expected the function to return a string or a URL, got undefined$/));
  test('wasmUrl a function returning a number', rejects({ wasmUrl: () => 42 }, TypeError, /^load: options\.wasmUrl\('(simd|scalar)'\): expected the function to return a string or a URL, got 42$/));
  test('wasmUrl a function that throws: its error passes through', async () => {
    await assert.rejects(load({ wasmUrl: () => { throw GETTER; } }), (e) => e === GETTER);
  });
  test('wasmUrl a missing file', rejects({ wasmUrl: join(dir, 'missing.wasm') }, Error, /^load: could not read the gridsample wasm at .*missing\.wasm: ENOENT: no such file or directory/));
  test('wasmUrl a missing file: URL', rejects({ wasmUrl: pathToFileURL(join(dir, 'missing.wasm')) }, Error, /^load: could not read the gridsample wasm at file:.*missing\.wasm: ENOENT/));
  test('wasmUrl a directory', rejects({ wasmUrl: dir }, Error, /^load: could not read the gridsample wasm at .*: EISDIR/));
  test('wasmUrl a truncated wasm file', rejects(() => {
    const p = join(dir, 'truncated.wasm');
    writeFileSync(p, bytes(someVariant).subarray(0, 1000));
    return { variant: someVariant, wasmUrl: p };
  }, Error, /^load: could not instantiate the gridsample wasm from .*truncated\.wasm: WebAssembly\.instantiate\(\): .*(extends past end of the module|failed: expected)/));
  test('wasmUrl a server that refuses the connection', async () => {
    // A port that was just free: nothing listens there.
    const server = createServer();
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address();
    await new Promise((resolve) => server.close(resolve));
    const url = `http://127.0.0.1:${port}/gridsample.wasm`;
    await rejects({ wasmUrl: url }, Error, new RegExp(`^load: could not instantiate the gridsample wasm from ${esc(url)}: fetch failed$`))();
  });
  test('wasmBinary empty', rejects({ wasmBinary: new ArrayBuffer(0) }, Error, /^load: could not instantiate the gridsample wasm from options\.wasmBinary: WebAssembly\.instantiate\(\): BufferSource argument is empty$/));
  test('wasmBinary not wasm', rejects({ wasmBinary: new TextEncoder().encode('<html>404</html>') }, Error, /^load: could not instantiate .* from options\.wasmBinary: WebAssembly\.instantiate\(\): expected magic word 00 61 73 6d, found 3c 68 74 6d @\+0$/));
  test('wasmBinary detached', rejects(() => ({ wasmBinary: detached(new Uint8Array(bytes(someVariant))) }), TypeError, /^load: options\.wasmBinary: the ArrayBuffer is detached/));
  test('wasmBinary a DataView', rejects(() => ({ wasmBinary: new DataView(new ArrayBuffer(8)) }), TypeError, /^load: options\.wasmBinary: expected an ArrayBuffer or a Uint8Array, got a DataView$/));
  test('wasmBinary a string', rejects({ wasmBinary: 'gridsample-simd.wasm' }, TypeError, /^load: options\.wasmBinary: expected an ArrayBuffer or a Uint8Array, got "gridsample-simd\.wasm"$/));
  test('wasmBinary of the other build', { skip: !wrong || !variants.includes(wrong) ? 'needs both variants' : false },
    rejects(() => ({ variant: someVariant, wasmBinary: bytes(wrong) }), TypeError,
      new RegExp(`^load: options\\.wasmBinary: expected the '${someVariant}' build \\(gridsample-${someVariant}\\.wasm\\), got the '${wrong}' build \\(Highway target \\w+\\); give variant: '${wrong}' or the ${someVariant} wasm$`)));
  test('wasmModule a module that is not gridsample', rejects({ wasmModule: new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])) }, Error,
    /^load: could not instantiate the gridsample wasm from options\.wasmModule: it is not a gridsample wasm module \(it has no memory\)$/));
  test('wasmModule of the other build', { skip: !variants.includes(wrong) ? 'needs both variants' : false },
    rejects(() => ({ variant: someVariant, wasmModule: new WebAssembly.Module(bytes(wrong)) }), TypeError, /^load: options\.wasmModule: expected the '\w+' build/));
  test('wasmModule bytes instead of a module', rejects({ wasmModule: new Uint8Array(8) }, TypeError, /^load: options\.wasmModule: expected a WebAssembly\.Module, got Uint8Array\(8\)$/));
  test('two sources', rejects({ wasmBinary: new Uint8Array(8), wasmModule: new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])) }, TypeError, /^load: options: give at most one of wasmUrl, wasmBinary and wasmModule$/));
  test('an options getter that throws: its error passes through', async () => {
    await assert.rejects(load({ get variant() { throw GETTER; } }), (e) => e === GETTER);
  });
  test('CommonJS entry: the same errors', async () => {
    const cjs = require(join(JS, 'index.cjs'));
    await assert.rejects(cjs.load({ variant: 'avx' }), (e) => e instanceof RangeError && /^load: options\.variant: expected .* got "avx"$/.test(e.message));
    assert.equal(typeof cjs.simdSupported(), 'boolean');
    assert.deepEqual(cjs.DTYPE_NAMES, DTYPE_NAMES);
  });

  // Unusual but valid sources: each module must compute the known answers.
  for (const variant of variants) {
    test(`${variant}: bytes in a SharedArrayBuffer, at an offset, a function URL, a Proxy of options`, async () => {
      const b = bytes(variant);
      const shared = new Uint8Array(new SharedArrayBuffer(b.length));
      shared.set(b);
      const offset = new Uint8Array(b.length + 3);
      offset.set(b, 3);
      const sources = [
        { variant, wasmBinary: shared },
        { variant, wasmBinary: offset.subarray(3) },
        { variant, wasmBinary: b.buffer.slice(b.byteOffset, b.byteOffset + b.length) },
        { variant, wasmUrl: (v) => pathToFileURL(join(JS, 'dist', `gridsample-${v}.wasm`)) },
        new Proxy({ variant }, {}),
      ];
      for (const options of sources) {
        const gs = await load(options);
        assert.equal(gs.variant, variant);
        assertModuleWorks(gs);
      }
    });
  }
  test("variant 'auto' with bytes of a build: backend says which build runs", { skip: variants.length < 2 ? 'needs both variants' : false }, async () => {
    const gs = await load({ wasmBinary: bytes('scalar') });
    assert.deepEqual([gs.variant, gs.backend, gs.target], ['scalar', 'wasm-scalar', 'EMU128']);
    assertModuleWorks(gs);
  });
});

// --- the command line --------------------------------------------------------------------------

describe('gridsample CLI with hostile arguments and files', () => {
  let work;
  let cli; // path of cli.mjs in a copy of the package that finds the PNG codec
  let png; // a valid 5x4 RGBA PNG
  const results = new Map();

  // A PNG file with the given IHDR size and IDAT payload (not checked against the size).
  function pngBytes(width, height, idat = deflateSync(Buffer.alloc(10)), idatLength) {
    const crcTable = Array.from({ length: 256 }, (_, n) => {
      let c = n;
      for (let k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      return c >>> 0;
    });
    const crc = (buf) => {
      let c = 0xffffffff;
      for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
      return (c ^ 0xffffffff) >>> 0;
    };
    const chunk = (type, data, length = data.length) => {
      const head = Buffer.alloc(4);
      head.writeUInt32BE(length);
      const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
      const tail = Buffer.alloc(4);
      tail.writeUInt32BE(crc(body));
      return Buffer.concat([head, body, tail]);
    };
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(width, 0);
    ihdr.writeUInt32BE(height, 4);
    ihdr[8] = 8; // bit depth
    ihdr[9] = 6; // RGBA
    return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr),
      chunk('IDAT', idat, idatLength), chunk('IEND', Buffer.alloc(0))]);
  }

  function validPng() {
    const rows = [];
    for (let y = 0; y < 4; ++y) rows.push(Buffer.from([0, ...Array.from({ length: 20 }, (_, i) => (i * 13 + y * 7) & 255)]));
    return pngBytes(5, 4, deflateSync(Buffer.concat(rows)));
  }

  const file = (name, contents) => {
    const p = join(work, name);
    writeFileSync(p, contents);
    return p;
  };

  // [what, args (a function of the folder), exit status, stderr pattern]
  const CASES = [
    ['a missing input', () => ['warp', join(work, 'missing.png'), join(work, 'o1.png')], 1, /^gridsample: cannot read .*missing\.png: no such file or directory$/],
    ['a directory as input', () => ['warp', work, join(work, 'o2.png')], 1, /^gridsample: cannot read .*: it is a directory$/],
    ['/dev/zero as input (endless)', () => ['warp', '/dev/zero', join(work, 'o3.png')], 1, /^gridsample: cannot read \/dev\/zero: it is not a regular file or a pipe$/],
    ['a text file', () => ['warp', file('text.png', 'hello\n'), join(work, 'o4.png')], 1, /^gridsample: .*text\.png is not a valid PNG file \(.+\)$/],
    ['an empty file', () => ['warp', file('empty.png', ''), join(work, 'o5.png')], 1, /^gridsample: .*empty\.png is not a valid PNG file \(the file is empty\)$/],
    ['a truncated PNG', () => ['warp', file('cut.png', validPng().subarray(0, 40)), join(work, 'o6.png')], 1, /^gridsample: .*cut\.png is not a valid PNG file \(.+\)$/],
    ['a PNG whose header says 0x0', () => ['warp', file('zero.png', pngBytes(0, 0)), join(work, 'o7.png')], 1, /^gridsample: .*zero\.png is not a valid PNG file \(its header says 0x0 pixels; both sides must be at least 1\)$/],
    ['a PNG whose header says 100000x100000', () => ['warp', file('huge.png', pngBytes(100000, 100000)), join(work, 'o8.png')], 1,
      /^gridsample: .*huge\.png is not a valid PNG file \(it is truncated or corrupt: its header says 100000x100000 pixels \(40000100000 bytes of image data once inflated\), more than its 11 bytes of compressed image data can hold \(at most 11352\)\)$/],
    ['a PNG whose header says 2^31-1 x 2^31-1 (crashed zlib before)', () => ['warp', file('max.png', pngBytes(2 ** 31 - 1, 2 ** 31 - 1)), join(work, 'o9.png')], 1,
      /^gridsample: .*max\.png is not a valid PNG file \(it is truncated or corrupt: its header says 2147483647x2147483647 pixels /],
    ['a PNG of 40000x20000 (took 36 s and 9 GB before)', () => ['warp', file('wide.png', pngBytes(40000, 20000)), join(work, 'o10.png')], 1, /^gridsample: .*wide\.png is not a valid PNG file \(it is truncated or corrupt: its header says 40000x20000 pixels /],
    ['a small PNG to a 32768x32768 output', () => ['warp', file('in1.png', validPng()), join(work, 'o11.png'), '--size', '32768x32768'], 1, /^gridsample: cannot warp .*in1\.png \(5x4 pixels\) to 32768x32768: as 8-bit RGBA the two images need 4294967376 bytes, more than the 2 GiB wasm heap can hold$/],
    ['an IDAT chunk whose length is 4 GB', () => ['warp', file('len.png', pngBytes(4, 4, deflateSync(Buffer.alloc(68)), 0xfffffff0)), join(work, 'o12.png')], 1, /^gridsample: .*len\.png is not a valid PNG file \(.+\)$/],
    ['an output folder that does not exist', () => ['warp', file('in2.png', validPng()), join(work, 'no', 'such', 'o.png')], 1, /^gridsample: cannot write .*o\.png: no such file or directory$/],
    ['--theta of five numbers', () => ['warp', 'in.png', 'out.png', '--theta', '1,0,0,0,1'], 2, /^gridsample: --theta: expected six numbers A,B,C,D,E,F, got "1,0,0,0,1"$/],
    ['--theta with a word', () => ['warp', 'in.png', 'out.png', '--theta', '1,0,0,0,1,x'], 2, /^gridsample: --theta: expected a number, got "x"$/],
    ['--theta with an empty entry', () => ['warp', 'in.png', 'out.png', '--theta', '1,,0,0,1,0'], 2, /^gridsample: --theta: expected a number, got ""$/],
    ['--theta with 1e999', () => ['warp', 'in.png', 'out.png', '--theta', '1,0,0,0,1,1e999'], 2, /^gridsample: --theta: expected a number, got "1e999"$/],
    ['--theta with NaN', () => ['warp', 'in.png', 'out.png', '--theta=NaN,0,0,0,1,0'], 2, /^gridsample: --theta: expected a number, got "NaN"$/],
    ['--theta with hex', () => ['warp', 'in.png', 'out.png', '--theta', '0x1,0,0,0,1,0'], 2, /^gridsample: --theta: expected a number, got "0x1"$/],
    ['--theta empty', () => ['warp', 'in.png', 'out.png', '--theta='], 2, /^gridsample: --theta: expected six numbers A,B,C,D,E,F, got ""$/],
    ['--scale of three', () => ['warp', 'in.png', 'out.png', '--scale', '1,2,3'], 2, /^gridsample: --scale: expected S or SX,SY, got "1,2,3"$/],
    ['--translate of words', () => ['warp', 'in.png', 'out.png', '--translate', 'a,b'], 2, /^gridsample: --translate: expected a number, got "a"$/],
    ['--size negative', () => ['warp', 'in.png', 'out.png', '--size=-5x5'], 2, /^gridsample: --size: expected WxH with each side from 1 to 32768, e\.g\. 640x480; got "-5x5"$/],
    ['--size of three sides', () => ['warp', 'in.png', 'out.png', '--size', '10x10x10'], 2, /^gridsample: --size: expected WxH .*got "10x10x10"$/],
    ['--mode empty', () => ['warp', 'in.png', 'out.png', '--mode='], 2, /^gridsample: --mode: expected linear, bilinear, nearest, cubic or bicubic, got ""$/],
    ['--align-corners=yes', () => ['warp', 'in.png', 'out.png', '--align-corners=yes'], 2, /^gridsample: --align-corners takes no value$/],
    ['an unknown flag', () => ['warp', 'in.png', 'out.png', '--frobnicate'], 2, /^gridsample: unknown option --frobnicate$/],
    ['an unknown short flag', () => ['warp', 'in.png', 'out.png', '-z'], 2, /^gridsample: unknown option -z \(a file name starting with - goes after --\)$/],
    ['an unknown command', () => ['wrap', 'in.png', 'out.png'], 2, /^gridsample: unknown command "wrap"; the commands are warp and onnx$/],
  ];

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'gridsample-hostile-cli-'));
    // The package's files next to a node_modules that has its dependency (pngjs, from tests/js).
    const pkg = join(work, 'pkg');
    mkdirSync(pkg);
    // Every module the package ships (its "files": the entry points and the folders by job, less
    // dist/ and what `npm pack` adds).
    const shipped = JSON.parse(readFileSync(join(JS, 'package.json'), 'utf8')).files.filter((f) => /\.(mjs|cjs)$|^[a-z]+\/$/.test(f) && !f.startsWith('dist/'));
    for (const f of [...shipped, 'package.json']) cpSync(join(JS, f), join(pkg, f), { recursive: true });
    symlinkSync(join(JS, 'dist'), join(pkg, 'dist'));
    symlinkSync(join(HERE, 'node_modules'), join(pkg, 'node_modules'));
    cli = join(pkg, 'cli.mjs');
    png = file('good.png', validPng());
    const run = (args) => new Promise((resolve) => {
      execFile(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 60000 }, (e, stdout, stderr) => {
        resolve({ code: e ? e.code : 0, signal: e ? e.signal : null, stdout, stderr });
      });
    });
    const queue = CASES.map(([what, args]) => [what, args()]);
    queue.push(['valid: θ with ±1e38 entries', ['warp', png, join(work, 'big-theta.png'), '--theta', '1e38,0,0,0,1,-1e38']]);
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (queue.length) {
        const [what, args] = queue.shift();
        results.set(what, await run(args));
      }
    }));
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  for (const [what, , code, pattern] of CASES) {
    test(what, () => {
      const r = results.get(what);
      assert.equal(r.signal, null, `killed by ${r.signal}`);
      assert.equal(r.code, code, `exit ${r.code}; stderr: ${r.stderr}`);
      assert.equal(r.stdout, '');
      const lines = r.stderr.split('\n');
      assert.equal(lines.pop(), '', 'stderr ends with a newline');
      // One line; usage errors add the pointer to --help. Never a stack trace.
      assert.match(lines[0], pattern);
      assert.deepEqual(lines.slice(1), code === 2 ? ["Run 'gridsample --help' for the options."] : []);
      assert.doesNotMatch(r.stderr, /^\s+at /m);
    });
  }

  test('valid: θ with ±1e38 entries gives a transparent image (zeros padding)', () => {
    const r = results.get('valid: θ with ±1e38 entries');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /big-theta\.png: 5x4 from 5x4, bilinear\/zeros, wasm-/);
    assert.ok(existsSync(join(work, 'big-theta.png')));
  });
});

test('suite duration', () => {
  const s = (performance.now() - SUITE_START) / 1000;
  const report = Object.entries(heapReport).map(([v, h]) => `${v}: heapUsed ${h.used} -> ${h.end}, heapSize ${h.size} -> ${h.sizeEnd}`).join('; ');
  console.log(`# hostile suite: ${s.toFixed(1)} s; ${report}`);
});
