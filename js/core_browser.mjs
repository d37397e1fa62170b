// Browser and Web Worker entry point of gridsample/core: load() of GridSample and AffineGrid alone, from the core wasm module, the only wasm a bundle of it holds.
import { loadWith } from './core/load_wasm.mjs';
import { cores, wasmSource } from './core/resource_browser.mjs';
import createCoreSimd from './dist/gridsample-core-simd.mjs';

export { DTYPE_NAMES } from './core/dtypes.mjs';
export { HeapTensor } from './core/heap_tensor.mjs';
export { simdSupported } from './core/load_wasm.mjs';

/**
 * Loads gridsample's core (GridSample and AffineGrid) and resolves to its API object (see
 * core_api.d.cts). It needs wasm SIMD128 (every current browser): a scalar fallback would make
 * bundlers ship the full scalar build beside it, so engines without SIMD import 'gridsample'.
 * @param {import('./core.js').LoadOptions} [options]
 */
export function load(options) {
  return loadWith(options, {
    glue: () => createCoreSimd,
    // Literal, so that Vite, webpack and Rollup emit the .wasm as an asset.
    wasmUrl: () => new URL('./dist/gridsample-core-simd.wasm', import.meta.url),
    cores,
    sourceOf: wasmSource,
    core: true,
    variants: ['simd'],
  });
}
