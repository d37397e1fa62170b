// Node.js entry point of gridsample: reads the .wasm from disk (or a given URL/bytes) and loads it.
import { createRequire } from 'node:module';

import { loadWith } from './load_wasm.mjs';
import { sourceFromUrl } from './read_node.mjs';

export { DTYPE_NAMES } from './dtypes.mjs';
export { HeapTensor } from './heap_tensor.mjs';
export { simdSupported } from './load_wasm.mjs';

const require = createRequire(import.meta.url);

// Emscripten's Node glue (CommonJS) for each variant; it never fetches the .wasm itself.
const GLUE = {
  simd: () => require('./dist/gridsample-simd.cjs'),
  scalar: () => require('./dist/gridsample-scalar.cjs'),
};
const WASM = {
  simd: new URL('./dist/gridsample-simd.wasm', import.meta.url),
  scalar: new URL('./dist/gridsample-scalar.wasm', import.meta.url),
};

async function readSource(url) {
  try {
    return await sourceFromUrl(url);
  } catch (e) {
    const error = new Error(`load: could not read the gridsample wasm at ${url}: ${e.message}`);
    error.cause = e;
    throw error;
  }
}

/**
 * Loads gridsample and resolves to the API object (see api.d.cts).
 * @param {import('./index.js').LoadOptions} [options]
 */
export function load(options) {
  return loadWith(options, { glue: (v) => GLUE[v](), wasmUrl: (v) => WASM[v], sourceOf: readSource });
}
