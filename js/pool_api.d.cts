// TypeScript declarations of gridsample's worker pool: createPool(), its options and the Pool's calls.
// A part of api.d.cts (which re-exports it; see there why a .d.cts), read as CommonJS for its extension alone.

import type { Homography, ImageLike, ImageResult, PixelMap, RemapOptions, Theta, WarpAffineOptions } from './image_api.cjs';
import type { GridSample, HostClass, LoadOptions, WasmModule } from './load_api.cjs';
import type { GridSampleOptions, LevelTensor, TensorLike, TensorResult } from './tensor_api.cjs';

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
   * {@link GridSample.multiScaleDeformableAttention} on the pool: split into bands of queries,
   * each worker keeping the value.
   */
  multiScaleDeformableAttention<V extends TensorLike>(value: V, spatialShapes: LevelTensor, levelStartIndex: LevelTensor,
    samplingLocations: TensorLike, attentionWeights: TensorLike, options?: PoolCallOptions): Promise<TensorResult<V>>;
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
