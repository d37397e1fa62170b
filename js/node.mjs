// Node.js entry point of gridsample: reads the .wasm from disk (or a given URL/bytes) and loads it.
import { createRequire } from 'node:module';

import { createApi, instantiate, readLoadOptions, resolveWasmUrl } from './core.mjs';
import { sourceFromUrl } from './read_node.mjs';

export { DTYPE_NAMES, HeapTensor, simdSupported } from './core.mjs';

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

/**
 * Loads gridsample and resolves to the API object (see api.d.cts).
 * @param {import('./index.js').LoadOptions} [options]
 */
export async function load(options) {
  const { variant, explicit, wasmUrl, wasmBinary, wasmModule } = readLoadOptions(options);
  let source;
  let what;
  if (wasmModule) {
    source = { module: wasmModule };
    what = 'options.wasmModule';
  } else if (wasmBinary) {
    source = { bytes: wasmBinary };
    what = 'options.wasmBinary';
  } else {
    const url = resolveWasmUrl(wasmUrl, variant) ?? WASM[variant];
    what = `${url}`;
    try {
      source = await sourceFromUrl(url);
    } catch (e) {
      const error = new Error(`load: could not read the gridsample wasm at ${url}: ${e.message}`);
      error.cause = e;
      throw error;
    }
  }
  const Module = await instantiate(GLUE[variant](), source, what);
  return createApi(Module, variant, { explicit, what });
}
