// TypeScript declarations of gridsample's tensors and their options: dtypes, tensor shapes, GridSample / AffineGrid / multi-scale deformable attention options and results, the HeapTensor class.
// A part of api.d.cts (which re-exports it; see there why a .d.cts), read as CommonJS for its extension alone.

import type { GridSample } from './load_api.cjs';

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

/**
 * Options of {@link GridSample.multiScaleDeformableAttention}; `O` is the type of `out` (see
 * {@link GridSampleOptions}). Its threads are the module's (`load({ numThreads })`).
 */
export interface DeformableAttentionOptions<O extends Out | undefined = Out | undefined> {
  /** Write the result `[N, Lq, M * D]` here (as for {@link GridSampleOptions.out}), of the value's dtype. */
  out?: O;
}

/**
 * Multi-scale deformable attention's levels, int64 in ONNX and PyTorch: `spatialShapes`
 * `[L, 2]` (H, W of each level) or `levelStartIndex` `[L]` (the first row of each level in the
 * value's S axis). An onnxruntime int64 tensor (`BigInt64Array` data) or int32 one passes as it
 * is; so do a bare `BigInt64Array` / `Int32Array` (flat), an Array of `[H, W]` pairs and a flat
 * Array of integers (numbers or bigints).
 */
export type LevelTensor =
  | BigInt64Array
  | Int32Array
  | readonly (number | bigint)[]
  | readonly (readonly (number | bigint)[])[]
  | {
      /** The values, row-major. */
      readonly data: BigInt64Array | Int32Array;
      /** `[L, 2]` for spatialShapes, `[L]` for levelStartIndex. */
      readonly shape?: Dims;
      /** Same as `shape` (the onnxruntime-web name). */
      readonly dims?: Dims;
      /** `'int64'` for `BigInt64Array` data, `'int32'` for `Int32Array`. */
      readonly dtype?: 'int64' | 'int32';
      /** As onnxruntime-web spells it; used when `dtype` is absent. */
      readonly type?: string;
      /** onnxruntime-web tensor location; only CPU tensors can be read. */
      readonly location?: string;
    };

/** AffineGrid's `size`: `[N, C, H, W]` or `[N, C, D, H, W]`, as numbers, bigints, or a 1-D int64 tensor. */
export type Size = Dims | { readonly data: Dims; readonly shape?: Dims; readonly dims?: Dims };

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
