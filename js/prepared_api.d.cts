// TypeScript declarations of prepared calls (gs.prepareGridSample and its kin, PreparedCall).
// A part of api.d.cts (which re-exports it; see there why a .d.cts), read as CommonJS for its extension alone.

import type { ImageLike, ImageOut, ImageResult, PixelMap, RemapOptions } from './image_api.cjs';
import type {
  AffineGridOptions, DType, Dims, GridSampleOptions, HeapTensor, NotInferred, Out, Size, TensorLike, TensorResult,
} from './tensor_api.cjs';

/** What a prepare function takes for a tensor: the tensor itself, or its dtype and shape. */
export type TensorSpec = TensorLike | HeapTensor | { readonly dtype: DType; readonly shape: Dims } | { readonly dtype: DType; readonly dims: Dims };

/** The options a call is prepared with: {@link GridSampleOptions} without `out`. */
export type PreparedSamplingOptions = Omit<GridSampleOptions, 'out'>;

/** Options of one run of a prepared call: where the result goes (as the unprepared call's `out`). */
export interface RunOptions<O extends Out | undefined = Out | undefined> {
  out?: O;
}

/**
 * A call prepared once for inputs of given dtypes and shapes and its options (the library's
 * checks of those made once), then run on new data: each run checks only that its tensors have
 * the prepared dtypes and shapes, and crosses into the wasm once. Results are the unprepared
 * call's, bit for bit. Inputs given as typed arrays are copied through heap buffers the call
 * keeps from its first run (the size of those inputs and of the output); heap tensors are read
 * and written in place. `dispose()` frees what it keeps (a call never disposed is freed when
 * collected). Runs use the threads the module had when the call was prepared.
 *
 * @example
 * const warp = gs.prepareGridSample({ dtype: 'float32', shape: [1, 3, 224, 224] }, grid);
 * for (const frame of frames) warp.run(frame, grid, { out: result });
 * warp.dispose();
 */
export interface PreparedCall<Inputs extends unknown[]> {
  /** The output's dtype: the first input's. */
  readonly dtype: DType;
  /** The output's dimensions. */
  readonly outputShape: readonly number[];
  /** True after {@link PreparedCall.dispose}. */
  readonly disposed: boolean;
  /**
   * Runs on new data of the prepared dtypes and shapes.
   * @throws TypeError for another dtype, a disposed call, or as the unprepared call.
   * @throws RangeError for another shape, or as the unprepared call.
   */
  run<X extends TensorLike | HeapTensor, O extends Out | undefined = undefined>(
    ...args: [X, ...Inputs, RunOptions<O>?]
  ): TensorResult<X, NotInferred<O>>;
  /** Frees the prepared state and kept buffers; idempotent. */
  dispose(): void;
}

/** What {@link PreparedCalls.prepareRemap} takes for the image: the image itself (its pixels are not read), or its description. */
export type ImageSpec =
  | ImageLike
  | HeapTensor<'uint8' | 'float32'>
  | { readonly width: number; readonly height: number; readonly channels: 1 | 2 | 3 | 4; readonly dtype: 'uint8' | 'float32' };

/**
 * A remap whose maps were read and planned once (OpenCV's `convertMaps`, then `remap` per
 * frame): each run checks only that the image has the prepared size, channels and dtype, and
 * crosses into the wasm once. Results are {@link GridSample.remap}'s with those maps, bit for
 * bit. Images given as arrays are copied through heap buffers it keeps from its first run; heap
 * tensors are read and written in place (zero copy). `dispose()` frees the plan (a remap never
 * disposed is freed when collected). Runs use the threads the module had when it was prepared.
 *
 * @example
 * const undistort = gs.prepareRemap({ width: 1280, height: 720, channels: 4, dtype: 'uint8' }, mapX, mapY);
 * for (const frame of frames) undistort.run(frame, { out: result });
 * undistort.dispose();
 */
export interface PreparedRemap {
  /** The output's size: the maps'. */
  readonly width: number;
  readonly height: number;
  /** The image's channels and dtype, which the output has too. */
  readonly channels: number;
  readonly dtype: 'uint8' | 'float32';
  /**
   * Bytes of wasm heap the plan holds: about 12 per output pixel for uint8 bilinear (the
   * fixed-point weights), else 4 plus 4 per tap (nearest 8, bilinear 20, bicubic 68).
   */
  readonly planBytes: number;
  /** True after {@link PreparedRemap.dispose}. */
  readonly disposed: boolean;
  /**
   * Runs on a new image of the prepared size, channels and dtype.
   * @throws TypeError for another dtype or a disposed remap; RangeError for another size, or as remap.
   */
  run<I extends ImageLike | HeapTensor<'uint8' | 'float32'>, O extends ImageOut | undefined = undefined>(
    image: I, options?: { out?: O },
  ): ImageResult<I, NotInferred<O>>;
  /** Frees the plan and kept buffers; idempotent. */
  dispose(): void;
}

/** The prepare functions of a loaded module ({@link GridSample}). */
export interface PreparedCalls {
  /**
   * {@link GridSample.gridSample} prepared for x and grid of these dtypes and shapes.
   * @throws TypeError / RangeError as gridSample does for those shapes, dtypes and options.
   */
  prepareGridSample(x: TensorSpec, grid: TensorSpec, options?: PreparedSamplingOptions): PreparedCall<[TensorLike | HeapTensor]>;
  /** {@link GridSample.gridSampleChannelsLast} prepared, as {@link PreparedCalls.prepareGridSample}. */
  prepareGridSampleChannelsLast(x: TensorSpec, grid: TensorSpec, options?: PreparedSamplingOptions): PreparedCall<[TensorLike | HeapTensor]>;
  /** The NCHW {@link GridSample.warpFlow} prepared, as {@link PreparedCalls.prepareGridSample}. */
  prepareWarpFlow(x: TensorSpec, flow: TensorSpec, options?: PreparedSamplingOptions): PreparedCall<[TensorLike | HeapTensor<'float32'>]>;
  /** {@link GridSample.affineGrid} prepared for theta of this dtype and shape and `size`. */
  prepareAffineGrid(theta: TensorSpec, size: Size, options?: Omit<AffineGridOptions, 'out'>): PreparedCall<[]>;
  /**
   * {@link GridSample.remap} with maps that stay the same from frame to frame (lens
   * undistortion, stabilisation): the maps are read now (they may change afterwards) and planned
   * once. Options as remap's but `out`, which each run takes.
   * @throws TypeError / RangeError as remap does for these arguments.
   */
  prepareRemap(image: ImageSpec, mapX: PixelMap, mapY?: PixelMap | null, options?: Omit<RemapOptions, 'out'>): PreparedRemap;
}
