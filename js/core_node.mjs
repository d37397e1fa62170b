// Node.js entry point of gridsample/core: load() of GridSample and AffineGrid alone, from the core wasm module (the full scalar build where the engine has no SIMD128).
import { createRequire } from 'node:module';

import { loadWith } from './core/load_wasm.mjs';
import { newResultBuffer, wasmSource } from './core/resource_node.mjs';

export { DTYPE_NAMES } from './core/dtypes.mjs';
export { HeapTensor } from './core/heap_tensor.mjs';
export { simdSupported } from './core/load_wasm.mjs';

const require = createRequire(import.meta.url);

// The core module's Emscripten glue (CommonJS), and the scalar fallback's.
const GLUE = {
  simd: () => require('./dist/gridsample-core-simd.cjs'),
  scalar: () => require('./dist/gridsample-scalar.cjs'),
};
const WASM = {
  simd: new URL('./dist/gridsample-core-simd.wasm', import.meta.url),
  scalar: new URL('./dist/gridsample-scalar.wasm', import.meta.url),
};

/**
 * Loads gridsample's core (GridSample and AffineGrid) and resolves to its API object (see
 * core_api.d.cts).
 * @param {import('./core.js').LoadOptions} [options]
 */
export function load(options) {
  return loadWith(options, {
    glue: (v) => GLUE[v](),
    wasmUrl: (v) => WASM[v],
    sourceOf: wasmSource,
    cores: () => 1,
    newBuffer: newResultBuffer,
    core: true,
    variants: ['simd', 'scalar'],
  });
}
