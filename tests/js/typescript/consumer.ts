// A TypeScript consumer of the packed gridsample package, whose types are checked exactly at compile time (packaging.test.mjs compiles it as ESM and as CommonJS).
import * as gridsample from 'gridsample';

/** True when A and B are the same type: being assignable is not enough (a union is not its member). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
/** Compiles only when T is true: `assert<Equal<typeof y, Expected>>()`. */
function assert<T extends true>(): void {}

// The helper must reject near misses, else the assertions below could pass vacuously.
// @ts-expect-error: a union is not its member
assert<Equal<Uint8Array | Uint8ClampedArray, Uint8ClampedArray>>();
// @ts-expect-error: any is not a typed array
assert<Equal<any, Float32Array>>();

declare const gs: gridsample.GridSample;
const grid = { data: new Float32Array(8), shape: [1, 2, 2, 2] };

// The module.
assert<Equal<ReturnType<typeof gridsample.load>, Promise<gridsample.GridSample>>>();
assert<Equal<ReturnType<typeof gridsample.simdSupported>, boolean>>();
assert<Equal<typeof gridsample.DTYPE_NAMES, readonly gridsample.DType[]>>();
assert<Equal<typeof gs.backend, 'wasm-simd128' | 'wasm-scalar'>>();
gridsample.load({ variant: 'scalar', wasmUrl: (v) => `/assets/gridsample-${v}.wasm` });

// A result's dtype is x's (theta's for affineGrid): its dtype, else its type, else its array class.
const f32: gridsample.Tensor<'float32'> = gs.gridSample({ data: new Float32Array(16), shape: [1, 1, 4, 4] }, grid,
  { mode: 'bicubic', paddingMode: 'border', alignCorners: 1 });
const f16: gridsample.Tensor<'float16'> = gs.gridSample({ data: new Uint16Array(16), shape: [1, 1, 4, 4], dtype: 'float16' }, grid);
const i16: gridsample.Tensor<'int16'> = gs.gridSample({ data: new Int16Array(16), dims: [1, 1, 4, 4], type: 'int16' }, grid);
const g64: Float64Array = gs.affineGrid({ data: new Float64Array(6), shape: [1, 2, 3], dtype: 'float64' }, [1n, 1n, 4n, 4n],
  { align_corners: 0 }).data;
const fromHeap: Float64Array = gs.gridSample(gs.tensorFrom({ data: new Float64Array(16), shape: [1, 1, 4, 4] }), grid).data;
console.log(f32, f16, i16, g64, fromHeap);
// @ts-expect-error: a float32 x gives a float32 result
const notBytes: gridsample.Tensor<'uint8'> = f32;
console.log(notBytes);

// Arguments the declarations reject.
// @ts-expect-error: not an ONNX mode
gs.gridSample({ data: new Float32Array(1), shape: [1, 1, 1] }, { data: new Float32Array(1), shape: [1, 1, 1] }, { mode: 'trilinear' });
// @ts-expect-error: alignCorners is boolean or 0/1
gs.gridSample({ data: new Float32Array(1), shape: [1, 1, 1] }, { data: new Float32Array(1), shape: [1, 1, 1] }, { alignCorners: 2 });
// @ts-expect-error: data must be a typed array
gs.gridSample({ data: [1, 2], shape: [1, 1, 2] }, { data: new Float32Array(1), shape: [1, 1, 1] });
// @ts-expect-error: unknown dtype
gs.tensor('float8', [1]);
