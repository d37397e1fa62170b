// A TypeScript consumer of the packed gridsample package, whose types are checked exactly at compile time (packaging_node.test.mjs compiles it as ESM and as CommonJS).
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
assert<Equal<typeof gs.backend, 'wasm-simd128' | 'wasm-scalar' | 'wasm-simd128-threads'>>();
assert<Equal<typeof gs.threads, number>>();
assert<Equal<ReturnType<typeof gridsample.threadsSupported>, boolean>>();
gridsample.load({ numThreads: 4 });
gridsample.load({ variant: 'simd-threads' });
// @ts-expect-error: numThreads is a number
gridsample.load({ numThreads: '4' });
gridsample.load({ variant: 'scalar', wasmUrl: (v) => `/assets/gridsample-${v}.wasm` });
gridsample.load({ warmUp: false });
gridsample.load({ warmUp: 20 });
// @ts-expect-error: warmUp is a boolean or milliseconds
gridsample.load({ warmUp: 'yes' });

// A result's dtype is x's (theta's for affineGrid): its dtype, else its type, else its array class.
// Results are new arrays over an ArrayBuffer (TypeScript >= 5.7 says so: Float32Array<ArrayBuffer>).
const f32 = gs.gridSample({ data: new Float32Array(16), shape: [1, 1, 4, 4] }, grid,
  { mode: 'bicubic', paddingMode: 'border', alignCorners: 1 });
assert<Equal<typeof f32, gridsample.Tensor<'float32', Float32Array<ArrayBuffer>>>>();
const f16 = gs.gridSample({ data: new Uint16Array(16), shape: [1, 1, 4, 4], dtype: 'float16' }, grid);
assert<Equal<typeof f16, gridsample.Tensor<'float16', Uint16Array<ArrayBuffer>>>>();
const i16 = gs.gridSample({ data: new Int16Array(16), dims: [1, 1, 4, 4], type: 'int16' }, grid);
assert<Equal<typeof i16, gridsample.Tensor<'int16', Int16Array<ArrayBuffer>>>>();
const g64 = gs.affineGrid({ data: new Float64Array(6), shape: [1, 2, 3], dtype: 'float64' }, [1n, 1n, 4n, 4n], { align_corners: 0 });
assert<Equal<typeof g64, gridsample.Tensor<'float64', Float64Array<ArrayBuffer>>>>();
const f64Heap = gs.tensorFrom({ data: new Float64Array(16), shape: [1, 1, 4, 4] });
assert<Equal<typeof f64Heap, gridsample.HeapTensor<'float64'>>>();
assert<Equal<typeof f64Heap.data, Float64Array<ArrayBuffer>>>();
const fromHeap = gs.gridSampleChannelsLast(f64Heap, grid);
assert<Equal<typeof fromHeap, gridsample.Tensor<'float64', Float64Array<ArrayBuffer>>>>();
const annotated: gridsample.Tensor<'float32'> = f32;
// @ts-expect-error: a float32 x gives a float32 result
const notBytes: gridsample.Tensor<'uint8'> = f32;
console.log(annotated, notBytes);

// uint8 results keep the input's class: a Uint8ClampedArray (canvas ImageData) stays one.
const clamped = gs.gridSample({ data: new Uint8ClampedArray(16), shape: [1, 1, 4, 4] }, grid);
assert<Equal<typeof clamped.data, Uint8ClampedArray<ArrayBuffer>>>();
assert<Equal<typeof clamped.dtype, 'uint8'>>();
const bytes = gs.gridSample({ data: new Uint8Array(16), shape: [1, 1, 4, 4], dtype: 'uint8' }, grid);
assert<Equal<typeof bytes.data, Uint8Array<ArrayBuffer>>>();
const clampedLast = gs.gridSampleChannelsLast({ data: new Uint8ClampedArray(16), shape: [1, 2, 2, 4] }, grid);
assert<Equal<typeof clampedLast.data, Uint8ClampedArray<ArrayBuffer>>>();
declare const someBytes: Uint8Array | Uint8ClampedArray;
const either = gs.gridSample({ data: someBytes, shape: [1, 1, 4, 4] }, grid);
assert<Equal<typeof either.data, Uint8Array<ArrayBuffer> | Uint8ClampedArray<ArrayBuffer>>>();
// @ts-expect-error: a Uint8ClampedArray input does not give a Uint8Array
const notClamped: Uint8Array = clamped.data;
console.log(notClamped);
// Heap tensors are Uint8Array views, and results computed from them Uint8Arrays.
const bytesHeap = gs.tensor('uint8', [1, 1, 4, 4]);
assert<Equal<typeof bytesHeap.data, Uint8Array<ArrayBuffer>>>();
const fromBytesHeap = gs.gridSample(bytesHeap, grid);
assert<Equal<typeof fromBytesHeap.data, Uint8Array<ArrayBuffer>>>();
// warpAffine likewise, and its result goes straight into an ImageData.
const theta = [1, 0, 0, 0, 1, 0];
const image = new ImageData(4, 4);
const warped = gs.warpAffine(image, theta, { mode: 'bilinear', paddingMode: 'zeros' });
assert<Equal<typeof warped, gridsample.Image<Uint8ClampedArray<ArrayBuffer>>>>();
console.log(new ImageData(warped.data, warped.width, warped.height));
const warpedBytes = gs.warpAffine({ data: new Uint8Array(48), width: 4, height: 4, channels: 3 }, theta);
assert<Equal<typeof warpedBytes.data, Uint8Array<ArrayBuffer>>>();
const warpedHeap = gs.warpAffine(gs.tensor('uint8', [4, 4, 4]), theta);
assert<Equal<typeof warpedHeap.data, Uint8Array<ArrayBuffer>>>();
const warpedFloats = gs.warpAffine({ data: new Float32Array(16), width: 4, height: 4 }, new Float32Array(6));
assert<Equal<typeof warpedFloats.data, Float32Array<ArrayBuffer>>>();
// Pixel space: OpenCV's matrices, a perspective warp of a quad.
const turn: number[] = gs.rotationMatrix([1.5, 1.5], 30, 0.5);
const turned = gs.warpAffine(image, turn, { space: 'pixel', paddingMode: 'border' });
assert<Equal<typeof turned, gridsample.Image<Uint8ClampedArray<ArrayBuffer>>>>();
const quad: gridsample.Quad = [[0, 0], [3, 0.5], [3, 3], [0.5, 3]];
const homography: number[] = gs.perspectiveTransform(quad, [[0, 0], [3, 0], [3, 3], [0, 3]]);
const rectified = gs.warpPerspective(image, homography, { space: 'pixel', width: 4, height: 4, out: new ImageData(4, 4) });
assert<Equal<typeof rectified, ImageData>>();
const inverted = gs.warpPerspective({ data: new Float32Array(16), width: 4, height: 4 }, new Float64Array(9), { space: 'pixel', inverse: true });
assert<Equal<typeof inverted.data, Float32Array<ArrayBuffer>>>();
// remap: two float planes, or one interleaved map.
const mapX = { data: new Float32Array(16), width: 4, height: 4 };
const remapped = gs.remap(image, mapX, mapX, { mode: 'bicubic', paddingMode: 'reflection' });
assert<Equal<typeof remapped, gridsample.Image<Uint8ClampedArray<ArrayBuffer>>>>();
const remappedHeap = gs.remap(gs.tensor('float32', [4, 4, 1]), gs.tensor('float32', [4, 4, 2]), null, { out: gs.tensor('float32', [4, 4, 1]) });
assert<Equal<typeof remappedHeap.data, Float32Array<ArrayBuffer>>>();
// @ts-expect-error: maps are float32
gs.remap(image, { data: new Uint8Array(16), width: 4, height: 4 });
// fill: BORDER_CONSTANT's colour, one number or one per channel.
gs.warpAffine(image, turn, { space: 'pixel', fill: [255, 255, 255, 255] });
gs.remap(image, mapX, mapX, { fill: 128 });
// @ts-expect-error: fill is numbers
gs.warpPerspective(image, homography, { fill: 'white' });
// @ts-expect-error: remap's output size is the maps'
gs.remap(image, mapX, mapX, { width: 4 });
// prepareRemap: the maps planned once, then run per frame.
const undistort: gridsample.PreparedRemap = gs.prepareRemap({ width: 4, height: 4, channels: 4, dtype: 'uint8' }, mapX, mapX, { fill: 0 });
const frame = undistort.run(image);
assert<Equal<typeof frame, gridsample.Image<Uint8ClampedArray<ArrayBuffer>>>>();
const framed = undistort.run(image, { out: new ImageData(4, 4) });
assert<Equal<typeof framed, ImageData>>();
assert<Equal<typeof undistort.planBytes, number>>();
undistort.dispose();
// @ts-expect-error: the image's description names its dtype
gs.prepareRemap({ width: 4, height: 4, channels: 4 }, mapX);
// warpFlow: NCHW tensors and a float32 flow.
const flowed = gs.warpFlow({ data: new Float32Array(16), shape: [1, 1, 4, 4] }, { data: new Float32Array(32), shape: [1, 2, 4, 4] }, { mode: 'bilinear', paddingMode: 'border' });
assert<Equal<typeof flowed.data, Float32Array<ArrayBuffer>>>();
// warpFlow on an interleaved image: an interleaved flow, or RAFT's [1, 2, H, W].
const flowedImage = gs.warpFlow(image, { data: new Float32Array(32), width: 4, height: 4 }, { fill: 255 });
assert<Equal<typeof flowedImage, gridsample.Image<Uint8ClampedArray<ArrayBuffer>>>>();
gs.warpFlow(image, { data: new Float32Array(32), shape: [1, 2, 4, 4] }, { mode: 'bicubic', out: new ImageData(4, 4) });
// @ts-expect-error: an image's flow has no alignCorners (pixel space)
gs.warpFlow(image, { data: new Float32Array(32), width: 4, height: 4 }, { alignCorners: true });
// @ts-expect-error: the space is 'normalized' or 'pixel'
gs.warpPerspective(image, homography, { space: 'pixels' });
// @ts-expect-error: a quad has four points
gs.perspectiveTransform([[0, 0], [1, 0], [1, 1]], quad);

// options.out: a typed array comes back as the result's data; a tensor object, a heap tensor
// or (for warpAffine) an image object such as an ImageData comes back itself; warpAffine gives
// a heap tensor's view in a new image.
const x32 = { data: new Float32Array(16), shape: [1, 1, 4, 4] };
const outArray = new Float32Array(4);
const intoArray = gs.gridSample(x32, grid, { out: outArray, mode: 'nearest' });
assert<Equal<typeof intoArray, gridsample.Tensor<'float32', typeof outArray>>>();
const intoClamped = gs.gridSample({ data: new Uint8Array(16), shape: [1, 1, 4, 4] }, grid, { out: new Uint8ClampedArray(4) });
assert<Equal<typeof intoClamped, gridsample.Tensor<'uint8', Uint8ClampedArray<ArrayBuffer>>>>();
const outTensor = { data: new Float32Array(4), shape: [1, 1, 2, 2], dtype: 'float32' as const };
const intoTensor = gs.gridSample(x32, grid, { out: outTensor });
assert<Equal<typeof intoTensor, typeof outTensor>>();
const intoLast = gs.gridSampleChannelsLast({ data: new Float32Array(16), shape: [1, 4, 4, 1] }, grid, { out: outTensor });
assert<Equal<typeof intoLast, typeof outTensor>>();
const outHeap = gs.tensor('float32', [1, 2, 2, 2]);
const theta32 = { data: new Float32Array(6), shape: [1, 2, 3] };
const intoHeap = gs.affineGrid(theta32, [1, 1, 2, 2], { out: outHeap, alignCorners: true });
assert<Equal<typeof intoHeap, gridsample.HeapTensor<'float32'>>>();
const intoGrid = gs.affineGrid(theta32, [1, 1, 2, 2], { out: new Float32Array(8) });
assert<Equal<typeof intoGrid.data, Float32Array<ArrayBuffer>>>();
declare const someOptions: gridsample.GridSampleOptions;
const outOrNot: gridsample.TensorLike = gs.gridSample(x32, grid, someOptions);
console.log(outOrNot);
const canvasImage = new ImageData(4, 4);
const intoImageData = gs.warpAffine(image, theta, { out: canvasImage });
assert<Equal<typeof intoImageData, ImageData>>();
// @ts-expect-error: an ImageData has no channels
console.log(intoImageData.channels);
const intoPixels = gs.warpAffine({ data: new Uint8Array(64), width: 4, height: 4 }, theta, { out: new Uint8ClampedArray(64) });
assert<Equal<typeof intoPixels, gridsample.Image<Uint8ClampedArray<ArrayBuffer>>>>();
const outFloats = { data: new Float32Array(16), width: 4, height: 4, channels: 1 };
const intoFloats = gs.warpAffine(outFloats, theta, { out: outFloats });
assert<Equal<typeof intoFloats, typeof outFloats>>();
const intoHeapImage = gs.warpAffine(image, theta, { out: gs.tensor('uint8', [4, 4, 4]) });
assert<Equal<typeof intoHeapImage, gridsample.Image<Uint8Array<ArrayBuffer>>>>();
// A result's type comes from the arguments, never from the type it is assigned to (which
// TypeScript would otherwise take for the type of options.out).
// @ts-expect-error: a float32 x gives a float32 result, whatever the annotation says
const notBytesDirect: gridsample.Tensor<'uint8'> = gs.gridSample({ data: new Float32Array(16), shape: [1, 1, 4, 4] }, grid);
// @ts-expect-error: a float32 image gives float32 pixels, whatever the annotation says
const notPixelsDirect: gridsample.Image<Uint8ClampedArray> = gs.warpAffine({ data: new Float32Array(16), width: 4, height: 4 }, theta);
// @ts-expect-error: a float32 theta gives a float32 grid
const notGrid64: gridsample.Tensor<'float64'> = gs.affineGrid({ data: new Float32Array(6), shape: [1, 2, 3] }, [1, 1, 4, 4]);
console.log(notBytesDirect, notPixelsDirect, notGrid64);

// Arguments the declarations reject.
// @ts-expect-error: not an ONNX mode
gs.gridSample({ data: new Float32Array(1), shape: [1, 1, 1] }, { data: new Float32Array(1), shape: [1, 1, 1] }, { mode: 'trilinear' });
// @ts-expect-error: alignCorners is boolean or 0/1
gs.gridSample({ data: new Float32Array(1), shape: [1, 1, 1] }, { data: new Float32Array(1), shape: [1, 1, 1] }, { alignCorners: 2 });
// @ts-expect-error: data must be a typed array
gs.gridSample({ data: [1, 2], shape: [1, 1, 2] }, { data: new Float32Array(1), shape: [1, 1, 1] });
// @ts-expect-error: unknown dtype
gs.tensor('float8', [1]);
// @ts-expect-error: not an option (paddingMode or padding_mode)
gs.gridSample(x32, grid, { padding: 'zeros' });
// @ts-expect-error: out is a typed array, a tensor or a heap tensor
gs.gridSample(x32, grid, { out: [0, 0, 0, 0] });
// @ts-expect-error: warpAffine's out is an image, its pixels or a heap tensor
gs.warpAffine(image, theta, { out: outTensor });

// Multi-scale deformable attention: the result has the value's dtype; the levels come as
// onnxruntime's int64 tensors, int32 ones, bare typed arrays or arrays; threads are load()'s.
const locations = { data: new Float32Array(4), shape: [1, 1, 1, 2, 1, 2] };
const weights = { data: new Float32Array(2), shape: [1, 1, 1, 2, 1] };
const attention = gs.multiScaleDeformableAttention({ data: new Float32Array(10), shape: [1, 5, 1, 2] },
  { data: BigInt64Array.of(2n, 2n, 1n, 1n), dims: [2, 2], type: 'int64' }, BigInt64Array.of(0n, 4n), locations, weights);
assert<Equal<typeof attention, gridsample.Tensor<'float32', Float32Array<ArrayBuffer>>>>();
const attention16 = gs.multiScaleDeformableAttention({ data: new Uint16Array(10), shape: [1, 5, 1, 2], dtype: 'float16' },
  [[2, 2], [1n, 1n]], [0, 4], locations, { data: new Uint16Array(2), dims: [1, 1, 1, 2, 1], type: 'float16' });
assert<Equal<typeof attention16, gridsample.Tensor<'float16', Uint16Array<ArrayBuffer>>>>();
const attentionOut = { data: new Float32Array(2), shape: [1, 1, 2], dtype: 'float32' as const };
const intoAttention = gs.multiScaleDeformableAttention(x32, { data: Int32Array.of(2, 2, 1, 1), shape: [2, 2] }, Int32Array.of(0, 4),
  locations, weights, { out: attentionOut });
assert<Equal<typeof intoAttention, typeof attentionOut>>();
const levelPairs = [[2, 2], [1, 1]];  // number[][]: pairs in a variable
const levelsOfOutHeap = gs.multiScaleDeformableAttention(x32, levelPairs, [0n, 4n], locations, weights, { out: outHeap });
gs.multiScaleDeformableAttention(x32, [2, 2, 1, 1], [0, 4], locations, weights);
assert<Equal<typeof levelsOfOutHeap, gridsample.HeapTensor<'float32'>>>();
// @ts-expect-error: levels are integers: no Float32Array
gs.multiScaleDeformableAttention(x32, Float32Array.of(2, 2, 1, 1), [0, 4], locations, weights);
// @ts-expect-error: an int64 tensor's data is a BigInt64Array (or int32's an Int32Array)
gs.multiScaleDeformableAttention(x32, { data: new Float64Array(4), dims: [2, 2] }, [0, 4], locations, weights);
// @ts-expect-error: threads are load()'s numThreads
gs.multiScaleDeformableAttention(x32, [[2, 2], [1, 1]], [0, 4], locations, weights, { threads: 2 });
// D-FINE's form: points per level (rank-5 locations) and discrete sampling.
const dfine = gs.multiScaleDeformableAttention(x32, [[2, 2], [1, 1]], [0, 4], { data: new Float32Array(6), shape: [1, 1, 1, 3, 2] },
  { data: new Float32Array(3), shape: [1, 1, 1, 3] }, { pointsPerLevel: [2, 1], sampling: 'discrete' });
assert<Equal<typeof dfine, gridsample.Tensor<'float32', Float32Array<ArrayBuffer>>>>();
gs.multiScaleDeformableAttention(x32, [[2, 2], [1, 1]], [0, 4], locations, weights, { pointsPerLevel: BigInt64Array.of(1n, 1n), sampling: 'bilinear' });
assert<Equal<gridsample.DeformableSampling, 'bilinear' | 'discrete'>>();
// @ts-expect-error: sampling is 'bilinear' or 'discrete'
gs.multiScaleDeformableAttention(x32, [[2, 2], [1, 1]], [0, 4], locations, weights, { sampling: 'nearest' });
// @ts-expect-error: points per level are integers: no Float32Array
gs.multiScaleDeformableAttention(x32, [[2, 2], [1, 1]], [0, 4], locations, weights, { pointsPerLevel: Float32Array.of(1, 1) });

// The worker pool: async twins of the large calls, the result types of the instance's calls.
async function poolCalls(): Promise<void> {
  assert<Equal<ReturnType<typeof gridsample.createPool>, Promise<gridsample.Pool>>>();
  const pool = await gridsample.createPool({ workers: 4, variant: 'simd' });
  assert<Equal<typeof pool.workers, number>>();
  const rgba = { data: new Uint8ClampedArray(16), width: 2, height: 2 };
  const warped = await pool.warpAffine(rgba, [1, 0, 0, 0, 1, 0], {
    mode: 'bicubic', space: 'pixel', signal: new AbortController().signal, onProgress: (f) => void f.toFixed(2),
  });
  assert<Equal<typeof warped.data, Uint8ClampedArray<ArrayBuffer>>>();
  const flat = await pool.warpPerspective({ data: new Float32Array(4), width: 2, height: 2 }, [1, 0, 0, 0, 1, 0, 0, 0, 1]);
  assert<Equal<typeof flat.data, Float32Array<ArrayBuffer>>>();
  const y = await pool.gridSample({ data: new Float32Array(4), shape: [1, 1, 2, 2] }, grid, { mode: 'nearest' });
  assert<Equal<typeof y.data, Float32Array<ArrayBuffer>>>();
  await pool.remap(rgba, { data: new Float32Array(8), width: 2, height: 2 });
  const pooledAttention = await pool.multiScaleDeformableAttention({ data: new Uint16Array(10), shape: [1, 5, 1, 2], dtype: 'bfloat16' },
    [[2, 2], [1, 1]], [0, 4], locations, weights, { onProgress: (f: number) => f, sampling: 'discrete', pointsPerLevel: Int32Array.of(1, 1) });
  assert<Equal<typeof pooledAttention, gridsample.Tensor<'bfloat16', Uint16Array<ArrayBuffer>>>>();
  // @ts-expect-error: pool calls take no out
  await pool.multiScaleDeformableAttention(x32, [[2, 2], [1, 1]], [0, 4], locations, weights, { out: new Float32Array(2) });
  // @ts-expect-error: pool calls take no out
  await pool.warpAffine(rgba, [1, 0, 0, 0, 1, 0], { out: new Uint8ClampedArray(16) });
  // @ts-expect-error: each worker runs one thread
  await gridsample.createPool({ variant: 'simd-threads' });
  // @ts-expect-error: a fixed wasmUrl only
  await gridsample.createPool({ wasmUrl: (v: string) => v });
  await pool.terminate();
  const band = gs.warpAffine(rgba, [1, 0, 0, 0, 1, 0], { rows: [0, 1] });
  assert<Equal<typeof band.data, Uint8ClampedArray<ArrayBuffer>>>();
}
void poolCalls;
