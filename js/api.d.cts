// TypeScript declarations of the gridsample API, the one copy that index.d.ts (ES module entries) and index.d.cts (CommonJS entry) re-export.
//
// Why a CommonJS declaration file: both entry declarations must be able to import it. An ES
// module may import a CommonJS one, but a CommonJS file importing an ES module needs a
// `resolution-mode` attribute under `module: node16` (TS1541 otherwise), which TypeScript
// understands only from 5.3. This file is read as CommonJS for its `.d.cts` extension alone
// (the package is `"type": "module"`); no api.cjs exists, it is a declaration file only.
// Nothing here depends on the module format: exports named in it are the named exports of
// both entries (index.d.cts leaves out the HeapTensor class, which index.cjs does not export).

/**
 * Element type names the library computes on. `float16` and `bfloat16` are storage formats
 * held in a `Uint16Array` (raw bit patterns) and computed in float32; `float64`, `int32` and
 * `uint32` compute in float64; the other types in float32. Integer results are rounded half
 * to even and saturated to the type's range.
 */
export type DType =
  | 'float32'
  | 'float64'
  | 'float16'
  | 'bfloat16'
  | 'int8'
  | 'uint8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32';

/** Element types a GridSample grid or an AffineGrid theta may have. */
export type FloatDType = 'float32' | 'float64' | 'float16' | 'bfloat16';

/** Maps each dtype to the typed array that holds it. */
export interface DataTypeMap {
  /** 32-bit IEEE floats. */
  float32: Float32Array;
  /** 64-bit IEEE floats. */
  float64: Float64Array;
  /** IEEE binary16 bit patterns (a native `Float16Array` is accepted where the runtime has one). */
  float16: Uint16Array;
  /** bfloat16 bit patterns (the upper half of a float32). */
  bfloat16: Uint16Array;
  /** Signed bytes. */
  int8: Int8Array;
  /** Unsigned bytes; a `Uint8ClampedArray` (canvas `ImageData.data`) is accepted too. */
  uint8: Uint8Array | Uint8ClampedArray;
  /** Signed 16-bit integers. */
  int16: Int16Array;
  /** Unsigned 16-bit integers. */
  uint16: Uint16Array;
  /** Signed 32-bit integers. */
  int32: Int32Array;
  /** Unsigned 32-bit integers. */
  uint32: Uint32Array;
}

/** Any typed array the library reads or writes. */
export type TensorData = DataTypeMap[DType];

/**
 * The typed array gridsample creates for dtype `D` (results, heap tensor views): the dtype's
 * class, a `Uint8Array` for uint8, over an `ArrayBuffer`. Spelt as what `slice` returns, which is
 * such an array: `Float32Array<ArrayBuffer>` where typed arrays are generic (TypeScript >= 5.7;
 * it is what `new ImageData(data, ...)` requires there), plain `Float32Array` before.
 */
export type ArrayOf<D extends DType> = ReturnType<(D extends 'uint8' ? Uint8Array : DataTypeMap[D])['slice']>;

/** Dimensions: non-negative safe integers (bigints as in int64 tensors are accepted). */
export type Dims = readonly (number | bigint)[] | Int32Array | Uint32Array | BigInt64Array;

/**
 * A dense, row-major (C order) tensor. Give `shape` or `dims` (onnxruntime-web `Tensor`
 * objects have `dims` and `type`, and pass in unchanged). The dtype is `dtype`, else
 * `type`, else inferred from the array class (`Uint16Array` means uint16: half floats must
 * say `dtype: 'float16'` or `'bfloat16'`).
 */
export interface TensorLike {
  /** The elements; `length` must equal the product of the dimensions. */
  readonly data: TensorData;
  /** Dimensions, e.g. `[N, C, H, W]`. */
  readonly shape?: Dims;
  /** Same as `shape` (the onnxruntime-web name); if both are given they must agree. */
  readonly dims?: Dims;
  /** Element type, when the array class does not say it. */
  readonly dtype?: DType;
  /** Element type as onnxruntime-web spells it; used when `dtype` is absent. */
  readonly type?: string;
  /** onnxruntime-web tensor location; only CPU tensors (`'cpu'`, `'cpu-pinned'`) can be read. */
  readonly location?: string;
}

/**
 * A result of `gridSample`, `gridSampleChannelsLast` and `affineGrid`: a plain object (unless
 * `options.out` is a tensor object, see {@link TensorResult}).
 */
export interface Tensor<D extends DType = DType, A extends TensorData = DataTypeMap[D]> {
  /** The elements: a new array of the class {@link ResultDataOf} names, or the typed array given as `options.out`. */
  readonly data: A;
  /** Dimensions of the result. */
  readonly shape: readonly number[];
  /** Element type of the result: X's for GridSample, theta's for AffineGrid. */
  readonly dtype: D;
}

/**
 * The dtype a tensor argument stands for: its `dtype`, else its `type`, else what its
 * array class means (a `Uint16Array` without `dtype` is uint16).
 */
export type DTypeOf<T> =
  T extends { readonly dtype: infer D extends DType } ? D
  : T extends { readonly type: infer D extends DType } ? D
  : T extends { readonly data: infer A } ?
    A extends Float32Array ? 'float32'
    : A extends Float64Array ? 'float64'
    : A extends Int8Array ? 'int8'
    : A extends Uint8Array | Uint8ClampedArray ? 'uint8'
    : A extends Int16Array ? 'int16'
    : A extends Uint16Array ? 'uint16'
    : A extends Int32Array ? 'int32'
    : A extends Uint32Array ? 'uint32'
    : DType
  : DType;

/**
 * The array of a new result computed from argument `T` (a tensor, an image or a heap tensor):
 * {@link ArrayOf} its dtype, except that uint8 keeps the input's class, so a `Uint8ClampedArray`
 * (canvas `ImageData` pixels) gives a `Uint8ClampedArray`.
 */
export type ResultDataOf<T> =
  T extends { readonly data: infer A } ?
    A extends Uint8ClampedArray ? ReturnType<Uint8ClampedArray['slice']> : ArrayOf<DTypeOf<T>>
  : ArrayOf<DTypeOf<T>>;

/** Interpolation mode, in both ONNX spellings (opset 16 and opset 20+). */
export type Mode = 'linear' | 'bilinear' | 'nearest' | 'cubic' | 'bicubic';

/** How taps outside the input are handled (ONNX `padding_mode`). */
export type PaddingMode = 'zeros' | 'border' | 'reflection';

/** ONNX `align_corners`: a boolean, or the attribute's 0 / 1. */
export type AlignCorners = boolean | 0 | 1;

/** Where a result is written instead of a new array. */
export type Out = TensorData | TensorLike | HeapTensor;

/**
 * What `gridSample`, `gridSampleChannelsLast` and `affineGrid` return for argument `T` (x or
 * theta) and an `options.out` of type `O`: without `out`, a new {@link Tensor}; with a typed
 * array, a new tensor over that array; with a tensor object or a heap tensor, that very object.
 */
/**
 * `T` where it is written, but never inferred from there: the result types below take `out`'s
 * type from `options` only, not from what the caller assigns the result to (TypeScript would
 * otherwise read `const y: Image<X> = warpAffine(...)` as `out: Image<X>` and accept anything).
 * The same as TypeScript 5.4's `NoInfer`, which older versions lack.
 */
export type NotInferred<T> = [T][T extends unknown ? 0 : never];

export type TensorResult<T, O extends Out | undefined = undefined> =
  O extends TensorData ? Tensor<DTypeOf<T>, O>
  : O extends object ? O
  : Tensor<DTypeOf<T>, ResultDataOf<T>>;

/**
 * Options of {@link GridSample.gridSample}; names and values follow the ONNX attributes. `O`
 * is the type of `out`, which decides the result's type ({@link TensorResult}).
 */
export interface GridSampleOptions<O extends Out | undefined = Out | undefined> {
  /** Interpolation: `linear`/`bilinear` (default), `nearest` (ties to even) or `cubic`/`bicubic` (Keys, A = -0.75). */
  mode?: Mode;
  /** Padding of taps outside the input: `zeros` (default), `border` or `reflection`. */
  paddingMode?: PaddingMode;
  /** The ONNX attribute spelling of `paddingMode`; give one or the other. */
  padding_mode?: PaddingMode;
  /** Whether -1 and 1 are the centres of the corner pixels (true) or their outer edges (false, default). */
  alignCorners?: AlignCorners;
  /** The ONNX attribute spelling of `alignCorners`; give one or the other. */
  align_corners?: AlignCorners;
  /**
   * Write the result here: a typed array of X's type with the output's element count, a
   * tensor object of the output's shape and dtype (returned as is), or a {@link HeapTensor}
   * (no copy at all). It may alias an input array, but not an input heap tensor.
   */
  out?: O;
}

/** Options of {@link GridSample.affineGrid}; `O` is the type of `out` (see {@link GridSampleOptions}). */
export interface AffineGridOptions<O extends Out | undefined = Out | undefined> {
  /** Whether -1 and 1 are the centres of the corner pixels (true) or their outer edges (false, default). */
  alignCorners?: AlignCorners;
  /** The ONNX attribute spelling of `alignCorners`; give one or the other. */
  align_corners?: AlignCorners;
  /** Write the grid here (as for {@link GridSampleOptions.out}). */
  out?: O;
}

/** AffineGrid's `size`: `[N, C, H, W]` or `[N, C, D, H, W]`, as numbers, bigints, or a 1-D int64 tensor. */
export type Size = Dims | { readonly data: Dims; readonly shape?: Dims; readonly dims?: Dims };

/** Pixel data of an interleaved image: 8-bit values (canvas `ImageData.data`) or float32. */
export type ImageData8 = Uint8ClampedArray | Uint8Array;
/** Pixel data of an interleaved image. */
export type ImageDataArray = ImageData8 | Float32Array;

/**
 * An interleaved (channels-last) image such as a canvas `ImageData`: `height` rows of
 * `width` pixels, each `channels` consecutive values (R, G, B, A for ImageData).
 */
export interface ImageLike<A extends ImageDataArray = ImageDataArray> {
  /** The pixels, row-major; `length` must be `width * height * channels`. */
  readonly data: A;
  /** Pixels per row. */
  readonly width: number;
  /** Rows. */
  readonly height: number;
  /**
   * Values per pixel, 1 to 4. Default: `data.length / (width * height)` (4 for ImageData;
   * 4 for an image without pixels).
   */
  readonly channels?: number;
}

/**
 * What {@link GridSample.warpAffine} returns: a plain object (wrap it in `new ImageData(...)`),
 * unless `options.out` is an image object (see {@link ImageResult}).
 */
export interface Image<A extends ImageDataArray = ImageDataArray> {
  /** The pixels: a new array of the input's class ({@link ResultDataOf}), or the array given as `options.out`. */
  readonly data: A;
  /** Pixels per row. */
  readonly width: number;
  /** Rows. */
  readonly height: number;
  /** Values per pixel (the input's). */
  readonly channels: number;
}

/**
 * An affine map of normalised coordinates, as AffineGrid's theta for one image: the 2x3
 * matrix `[a, b, c, d, e, f]` row-major, sampling the input at
 * `(a x + b y + c, d x + e y + f)` for the output pixel at normalised `(x, y)`.
 * A `Float32Array` computes as a float32 theta; an `Array` or a `Float64Array` as float64.
 */
export type Theta = readonly number[] | Float32Array | Float64Array;

/**
 * A 3x3 homography for one image, nine numbers row-major `[h0, ..., h8]`: in normalised space
 * the output point `(x, y)` samples the input at `((h0 x + h1 y + h2) / w, (h3 x + h4 y + h5) / w)`,
 * `w = h6 x + h7 y + h8`; in pixel space (OpenCV's `warpPerspective`) it maps source pixels to
 * destination pixels unless `inverse: true`. A `Float32Array` computes as float32; an `Array`
 * or a `Float64Array` as float64.
 */
export type Homography = readonly number[] | Float32Array | Float64Array;

/** A point `[x, y]` in pixels (pixel centres at integer coordinates). */
export type Point = readonly [number, number];

/** Four points, e.g. the corners of a document: top-left, top-right, bottom-right, bottom-left. */
export type Quad = readonly [Point, Point, Point, Point];

/**
 * The space a warp's matrix is written in: `normalized` (the default: AffineGrid's -1..1 per
 * axis, output to input) or `pixel` (OpenCV's: pixel centres at integer coordinates, origin at
 * the top-left pixel, source to destination unless `inverse: true`). Never guessed from the
 * values.
 */
export type Space = 'normalized' | 'pixel';

/**
 * A map of remap: float32 pixel coordinates, `width * height` values (a plane) or twice that
 * (interleaved `(x, y)`), or a float32 {@link HeapTensor} `[height, width, 1 | 2]`.
 */
export type PixelMap =
  | { readonly data: Float32Array; readonly width: number; readonly height: number; readonly channels?: 1 | 2 }
  | HeapTensor<'float32'>;

/** Options of {@link GridSample.remap}. */
export interface RemapOptions<O extends ImageOut | undefined = ImageOut | undefined> {
  /** Interpolation: `linear`/`bilinear` (default), `nearest` or `cubic`/`bicubic`. */
  mode?: Mode;
  /** Samples outside the image: `zeros` (default: transparent black), `border` or `reflection`. */
  paddingMode?: PaddingMode;
  /** The ONNX attribute spelling of `paddingMode`; give one or the other. */
  padding_mode?: PaddingMode;
  /**
   * With `paddingMode: 'zeros'` only: the colour read outside the image, per tap (OpenCV's
   * `BORDER_CONSTANT` border value; default 0): one number for every channel, or one per
   * channel (e.g. `[255, 255, 255, 255]` for opaque white RGBA). Finite; uint8 images
   * saturate the result to 0..255 as usual.
   */
  fill?: number | ArrayLike<number>;
  /** Write the result here (as for warpAffine); its size must be the maps'. */
  out?: O;
}

/** Where warpAffine writes its result instead of a new array. */
export type ImageOut = ImageDataArray | ImageLike | HeapTensor<'uint8' | 'float32'>;

/**
 * What `warpAffine` returns for an image of type `I` and an `options.out` of type `O`: without
 * `out`, a new {@link Image}; with a typed array, a new image over that array; with an image
 * object (e.g. an `ImageData`), that very object; with a heap tensor, a new image over its
 * heap view.
 */
export type ImageResult<I, O extends ImageOut | undefined = undefined> =
  O extends HeapTensor<'uint8' | 'float32'> ? Image<O['data']>
  : O extends ImageDataArray ? Image<O>
  : O extends object ? O
  // Extract: for an image, ResultDataOf is one of these; TypeScript cannot tell for a generic I.
  : Image<Extract<ResultDataOf<I>, ImageDataArray>>;

/** Options of {@link GridSample.warpAffine}; `O` is the type of `out`, which decides the result's type ({@link ImageResult}). */
export interface WarpAffineOptions<O extends ImageOut | undefined = ImageOut | undefined> {
  /** Interpolation: `linear`/`bilinear` (default), `nearest` or `cubic`/`bicubic`. */
  mode?: Mode;
  /** Samples outside the image: `zeros` (default: transparent black), `border` or `reflection`. */
  paddingMode?: PaddingMode;
  /** The ONNX attribute spelling of `paddingMode`; give one or the other. */
  padding_mode?: PaddingMode;
  /**
   * align_corners of both AffineGrid and GridSample (default false). Normalised space only:
   * with `space: 'pixel'` it is an error (pixel centres sit at integer coordinates).
   */
  alignCorners?: AlignCorners;
  /** The ONNX attribute spelling of `alignCorners`; give one or the other. */
  align_corners?: AlignCorners;
  /** The matrix's space (see {@link Space}); default `normalized`. */
  space?: Space;
  /**
   * Pixel space only: the matrix already maps output pixels to input pixels (OpenCV's
   * `WARP_INVERSE_MAP`); by default it maps source to destination and is inverted (an error
   * when it is singular or has a non-finite entry).
   */
  inverse?: boolean;
  /**
   * With `paddingMode: 'zeros'` only: the colour read outside the image, per tap (OpenCV's
   * `BORDER_CONSTANT` border value; default 0): one number for every channel, or one per
   * channel (e.g. `[255, 255, 255, 255]` for opaque white RGBA). Finite; uint8 images
   * saturate the result to 0..255 as usual.
   */
  fill?: number | ArrayLike<number>;
  /** Output width in pixels (default: `out`'s, else the input's). */
  width?: number;
  /** Output height in pixels (default: `out`'s, else the input's). */
  height?: number;
  /**
   * Only the rows `[begin, end)` of the output (`height`, or the input's height, rows high):
   * the result is `end - begin` rows high and each row is the same bytes as that row of the
   * whole output. For splitting one warp among workers ({@link createPool} does);
   * `0 <= begin <= end <= height`, integers.
   */
  rows?: readonly [number, number];
  /**
   * Write the result here: a typed array of the image's kind with `width * height * channels`
   * elements, an image object (e.g. an `ImageData`; its width and height are the output
   * size, and it is returned as is), or a {@link HeapTensor} of shape
   * `[height, width, channels]` (no copy at all; `data` of the result is its heap view).
   */
  out?: O;
}

/**
 * A tensor whose elements live in the wasm heap of one loaded module: passing it as an
 * input or as `out` copies nothing. Free it with {@link HeapTensor.dispose} (or `using`
 * where explicit resource management is available); one that is garbage-collected without
 * that is freed eventually, but not promptly.
 */
export declare class HeapTensor<D extends DType = DType> {
  /** Not constructible: use {@link GridSample.tensor} or {@link GridSample.tensorFrom}. */
  private constructor();
  /** Element type. */
  readonly dtype: D;
  /** Dimensions (frozen). */
  readonly shape: readonly number[];
  /** Same as `shape`, as onnxruntime-web names it. */
  readonly dims: readonly number[];
  /** Number of elements. */
  readonly size: number;
  /** Bytes of element storage. */
  readonly byteLength: number;
  /** True once {@link HeapTensor.dispose} has run. */
  readonly disposed: boolean;
  /**
   * A typed-array view of the elements in the wasm heap (a `Uint8Array` for uint8). The view
   * is replaced when the heap grows (any call may grow it): read `data` again after calls
   * instead of keeping it. Throws a `TypeError` after `dispose()`.
   */
  readonly data: ArrayOf<D>;
  /** Frees the heap memory. Idempotent; using the tensor afterwards throws a `TypeError`. */
  dispose(): void;
  /** Same as {@link HeapTensor.dispose}, for `using` declarations. */
  [Symbol.dispose](): void;
}

/** The loaded module that {@link load} resolves to. */
export interface GridSample {
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

/** Options of {@link createPool}. */
export interface PoolOptions {
  /**
   * Workers, each with its own single-threaded instance (1 to 64; default one per logical
   * core, at most 8). The calling thread only splits, sends and assembles.
   */
  workers?: number;
  /** As {@link LoadOptions.variant}, without `'simd-threads'` (each worker runs one thread). */
  variant?: 'simd' | 'scalar' | 'auto';
  /** As {@link LoadOptions.wasmUrl}, a fixed URL only (a function cannot be sent to a worker). */
  wasmUrl?: string | HostClass<'URL'>;
  /** As {@link LoadOptions.wasmBinary} (copied to each worker). */
  wasmBinary?: ArrayBuffer | ArrayBufferView;
  /** As {@link LoadOptions.wasmModule} (compiled once, shared by the workers). */
  wasmModule?: WasmModule;
  /** As {@link LoadOptions.warmUp}, in each worker. */
  warmUp?: boolean | number;
}

/** What a pool call takes besides its operator's options. */
export interface PoolCallOptions {
  /**
   * Rejects the call with `signal.reason` when aborted: bands already running finish unseen, the
   * rest are never sent (a worker holds one band or call at a time).
   */
  signal?: HostClass<'AbortSignal'>;
  /**
   * Called with the fraction done (0 to 1) as the call's bands come back, the last time with
   * 1; a call too small to split calls it once, with 1.
   */
  onProgress?: (fraction: number) => void;
}

/**
 * Single-threaded instances in workers (module Web Workers in browsers, worker_threads in
 * Node): the way to use several cores where wasm threads are not given (pages that are not
 * cross-origin isolated). A large call's output is split into row bands that the workers take
 * in turn; each worker gets a copy of the inputs it needs once per call; the bands are
 * assembled in order, and the result is the same bytes as one instance's call. A call is split
 * only from 32M output values x taps and 4 taps per byte copied (a 1024x1024 RGBA bicubic warp:
 * 67M and 8; bilinear warps, about as fast as the copies, are not split): smaller ones run whole
 * on one worker, where splitting costs more than it saves. Inputs are arrays in JS memory (not heap
 * tensors); `options.out` is not taken. Errors are those of one instance's call (same class
 * and message), checked in the caller's thread before anything is sent; a worker that stops
 * rejects its calls and is replaced.
 */
export interface Pool {
  /** The number of workers. */
  readonly workers: number;
  /** {@link GridSample.warpAffine} on the pool (`options.rows` is the pool's own). */
  warpAffine<I extends ImageLike>(image: I, theta: Theta, options?: Omit<WarpAffineOptions<undefined>, 'out' | 'rows'> & PoolCallOptions):
    Promise<ImageResult<I>>;
  /** {@link GridSample.warpPerspective} on the pool. */
  warpPerspective<I extends ImageLike>(image: I, h: Homography, options?: Omit<WarpAffineOptions<undefined>, 'out' | 'rows'> & PoolCallOptions):
    Promise<ImageResult<I>>;
  /** {@link GridSample.remap} on the pool (maps as `{data, width, height}`). */
  remap<I extends ImageLike>(image: I, mapX: PixelMap, mapY?: PixelMap | null, options?: Omit<RemapOptions<undefined>, 'out'> & PoolCallOptions):
    Promise<ImageResult<I>>;
  /** {@link GridSample.gridSample} on the pool: 4-D and 5-D, split along the grid's first spatial axis. */
  gridSample<X extends TensorLike>(x: X, grid: TensorLike, options?: Omit<GridSampleOptions<undefined>, 'out'> & PoolCallOptions):
    Promise<TensorResult<X>>;
  /**
   * Ends every worker (calls in flight and later ones reject with "the pool was terminated").
   * Resolves when they have stopped. An idle pool does not keep Node's process alive.
   */
  terminate(): Promise<void>;
}

/**
 * Starts a pool of workers (see {@link Pool}) and resolves once each has loaded its instance
 * (and this thread one that checks the calls' arguments).
 * @throws TypeError / RangeError for bad options; a worker's load() error (every worker is
 *   then ended).
 *
 * @example
 * const pool = await createPool({ workers: 4 });
 * const m = gs.rotationMatrix([cx, cy], 30);  // the matrix helpers are any instance's
 * const y = await pool.warpAffine(photo, m, { space: 'pixel', mode: 'bicubic', signal, onProgress: (f) => bar.value = f });
 */
export declare function createPool(options?: PoolOptions): Promise<Pool>;

/** Every dtype name, in the library's order. */
export declare const DTYPE_NAMES: readonly DType[];

declare global {
  interface SymbolConstructor {
    /**
     * `Symbol.dispose` of explicit resource management, declared here too so that these
     * types compile with a `lib` older than `esnext.disposable` (the same declaration merges).
     */
    readonly dispose: unique symbol;
  }
}
