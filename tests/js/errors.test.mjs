// Hostile inputs: each gives one specific error (class and message), then the module still works and leaked nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { load, simdSupported } from '../../js/node.mjs';
import { detached } from './lib/hostile.mjs';
import { BASIC, PRINTED_ATOL } from './lib/onnx_examples.mjs';

const f32 = (n, v = 0) => new Float32Array(n).fill(v);
const X = () => ({ data: BASIC.x.data.slice(), shape: [1, 1, 4, 4] });
const G = () => ({ data: BASIC.grid.data.slice(), shape: [1, 6, 6, 2] });
const THETA = () => ({ data: Float32Array.from([1, 0, 0, 0, 1, 0]), shape: [1, 2, 3] });

// [what, call(gs), error class, message pattern]. Every pattern names the argument, the
// expectation and what was given.
const TABLE = [
  // --- tensor arguments: wrong types ---
  ['x is a number', (gs) => gs.gridSample(5, G()), TypeError, /^gridSample: x: expected a tensor \{data, shape\} or \{data, dims\}, got 5$/],
  ['x is null', (gs) => gs.gridSample(null, G()), TypeError, /gridSample: x: expected a tensor .*got null$/],
  ['x is missing', (gs) => gs.gridSample(), TypeError, /gridSample: x: expected a tensor .*got undefined$/],
  ['x is a bare typed array', (gs) => gs.gridSample(BASIC.x.data, G()), TypeError, /gridSample: x: expected a tensor .*got Float32Array\(16\)$/],
  ['grid is an array', (gs) => gs.gridSample(X(), [1, 2]), TypeError, /gridSample: grid: expected a tensor .*got Array\(2\)$/],
  ['x.data is a plain array', (gs) => gs.gridSample({ data: Array.from(BASIC.x.data), shape: [1, 1, 4, 4] }, G()), TypeError, /gridSample: x\.data: expected a typed array, got Array\(16\)$/],
  ['x.data is an ArrayBuffer', (gs) => gs.gridSample({ data: new ArrayBuffer(64), shape: [1, 1, 4, 4] }, G()), TypeError, /x\.data: expected a typed array, got ArrayBuffer\(64\)$/],
  ['x.data is a DataView', (gs) => gs.gridSample({ data: new DataView(new ArrayBuffer(64)), shape: [1, 1, 4, 4] }, G()), TypeError, /x\.data: expected a typed array, got a DataView$/],
  ['x.data is missing', (gs) => gs.gridSample({ shape: [1, 1, 4, 4] }, G()), TypeError, /x\.data: expected a typed array, got undefined$/],
  ['x.data is a BigInt64Array (int64 is not supported)', (gs) => gs.gridSample({ data: new BigInt64Array(16), shape: [1, 1, 4, 4] }, G()), TypeError, /x\.data: expected one of Float32Array, Float64Array, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array.*, got BigInt64Array\(16\)$/],
  ['x.dtype names an unsupported type', (gs) => gs.gridSample({ ...X(), dtype: 'int64' }, G()), RangeError, /x\.dtype: expected one of float32, float64, float16, bfloat16, int8, uint8, int16, uint16, int32, uint32, got "int64"$/],
  ['x.type (onnxruntime) names an unknown type', (gs) => gs.gridSample({ data: f32(16), dims: [1, 1, 4, 4], type: 'string' }, G()), RangeError, /x\.type: expected one of float32, .*got "string"$/],
  ['x.dtype is not a string', (gs) => gs.gridSample({ ...X(), dtype: 0 }, G()), TypeError, /x\.dtype: expected a dtype name \(float32, .*\), got 0$/],
  ['x.dtype disagrees with the array class', (gs) => gs.gridSample({ data: new Uint8Array(16), shape: [1, 1, 4, 4], dtype: 'float32' }, G()), TypeError, /x\.data: expected Float32Array for dtype float32, got Uint8Array\(16\)$/],
  ['float16 data in a Float32Array', (gs) => gs.gridSample({ ...X(), dtype: 'float16' }, G()), TypeError, /x\.data: expected Uint16Array.* for dtype float16, got Float32Array\(16\)$/],
  ['uint8 data in an Int8Array', (gs) => gs.gridSample({ data: new Int8Array(16), shape: [1, 1, 4, 4], dtype: 'uint8' }, G()), TypeError, /x\.data: expected Uint8Array or Uint8ClampedArray for dtype uint8, got Int8Array\(16\)$/],
  ['grid is an integer tensor', (gs) => gs.gridSample(X(), { data: new Int32Array(72), shape: [1, 6, 6, 2] }), TypeError, /gridSample: grid: expected dtype float32, float64, float16 or bfloat16, got int32$/],
  ['an onnxruntime tensor on the GPU', (gs) => gs.gridSample({ get data() { throw new Error('unreachable'); }, dims: [1, 1, 4, 4], type: 'float32', location: 'gpu-buffer' }, G()), TypeError, /x: expected a CPU tensor, got one on 'gpu-buffer'; download it first/],

  // --- shapes ---
  ['x without shape or dims', (gs) => gs.gridSample({ data: f32(16) }, G()), TypeError, /x: expected a shape \(or dims\) array, got undefined$/],
  ['x.shape is a string', (gs) => gs.gridSample({ data: f32(16), shape: '1,1,4,4' }, G()), TypeError, /x\.shape: expected an array of non-negative integers, got "1,1,4,4"$/],
  ['x.dims is a number', (gs) => gs.gridSample({ data: f32(16), dims: 16 }, G()), TypeError, /x\.dims: expected an array of non-negative integers, got 16$/],
  ['a dim is a string', (gs) => gs.gridSample({ data: f32(16), shape: [1, 1, '4', 4] }, G()), TypeError, /x\.shape\[2\]: expected a non-negative integer, got "4"$/],
  ['a dim is null', (gs) => gs.gridSample({ data: f32(16), shape: [1, null, 4, 4] }, G()), TypeError, /x\.shape\[1\]: expected a non-negative integer, got null$/],
  ['a negative dim', (gs) => gs.gridSample({ data: f32(16), shape: [1, 1, -4, -4] }, G()), RangeError, /x\.shape\[2\]: expected a non-negative integer, got -4 in \[1, 1, -4, -4\]$/],
  ['a negative bigint dim', (gs) => gs.gridSample({ data: f32(16), shape: [1n, 1n, -4n, 4n] }, G()), RangeError, /x\.shape\[2\]: expected a non-negative integer, got -4n/],
  ['a fractional dim', (gs) => gs.gridSample({ data: f32(16), shape: [1, 1, 4.5, 4] }, G()), RangeError, /x\.shape\[2\]: expected a non-negative integer, got 4\.5/],
  ['a NaN dim', (gs) => gs.gridSample({ data: f32(16), shape: [1, 1, NaN, 4] }, G()), RangeError, /x\.shape\[2\]: expected a non-negative integer, got NaN/],
  ['an infinite dim', (gs) => gs.gridSample(X(), { data: f32(72), shape: [1, Infinity, 6, 2] }), RangeError, /grid\.shape\[1\]: expected a non-negative integer, got Infinity/],
  ['a dim beyond 2^53', (gs) => gs.gridSample({ data: f32(16), shape: [1, 1, 2 ** 53, 4] }, G()), RangeError, /x\.shape\[2\]: expected a non-negative integer, got 9007199254740992/],
  ['a bigint dim beyond 2^53', (gs) => gs.gridSample({ data: f32(16), shape: [1n, 1n, 2n ** 63n - 1n, 4n] }, G()), RangeError, /x\.shape\[2\]: expected a non-negative integer, got 9223372036854775807n/],
  ['dims whose product overflows the heap', (gs) => gs.gridSample({ data: f32(16), shape: [1, 1, 2 ** 26, 2 ** 26] }, G()), RangeError, /^gridSample: x would need 18014398509481984 bytes \(16 PiB\): shape \[1, 1, 67108864, 67108864\] is 4503599627370496 float32 elements; the wasm heap is limited to 2 GiB$/],
  ['an output that would overflow the heap', (gs) => gs.gridSample({ data: f32(2 ** 14), shape: [1, 2 ** 14, 1, 1] }, { data: f32(2 ** 17), shape: [1, 256, 256, 2] }), RangeError, /^gridSample: the output would need 4294967296 bytes \(4 GiB\): shape \[1, 16384, 256, 256\] is 1073741824 float32 elements; the wasm heap is limited to 2 GiB$/],
  ['data length does not match the shape', (gs) => gs.gridSample({ data: f32(15), shape: [1, 1, 4, 4] }, G()), RangeError, /^gridSample: x: data has 15 elements but shape \[1, 1, 4, 4\] needs 16$/],
  ['shape and dims disagree', (gs) => gs.gridSample({ data: f32(16), shape: [1, 1, 4, 4], dims: [1, 1, 2, 8] }, G()), RangeError, /x: shape \[1, 1, 4, 4\] and dims \[1, 1, 2, 8\] disagree$/],
  ['x of rank 2', (gs) => gs.gridSample({ data: f32(16), shape: [4, 4] }, G()), RangeError, /^gridSample: X: expected rank 3 to 10 \(N, C, D1\.\.Dr\), got rank 2 shape \[4, 4\]$/],
  ['x of rank 11', (gs) => gs.gridSample({ data: f32(1), shape: new Array(11).fill(1) }, G()), RangeError, /X: expected rank 3 to 10 .*got rank 11/],
  ['grid of another rank', (gs) => gs.gridSample(X(), { data: f32(12), shape: [1, 6, 2] }), RangeError, /^gridSample: X has shape \[1, 1, 4, 4\], 2 spatial axes \[N, C, H, W\], so grid must have rank 4 and last dimension 2 \(\[N, Ho, Wo, 2\]\); got grid shape \[1, 6, 2\] \(rank 3\)$/],
  ['grid with 3 coordinates for 2-D x', (gs) => gs.gridSample(X(), { data: f32(108), shape: [1, 6, 6, 3] }), RangeError, /^gridSample: X has shape \[1, 1, 4, 4\], .* got grid shape \[1, 6, 6, 3\]$/],
  // Issue 11: an image without its channel axis used to get an error blaming the grid in jargon.
  ['x without its channel axis, an image grid', (gs) => gs.gridSample({ data: f32(16), shape: [1, 4, 4] }, G()), RangeError, /^gridSample: X has shape \[1, 4, 4\], 1 spatial axis \[N, C, W\], so grid must have rank 3 and last dimension 1 \(\[N, Wo, 1\]\); got grid shape \[1, 6, 6, 2\] \(rank 4\), which samples X of shape \[N, C, H, W\] \(is X missing its channel axis\? \[1, 1, 4, 4\] for one channel\)$/],
  ['a 2-D grid for a 3-D x', (gs) => gs.gridSample({ data: f32(64), shape: [1, 1, 4, 4, 4] }, G()), RangeError, /^gridSample: X has shape \[1, 1, 4, 4, 4\], 3 spatial axes \[N, C, D, H, W\], so grid must have rank 5 and last dimension 3 \(\[N, Do, Ho, Wo, 3\]\); got grid shape \[1, 6, 6, 2\] \(rank 4\), which samples X of shape \[N, C, H, W\]$/],
  ['grid batch differs from x', (gs) => gs.gridSample(X(), { data: f32(144), shape: [2, 6, 6, 2] }), RangeError, /gridSample: grid: expected batch size N = 1 \(X's\), got shape \[2, 6, 6, 2\]$/],
  ['empty x sampled by a non-empty grid (library error)', (gs) => gs.gridSample({ data: f32(0), shape: [1, 1, 0, 4] }, G()), RangeError, /^gridSample: X: a spatial dimension is 0 in shape \[1, 1, 0, 4\] but the output \[1, 1, 6, 6\] asks for samples from it/],

  // --- options ---
  ['options is a string', (gs) => gs.gridSample(X(), G(), 'bilinear'), TypeError, /gridSample: options: expected an object, got "bilinear"$/],
  ['an unknown option', (gs) => gs.gridSample(X(), G(), { padding: 'border' }), TypeError, /gridSample: options\.padding: unknown option; expected mode, paddingMode, padding_mode, alignCorners, align_corners, out$/],
  ['an unknown mode', (gs) => gs.gridSample(X(), G(), { mode: 'trilinear' }), RangeError, /gridSample: options\.mode: expected 'linear', 'bilinear', 'nearest', 'cubic' or 'bicubic', got "trilinear"$/],
  ['a mode in capitals', (gs) => gs.gridSample(X(), G(), { mode: 'Bilinear' }), RangeError, /options\.mode: expected .* got "Bilinear"$/],
  ['a numeric mode', (gs) => gs.gridSample(X(), G(), { mode: 0 }), TypeError, /options\.mode: expected 'linear', .* got 0$/],
  ['an unknown paddingMode', (gs) => gs.gridSample(X(), G(), { paddingMode: 'reflect' }), RangeError, /options\.paddingMode: expected 'zeros', 'border' or 'reflection', got "reflect"$/],
  ['an unknown padding_mode', (gs) => gs.gridSample(X(), G(), { padding_mode: 'mirror' }), RangeError, /options\.padding_mode: expected 'zeros', 'border' or 'reflection', got "mirror"$/],
  ['paddingMode and padding_mode together', (gs) => gs.gridSample(X(), G(), { paddingMode: 'zeros', padding_mode: 'zeros' }), TypeError, /gridSample: options: give paddingMode or padding_mode, not both$/],
  ['alignCorners 2', (gs) => gs.gridSample(X(), G(), { alignCorners: 2 }), RangeError, /options\.alignCorners: expected true, false, 0 or 1, got 2$/],
  ['alignCorners NaN', (gs) => gs.gridSample(X(), G(), { align_corners: NaN }), RangeError, /options\.align_corners: expected true, false, 0 or 1, got NaN$/],
  ["alignCorners 'true'", (gs) => gs.gridSample(X(), G(), { alignCorners: 'true' }), TypeError, /options\.alignCorners: expected true, false, 0 or 1, got "true"$/],
  ['alignCorners null', (gs) => gs.gridSample(X(), G(), { alignCorners: null }), TypeError, /options\.alignCorners: expected .*got null$/],

  // --- out ---
  ['out of the wrong length', (gs) => gs.gridSample(X(), G(), { out: f32(35) }), RangeError, /gridSample: options\.out: expected 36 elements for shape \[1, 1, 6, 6\], got 35$/],
  ['out of the wrong class', (gs) => gs.gridSample(X(), G(), { out: new Float64Array(36) }), TypeError, /options\.out: expected Float32Array for dtype float32, got Float64Array\(36\)$/],
  ['out tensor of the wrong shape', (gs) => gs.gridSample(X(), G(), { out: { data: f32(36), shape: [1, 1, 36] } }), RangeError, /options\.out: expected shape \[1, 1, 6, 6\], got \[1, 1, 36\]$/],
  ['out tensor of the wrong dtype', (gs) => gs.gridSample(X(), G(), { out: { data: new Uint16Array(36), shape: [1, 1, 6, 6], dtype: 'float16' } }), TypeError, /options\.out: expected dtype float32 \(the input's\), got float16$/],
  ['out is a number', (gs) => gs.gridSample(X(), G(), { out: 36 }), TypeError, /options\.out: expected a typed array or a tensor \{data, shape\}, got 36$/],

  // --- detached buffers ---
  ['x.data detached', (gs) => gs.gridSample({ data: detached(f32(16)), shape: [1, 1, 4, 4] }, G()), TypeError, /gridSample: x\.data: the ArrayBuffer is detached .*; pass a live array$/],
  ['grid.data detached', (gs) => gs.gridSample(X(), { data: detached(f32(72)), shape: [1, 6, 6, 2] }), TypeError, /gridSample: grid\.data: the ArrayBuffer is detached/],
  ['out detached', (gs) => gs.gridSample(X(), G(), { out: detached(f32(36)) }), TypeError, /gridSample: options\.out: the ArrayBuffer is detached/],
  ['affineGrid size detached', (gs) => gs.affineGrid(THETA(), detached(BigInt64Array.from([1n, 1n, 4n, 4n]))), TypeError, /affineGrid: size: the ArrayBuffer is detached/],
  ['a wasm heap view from before the memory grew', (gs) => {
    const t = gs.tensorFrom(X());
    const stale = t.data;
    const big = gs.tensor('uint8', [gs.heapSize() + 1]); // forces growth
    big.dispose();
    try {
      return gs.gridSample({ data: stale, shape: [1, 1, 4, 4] }, G());
    } finally {
      t.dispose();
    }
  }, TypeError, /gridSample: x\.data: the ArrayBuffer is detached \(transferred, or a wasm memory view from before the memory grew\)/],

  ['out is a view of the heap that the call itself grows', (gs) => {
    const t = gs.tensor('float32', [1, 1, 6, 6]);
    try {
      // The input copy needs more heap than is free: the memory grows mid-call.
      const big = { data: new Float32Array(gs.heapSize() / 4 + 1), shape: [1, 1, 1, gs.heapSize() / 4 + 1] };
      return gs.gridSample(big, { data: f32(72), shape: [1, 6, 6, 2] }, { out: t.data });
    } finally {
      t.dispose();
    }
  }, TypeError, /^gridSample: options\.out: the ArrayBuffer is detached/],

  // --- heap tensors ---
  ['a disposed heap tensor as x', (gs) => { const t = gs.tensorFrom(X()); t.dispose(); return gs.gridSample(t, G()); }, TypeError, /gridSample: x: this float32 tensor of shape \[1, 1, 4, 4\] was disposed$/],
  ['a disposed heap tensor as out', (gs) => { const t = gs.tensor('float32', [1, 1, 6, 6]); t.dispose(); return gs.gridSample(X(), G(), { out: t }); }, TypeError, /gridSample: options\.out: this float32 tensor of shape \[1, 1, 6, 6\] was disposed$/],
  ['data of a disposed heap tensor', (gs) => { const t = gs.tensor('int16', [3]); t.dispose(); return t.data; }, TypeError, /HeapTensor\.data: this int16 tensor of shape \[3\] was disposed$/],
  ['out is the same heap tensor as x', (gs) => {
    const t = gs.tensor('float32', [1, 1, 6, 6]);
    try {
      return gs.gridSample(t, { data: f32(72), shape: [1, 6, 6, 2] }, { out: t });
    } finally {
      t.dispose();
    }
  }, RangeError, /gridSample: options\.out: shares memory with x; give the output its own tensor$/],
  ['tensor() with an unknown dtype', (gs) => gs.tensor('float8', [2]), RangeError, /^tensor: dtype: expected one of float32, .*got "float8"$/],
  ['tensor() with a negative dim', (gs) => gs.tensor('float32', [2, -1]), RangeError, /^tensor: shape\[1\]: expected a non-negative integer, got -1/],
  ['tensor() larger than the heap can grow', (gs) => gs.tensor('float64', [2 ** 29]), RangeError, /^tensor: a float64 tensor would need 4294967296 bytes \(4 GiB\): shape \[536870912\] is 536870912 float64 elements; the wasm heap is limited to 2 GiB$/],
  ['tensor() of exactly 2 GiB', (gs) => gs.tensor('uint8', [2 ** 31]), RangeError, /^tensor: a uint8 tensor would need 2147483648 bytes \(2 GiB\): shape \[2147483648\] is 2147483648 uint8 elements; the wasm heap is limited to 2 GiB$/],
  // Under 2 GiB on paper, but the memory also holds static data and the stack: malloc fails.
  ['tensor() that malloc cannot place', (gs) => gs.tensor('uint8', [2 ** 31 - 2 ** 20]), RangeError, /^tensor: could not allocate 2146435072 bytes \(2 GiB\) for a uint8 tensor of shape \[2146435072\] in the wasm heap \(\d+ bytes in use, memory \d+ bytes, 2 GiB at most\); dispose heap tensors or make the request smaller$/],
  ['tensorFrom() of a detached array', (gs) => gs.tensorFrom({ data: detached(f32(4)), shape: [4] }), TypeError, /^tensorFrom: source\.data: the ArrayBuffer is detached/],
  ['constructing a HeapTensor directly', (gs) => { const t = gs.tensor('float32', [1]); try { return new t.constructor(); } finally { t.dispose(); } }, TypeError, /create heap tensors with gs\.tensor\(\) or gs\.tensorFrom\(\)/],

  // --- affineGrid ---
  ['theta is a typed array', (gs) => gs.affineGrid(Float32Array.from([1, 0, 0, 0, 1, 0]), [1, 1, 4, 4]), TypeError, /^affineGrid: theta: expected a tensor \{data, shape\} or \{data, dims\}, got Float32Array\(6\)$/],
  ['theta is an integer tensor', (gs) => gs.affineGrid({ data: new Int32Array(6), shape: [1, 2, 3] }, [1, 1, 4, 4]), TypeError, /affineGrid: theta: expected dtype float32, float64, float16 or bfloat16, got int32$/],
  ['size is a string', (gs) => gs.affineGrid(THETA(), '1,1,4,4'), TypeError, /affineGrid: size: expected an array \[N, C, H, W\] or \[N, C, D, H, W\], got "1,1,4,4"$/],
  ['size is missing', (gs) => gs.affineGrid(THETA()), TypeError, /affineGrid: size: expected an array .*got undefined$/],
  ['size of 3 values', (gs) => gs.affineGrid(THETA(), [1, 4, 4]), RangeError, /affineGrid: size: expected 4 values \(N, C, H, W\) or 5 \(N, C, D, H, W\), got 3: \[1, 4, 4\]$/],
  ['size with a negative value', (gs) => gs.affineGrid(THETA(), [1, 1, -4, 4]), RangeError, /affineGrid: size\[2\]: expected a non-negative integer, got -4/],
  ['size with a fractional value', (gs) => gs.affineGrid(THETA(), [1, 1, 4, 4.25]), RangeError, /affineGrid: size\[3\]: expected a non-negative integer, got 4\.25/],
  ['size with NaN', (gs) => gs.affineGrid(THETA(), [1, 1, NaN, 4]), RangeError, /affineGrid: size\[2\]: expected a non-negative integer, got NaN/],
  ['size whose grid overflows the heap', (gs) => gs.affineGrid(THETA(), [1, 1, 2 ** 20, 2 ** 20]), RangeError, /^affineGrid: the output grid would need 8796093022208 bytes \(8 TiB\): shape \[1, 1048576, 1048576, 2\] is 2199023255552 float32 elements; the wasm heap is limited to 2 GiB$/],
  ['theta shape does not fit size', (gs) => gs.affineGrid({ data: f32(12), shape: [1, 3, 4] }, [1, 1, 4, 4]), RangeError, /affineGrid: theta: expected shape \[1, 2, 3\] for size \[1, 1, 4, 4\], got \[1, 3, 4\]$/],
  ['theta batch differs from size', (gs) => gs.affineGrid(THETA(), [2, 1, 4, 4]), RangeError, /affineGrid: theta: expected shape \[2, 2, 3\] for size \[2, 1, 4, 4\], got \[1, 2, 3\]$/],
  ['an unknown affineGrid option', (gs) => gs.affineGrid(THETA(), [1, 1, 4, 4], { mode: 'linear' }), TypeError, /affineGrid: options\.mode: unknown option; expected alignCorners, align_corners, out$/],
  ['affineGrid out of the wrong length', (gs) => gs.affineGrid(THETA(), [1, 1, 4, 4], { out: f32(31) }), RangeError, /affineGrid: options\.out: expected 32 elements for shape \[1, 4, 4, 2\], got 31$/],
];

const variants = ['simd', 'scalar'].filter((v) => v === 'scalar' || simdSupported());

describe('load() rejects bad options', () => {
  const cases = [
    [{ variant: 'avx2' }, RangeError, /^load: options\.variant: expected 'simd', 'scalar', 'simd-threads' or 'auto', got "avx2"$/],
    [{ variant: 1 }, TypeError, /^load: options\.variant: expected .*got 1$/],
    [{ wasmPath: 'x' }, TypeError, /^load: options\.wasmPath: unknown option; expected variant, numThreads, wasmUrl, wasmBinary, wasmModule, warmUp$/],
    ['simd', TypeError, /^load: options: expected an object, got "simd"$/],
    [{ wasmUrl: 42 }, TypeError, /^load: options\.wasmUrl: expected a string, a URL or a function \(variant\) => URL, got 42$/],
    [{ wasmBinary: [0, 97, 115, 109] }, TypeError, /^load: options\.wasmBinary: expected an ArrayBuffer or a Uint8Array, got Array\(4\)$/],
    [{ wasmModule: new Uint8Array(4) }, TypeError, /^load: options\.wasmModule: expected a WebAssembly\.Module, got Uint8Array\(4\)$/],
    [{ wasmUrl: 'a.wasm', wasmBinary: new Uint8Array(8) }, TypeError, /^load: options: give at most one of wasmUrl, wasmBinary and wasmModule$/],
  ];
  for (const [options, type, pattern] of cases) {
    test(`${JSON.stringify(options)}`, async () => {
      await assert.rejects(load(options), (e) => e instanceof type && pattern.test(e.message) ? true : assert.fail(`${e.name}: ${e.message}`));
    });
  }
});

for (const variant of variants) {
  const gs = await load({ variant });
  // Warm up: the first calls may allocate lasting runtime state (embind caches).
  gs.gridSample(X(), G());
  gs.affineGrid(THETA(), [1, 1, 4, 4]);

  describe(`${gs.backend} hostile inputs`, () => {
    for (const [what, call, type, pattern] of TABLE) {
      test(what, () => {
        const before = gs.heapUsed();
        assert.throws(() => call(gs), (e) => {
          assert.ok(e instanceof type, `expected ${type.name}, got ${e && e.name}: ${e && e.message}`);
          assert.match(e.message, pattern);
          return true;
        });
        assert.equal(gs.heapUsed(), before, 'heap bytes in use after the error');
        // The module is still fully usable.
        const y = gs.gridSample(X(), G(), { mode: 'bilinear' });
        for (let i = 0; i < BASIC.y.length; ++i) assert.ok(Math.abs(y.data[i] - BASIC.y[i]) <= PRINTED_ATOL);
        assert.equal(gs.heapUsed(), before, 'heap bytes in use after the next call');
      });
    }
  });
}
