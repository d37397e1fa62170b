// TypeScript declarations of a loaded gridsample module (the GridSample interface), load() and its options, and the host classes they name.
// A part of api.d.cts (which re-exports it; see there why a .d.cts), read as CommonJS for its extension alone.

import type {
  ImageLike, ImageOut, ImageResult, Homography, PixelMap, Point, Quad, RemapOptions, Theta, WarpAffineOptions,
} from './image_api.cjs';
import type {
  AffineGridOptions, DeformableAttentionOptions, DType, DTypeOf, Dims, GridSampleOptions, HeapTensor, LevelTensor, NotInferred, Out, Size,
  TensorLike, TensorResult,
} from './tensor_api.cjs';
import type { PreparedCalls } from './prepared_api.cjs';

/** The loaded module that {@link load} resolves to. */
export interface GridSample extends PreparedCalls {
  /** Which build runs: `'wasm-simd128'` or `'wasm-scalar'`. */
  readonly backend: 'wasm-simd128' | 'wasm-scalar' | 'wasm-simd128-threads';
  /** The variant name that was loaded: `'simd'`, `'scalar'` or `'simd-threads'`. */
  readonly variant: Variant;
  /**
   * Threads each call may use: `numThreads` in the `'simd-threads'` build (calls too small to
   * be worth a split still run on one), else 1. Results are the same for every count.
   */
  readonly threads: number;
  /** The kernels' SIMD target inside the wasm, for diagnostics (e.g. `'WASM'`, `'EMU128'`, `'scalar'`). */
  readonly target: string;
  /** The dtype names this module accepts. */
  readonly dtypes: readonly DType[];

  /**
   * ONNX GridSample (opsets 16, 20, 22), any spatial rank r >= 1.
   *
   * @param x - input (N, C, D1..Dr), any {@link DType}.
   * @param grid - sampling coordinates (N, O1..Or, r), innermost axis first (x = W, y = H,
   *   z = D, ...), normalised to [-1, 1]; float32, float64, float16 or bfloat16.
   *   Non-finite coordinates give 0.
   * @param options - mode, padding, align corners and an optional `out`.
   * @returns Y (N, C, O1..Or) of X's dtype; `options.out` itself when that is a tensor object.
   * @throws TypeError for a wrong kind of argument (not a tensor, wrong array class for the
   *   dtype, unknown option name, detached buffer, disposed heap tensor).
   * @throws RangeError for wrong values (negative, fractional or huge dims, data length not
   *   matching the shape, ranks or batch sizes that disagree, unknown option values, a
   *   result the 2 GiB heap cannot hold).
   */
  gridSample<X extends TensorLike | HeapTensor, O extends Out | undefined = undefined>(
    x: X,
    grid: TensorLike | HeapTensor,
    options?: GridSampleOptions<O>,
  ): TensorResult<X, NotInferred<O>>;

  /**
   * ONNX AffineGrid (opset 20), as PyTorch's `affine_grid` (a size-1 axis has coordinate 0).
   *
   * @param theta - (N, 2, 3) for a 2-D size or (N, 3, 4) for a 3-D size; float32, float64,
   *   float16 or bfloat16.
   * @param size - `[N, C, H, W]` or `[N, C, D, H, W]`.
   * @param options - align corners and an optional `out`.
   * @returns the grid (N, H, W, 2) or (N, D, H, W, 3) of theta's dtype; `options.out` itself
   *   when that is a tensor object.
   * @throws TypeError / RangeError as {@link GridSample.gridSample}.
   */
  affineGrid<T extends TensorLike | HeapTensor, O extends Out | undefined = undefined>(
    theta: T,
    size: Size,
    options?: AffineGridOptions<O>,
  ): TensorResult<T, NotInferred<O>>;

  /**
   * Warps an interleaved image (e.g. canvas `ImageData`, RGBA) by an affine map without
   * building a grid: the same result as `affineGrid(theta, [1, C, height, width])` followed
   * by `gridSample` on the image in planar layout, with one `alignCorners` for both, except
   * that uint8 bilinear pixels may be 1 level apart (a fixed-point blend inside the image).
   *
   * @param image - `{data, width, height[, channels]}` with 1 to 4 channels (an `ImageData`
   *   works as is), or a uint8 / float32 {@link HeapTensor} of shape `[height, width, channels]`.
   * @param theta - the 2x3 matrix in normalised coordinates (see {@link Theta}); non-finite
   *   entries give transparent (0) pixels where they reach.
   * @param options - mode, padding, align corners, output size, `out`.
   * @returns `{data, width, height, channels}` with data of the image's array class (or
   *   `out`'s array, or a heap tensor `out`'s view); the `out` image object itself when one is
   *   given.
   * @throws TypeError for a wrong kind of argument (not an image, an unsupported array class,
   *   theta not 6 numbers in an Array / Float32Array / Float64Array, unknown option names,
   *   detached buffers, disposed heap tensors).
   * @throws RangeError for wrong values (data length not matching the size, channels outside
   *   1..4, negative or fractional sizes, unknown option values, an empty image sampled by a
   *   non-empty output, results larger than the heap).
   *
   * @example
   * const ctx = canvas.getContext('2d');
   * const image = ctx.getImageData(0, 0, canvas.width, canvas.height);
   * const a = Math.PI / 6;   // the output samples the input rotated by a
   * const y = gs.warpAffine(image, [Math.cos(a), -Math.sin(a), 0, Math.sin(a), Math.cos(a), 0],
   *   { mode: 'bilinear', paddingMode: 'zeros' });
   * ctx.putImageData(new ImageData(y.data, y.width, y.height), 0, 0);
   */
  warpAffine<I extends ImageLike | HeapTensor<'uint8' | 'float32'>, O extends ImageOut | undefined = undefined>(
    image: I,
    theta: Theta,
    options?: WarpAffineOptions<O>,
  ): ImageResult<I, NotInferred<O>>;

  /**
   * Warps an interleaved image by a homography without building a grid: each output pixel
   * divides by its own `w`. A point with `w <= 0` (behind the camera) or a non-finite
   * coordinate gives 0 (transparent) in every padding (OpenCV ignores `w`'s sign: for a matrix
   * with `w < 0` over the picture, pass `-h` to draw what OpenCV draws). Coordinates are computed
   * in float32 (within a few float32 roundings of the exact map's), then sampled as they are.
   *
   * @param image - as for {@link GridSample.warpAffine}.
   * @param h - the 3x3 matrix (see {@link Homography}), in `options.space`.
   * @param options - as for {@link GridSample.warpAffine}: mode, padding, space, inverse,
   *   align corners (normalised space), output size, `out`. In pixel space reflection mirrors
   *   about the pixel edges (OpenCV's `BORDER_REFLECT`).
   * @returns as {@link GridSample.warpAffine}.
   * @throws TypeError / RangeError as {@link GridSample.warpAffine}; RangeError for a singular
   *   pixel-space matrix to invert.
   *
   * @example
   * // Rectify a photographed page: the page's corners in the photo onto a 600x800 output.
   * const page: Quad = [[112, 80], [530, 95], [560, 700], [90, 690]];
   * const homography = gs.perspectiveTransform(page, [[0, 0], [599, 0], [599, 799], [0, 799]]);
   * const flat = gs.warpPerspective(photo, homography, { space: 'pixel', width: 600, height: 800 });
   */
  warpPerspective<I extends ImageLike | HeapTensor<'uint8' | 'float32'>, O extends ImageOut | undefined = undefined>(
    image: I,
    h: Homography,
    options?: WarpAffineOptions<O>,
  ): ImageResult<I, NotInferred<O>>;

  /**
   * Samples an interleaved image at pixel coordinates given per output pixel, as OpenCV's
   * `remap` with float maps: output pixel `(i, j)` takes the input at `(mapX(i, j), mapY(i, j))`,
   * pixel centres at integer coordinates. The output has the maps' size. Fused: no normalised
   * grid is built; each position is sampled as it is (exact in binary, exact weights; OpenCV.js
   * quantises to 1/32 pixel). A non-finite coordinate gives 0.
   *
   * @param image - as for {@link GridSample.warpAffine}.
   * @param mapX - x of each output pixel: `{data: Float32Array, width, height}` or a float32
   *   heap tensor `[height, width, 1]`; or, with `mapY` null or omitted, both coordinates
   *   interleaved (`(x, y)` per pixel, OpenCV's CV_32FC2 map; heap tensor `[height, width, 2]`).
   * @param mapY - y of each output pixel, the same size as `mapX`.
   * @param options - `mode`, `paddingMode` (zeros: BORDER_CONSTANT 0, border: BORDER_REPLICATE,
   *   reflection: BORDER_REFLECT), `out` (the maps' size).
   * @returns as {@link GridSample.warpAffine}.
   * @throws TypeError / RangeError for maps that are not float32, of another size than each
   *   other or than `out`, or of the wrong number of values per pixel; otherwise as
   *   {@link GridSample.warpAffine}.
   */
  remap<I extends ImageLike | HeapTensor<'uint8' | 'float32'>, O extends ImageOut | undefined = undefined>(
    image: I,
    mapX: PixelMap,
    mapY?: PixelMap | null,
    options?: RemapOptions<O>,
  ): ImageResult<I, NotInferred<O>>;

  /**
   * The pixel-space 2x3 matrix rotating by `angleDeg` degrees about `center` and scaling by
   * `scale` (default 1), exactly as OpenCV's `getRotationMatrix2D`: a positive angle turns the
   * picture counter-clockwise on screen. For `warpAffine(image, m, { space: 'pixel' })`.
   * @throws TypeError / RangeError for a centre that is not two finite numbers, or a
   *   non-finite angle or scale; RangeError where an entry lies beyond double's range.
   */
  rotationMatrix(center: Point, angleDeg: number, scale?: number): number[];

  /**
   * The homography (nine numbers, `h8 = 1`) taking the points `src` onto `dst`, as OpenCV's
   * `getPerspectiveTransform` (an exact solve). Where h8 is 0 (the origin maps to infinity) it
   * is the matrix of norm 1, as OpenCV 4.12 returns, signed so that w > 0 at the src points.
   * For `warpPerspective(image, h, { space: 'pixel' })`.
   * @throws RangeError for a degenerate quad (three of its points on a line), non-finite
   *   coordinates, or an entry beyond double's range; TypeError for anything but four `[x, y]` points.
   */
  perspectiveTransform(src: Quad, dst: Quad): number[];

  /**
   * Warps NCHW tensors backward by an optical-flow field in pixels (RAFT / RIFE's convention):
   * `y[n, c, i, j] = x[n, c]` sampled at `(j + flow[n, 0, i, j], i + flow[n, 1, i, j])`,
   * `out(p) = in(p + flow(p))`. Fused: no normalised grid is built (each position is rounded
   * to float32 once and sampled as it is); a non-finite position gives 0.
   * `alignCorners` moves no point; it only chooses reflection's lines.
   *
   * @param x - (N, C, H, W), any {@link DType}.
   * @param flow - (N, 2, Ho, Wo) float32: dx, then dy, in pixels.
   * @param options - mode, padding, align corners and an optional `out`.
   * @returns Y (N, C, Ho, Wo) of X's dtype; `options.out` itself when that is a tensor object.
   * @throws TypeError / RangeError as {@link GridSample.gridSample}; a flow that is not
   *   float32 (N, 2, Ho, Wo) is one.
   */
  warpFlow<X extends TensorLike | HeapTensor, O extends Out | undefined = undefined>(
    x: X,
    flow: TensorLike | HeapTensor<'float32'>,
    options?: GridSampleOptions<O>,
  ): TensorResult<X, NotInferred<O>>;

  /**
   * An interleaved image warped backward by a flow in pixels, `out(p) = image(p + flow(p))`:
   * {@link GridSample.remap} at the positions `(j + dx, i + dy)`, each sum in float32 (as the
   * NCHW form makes it), fused: no map is built. Pixel space: no `alignCorners`.
   *
   * @param image - as for {@link GridSample.warpAffine}.
   * @param flow - `(dx, dy)` per output pixel: an interleaved `{data: Float32Array, width,
   *   height}` or float32 heap tensor `[height, width, 2]` (OpenCV's optical-flow layout), or
   *   a float32 tensor `[1, 2, height, width]` (dx's plane, then dy's: RAFT's output).
   * @param options - as {@link GridSample.remap}'s: `mode`, `paddingMode`, `fill`, `out` (the
   *   flow's size).
   * @returns as {@link GridSample.warpAffine}; the flow's size.
   */
  warpFlow<I extends ImageLike | HeapTensor<'uint8' | 'float32'>, O extends ImageOut | undefined = undefined>(
    image: I,
    flow: PixelMap | TensorLike | HeapTensor<'float32'>,
    options?: RemapOptions<O>,
  ): ImageResult<I, NotInferred<O>>;

  /**
   * GridSample (2-D) on channels-last tensors: the same semantics as
   * {@link GridSample.gridSample} with the channel axis last.
   *
   * @param x - (N, H, W, C), any {@link DType}, any C.
   * @param grid - (N, Ho, Wo, 2), (x, y) normalised coordinates; float32, float64, float16 or
   *   bfloat16.
   * @param options - mode, padding, align corners and an optional `out`.
   * @returns Y (N, Ho, Wo, C) of X's dtype; `options.out` itself when that is a tensor object.
   * @throws TypeError / RangeError as {@link GridSample.gridSample}.
   */
  gridSampleChannelsLast<X extends TensorLike | HeapTensor, O extends Out | undefined = undefined>(
    x: X,
    grid: TensorLike | HeapTensor,
    options?: GridSampleOptions<O>,
  ): TensorResult<X, NotInferred<O>>;

  /**
   * Multi-scale deformable attention's sampling (Deformable DETR, DINO, RT-DETR, D-FINE,
   * Mask2Former), fused: per level l, each head's (H_l, W_l) map sampled bilinearly at pixel
   * `(x * W_l - 0.5, y * H_l - 0.5)` (taps outside the level read 0; a non-finite location
   * samples 0), times its attention weight, summed over levels and points. The same as the chain
   * exporters write (GridSample bilinear / zeros / align_corners 0 at `2 * loc - 1` per level,
   * then Mul and ReduceSum), in float32 with one rounding to the value's dtype.
   *
   * @param value - `[N, S, M, D]` (S = the sum of H_l * W_l, M heads of D channels); float32,
   *   float16 or bfloat16.
   * @param spatialShapes - `[L, 2]`: H, W of each level, each >= 1 (see {@link LevelTensor}).
   * @param levelStartIndex - `[L]`: where each level starts in S, the running sum of H * W.
   * @param samplingLocations - `[N, Lq, M, L, P, 2]`: (x, y) in [0, 1] of each level; float32,
   *   float16 or bfloat16.
   * @param attentionWeights - `[N, Lq, M, L, P]`; float32, float16 or bfloat16.
   * @param options - an optional `out`; `pointsPerLevel` (P_l per level: the locations are then
   *   `[N, Lq, M, sum(P_l), 2]`, the weights `[N, Lq, M, sum(P_l)]`); `sampling` (`'bilinear'`,
   *   the default, or `'discrete'`: see {@link DeformableSampling}).
   * @returns y `[N, Lq, M * D]` of the value's dtype; `options.out` itself when that is a tensor
   *   object.
   * @throws TypeError for a wrong kind of argument (as {@link GridSample.gridSample}; a dtype
   *   other than float32, float16 or bfloat16; levels that are not integers in one of
   *   {@link LevelTensor}'s forms).
   * @throws RangeError for wrong values (shapes that disagree, S other than the levels' sum,
   *   H or W below 1, starts that are not the running sum of H * W, a pointsPerLevel of other
   *   than L values, a P_l below 1 or whose sum is not the locations', an unknown sampling name,
   *   a result the heap cannot hold); the library's messages name the ONNX arguments
   *   (`spatial_shapes`, ..., `points_per_level`).
   *
   * @example
   * // onnxruntime tensors as they come: value [1, S, 8, 32], levels int64, locations and weights.
   * const y = gs.multiScaleDeformableAttention(value, spatialShapes, levelStartIndex,
   *   samplingLocations, attentionWeights);   // y.shape: [1, Lq, 256]
   */
  multiScaleDeformableAttention<V extends TensorLike | HeapTensor, O extends Out | undefined = undefined>(
    value: V,
    spatialShapes: LevelTensor,
    levelStartIndex: LevelTensor,
    samplingLocations: TensorLike | HeapTensor,
    attentionWeights: TensorLike | HeapTensor,
    options?: DeformableAttentionOptions<O>,
  ): TensorResult<V, NotInferred<O>>;

  /**
   * A zero-filled tensor in the wasm heap (the zero-copy tier).
   * @throws RangeError when the heap cannot hold it: refused before allocating when it cannot
   *   fit next to the heap tensors alive, or "could not allocate" when malloc cannot place it.
   */
  tensor<D extends DType>(dtype: D, shape: Dims): HeapTensor<D>;

  /** A heap tensor holding a copy of `source` (any tensor this API accepts). */
  tensorFrom<T extends TensorLike | HeapTensor>(source: T): HeapTensor<DTypeOf<T>>;

  /** Bytes malloc has handed out in this module's heap (constant across calls unless heap tensors are alive): for leak checks. */
  heapUsed(): number;

  /** Current size of this module's wasm memory in bytes (it only grows, up to 2 GiB). */
  heapSize(): number;
}

/**
 * The instance type of the host's global class `Name` (`'URL'`, `'Blob'`, `'AbortSignal'`) as
 * the consumer's project declares it (lib.dom, lib.webworker or @types/node), else `never`:
 * these declarations name no global type directly, so that they compile with or without the DOM
 * lib and Node's types (a Node-only project with `lib: ["es2022"]` has no `WebAssembly`, and
 * without @types/node no `URL`), and take the real class wherever there is one.
 */
export type HostClass<Name extends string> = typeof globalThis extends { readonly [K in Name]: { prototype: infer T } } ? T : never;

/** `WebAssembly.Module` where the project declares it (lib.dom, lib.webworker), else any object. */
export type WasmModule = typeof globalThis extends { readonly WebAssembly: { readonly Module: { prototype: infer M } } } ? M : object;

/** Options of {@link load}. */
/**
 * A build of the wasm: `'simd'` (SIMD128), `'scalar'` (runs everywhere), `'simd-threads'`
 * (SIMD128 with wasm threads: shared memory and pthread workers).
 */
export type Variant = 'simd' | 'scalar' | 'simd-threads';

export interface LoadOptions {
  /**
   * `'simd'` (wasm SIMD128, rejects where unsupported), `'scalar'` (runs everywhere) or
   * `'auto'` (default: SIMD where {@link simdSupported}).
   */
  variant?: Variant | 'auto';
  /**
   * Threads per call (1 to 64; default onnxruntime-web's `min(4, ceil(cores / 2))`). More than
   * one makes `'auto'` load the `'simd-threads'` build where {@link threadsSupported} (always in
   * Node; in a browser only on cross-origin isolated pages, COOP/COEP) and the `.wasm` is looked
   * up by variant (no fixed `wasmUrl`, `wasmBinary` or `wasmModule`); elsewhere `load()` quietly
   * falls back to one thread. 1 turns threads off. `gs.threads` says what was chosen. In the
   * threaded build heap tensors' views are over a `SharedArrayBuffer` (copy them before giving
   * them to APIs that refuse shared memory, such as `ImageData`).
   */
  numThreads?: number;
  /**
   * Where to fetch the `.wasm` from (a CDN, a bundler's asset URL): a URL, or a function
   * of the chosen variant returning one (`v => \`/assets/gridsample-${v}.wasm\``). In Node,
   * `file:` URLs and paths are read from disk. A fixed URL must hold the variant that is
   * chosen, so give `variant` with it.
   */
  wasmUrl?: string | HostClass<'URL'> | ((variant: Variant) => string | HostClass<'URL'>);
  /**
   * The `.wasm` bytes themselves (of the chosen variant: with an explicit `variant`, bytes of
   * the other build are a `TypeError`; with `'auto'` the module reports the build it is).
   */
  wasmBinary?: ArrayBuffer | ArrayBufferView;
  /** An already compiled module (of the chosen variant, as `wasmBinary`), e.g. posted to a worker. */
  wasmModule?: WasmModule;
  /**
   * Milliseconds to run the kernels on small inputs before `load()` resolves (`true`, the
   * default: 50; `false` or 0: none; at most 10000). Engines optimise wasm only after it has run
   * for a while, so without it a fresh module's first calls run several times slower; pass
   * `false` when only a few small calls will follow.
   */
  warmUp?: boolean | number;
}

/**
 * Loads and instantiates gridsample. Each call makes a new, independent module; load once
 * and reuse it.
 * @throws TypeError / RangeError for bad options (rejected promise); Error when the wasm
 *   cannot be fetched or instantiated.
 */
export declare function load(options?: LoadOptions): Promise<GridSample>;

/** True when this JavaScript engine validates wasm SIMD128 code (what `variant: 'auto'` uses). */
export declare function simdSupported(): boolean;

/**
 * True when this engine gives wasm threads (SharedArrayBuffer, shared memory and, in a
 * browser, a cross-origin isolated page or worker): where `variant: 'auto'` may load
 * `'simd-threads'`.
 */
export declare function threadsSupported(): boolean;
