// TypeScript declarations of gridsample/core: its loaded module (GridSampleCore: GridSample and AffineGrid alone), load() and its options, the one copy that core.d.ts (ES module entries) and core.d.cts (CommonJS entry) re-export.
// Read as CommonJS for its extension alone, as api.d.cts (see there why).

import type { GridSample, HostClass, LoadOptions as FullLoadOptions } from './load_api.cjs';

export * from './tensor_api.cjs';
export type { PreparedCall, RunOptions, TensorSpec } from './prepared_api.cjs';

/**
 * A build gridsample/core loads: `'simd'`, the core module (gridsample-core-simd.wasm), or in
 * Node on an engine without SIMD128 `'scalar'`, the full scalar build with the core's functions
 * alone. Browsers have the core module alone.
 */
export type CoreVariant = 'simd' | 'scalar';

/**
 * The loaded module that gridsample/core's {@link load} resolves to: {@link GridSample}'s
 * GridSample, AffineGrid (unprepared and prepared) and heap tensors. The image warps, WarpFlow, channels-last GridSample
 * and deformable attention are not there (not even as undefined properties): load them from
 * 'gridsample'.
 */
export interface GridSampleCore extends Pick<GridSample,
  'target' | 'dtypes' | 'gridSample' | 'affineGrid' | 'prepareGridSample' | 'prepareAffineGrid' | 'tensor' | 'tensorFrom' | 'heapUsed' | 'heapSize'> {
  /** Which build runs: `'wasm-simd128'` (the core module) or `'wasm-scalar'`. */
  readonly backend: 'wasm-simd128' | 'wasm-scalar';
  /** The variant that was loaded. */
  readonly variant: CoreVariant;
  /** gridsample/core runs on one thread. */
  readonly threads: 1;
}

/** Options of gridsample/core's {@link load}: gridsample's, of the core's variants and one thread. */
export interface LoadOptions extends Omit<FullLoadOptions, 'variant' | 'numThreads' | 'wasmUrl'> {
  /**
   * `'simd'` (the core module), `'scalar'` (Node only: the full scalar build) or `'auto'`
   * (default: SIMD where {@link simdSupported}).
   */
  variant?: CoreVariant | 'auto';
  /** 1 (the default): gridsample/core has no threaded build. */
  numThreads?: 1;
  /**
   * Where to fetch the `.wasm` from: a URL, or a function of the chosen variant returning one
   * (`'simd'`: gridsample-core-simd.wasm, the subpath export `gridsample/gridsample-core-simd.wasm`).
   */
  wasmUrl?: string | HostClass<'URL'> | ((variant: CoreVariant) => string | HostClass<'URL'>);
}

/**
 * Loads and instantiates gridsample's core module (GridSample and AffineGrid: under half the
 * full build's bytes, bench/RESULTS.md). Each call makes a new, independent module.
 * @throws TypeError / RangeError for bad options, and in a browser without wasm SIMD128
 *   (rejected promise); Error when the wasm cannot be fetched or instantiated.
 */
export declare function load(options?: LoadOptions): Promise<GridSampleCore>;

/** True when this JavaScript engine validates wasm SIMD128 code (what `variant: 'auto'` uses). */
export declare function simdSupported(): boolean;
