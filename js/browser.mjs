// Browser and Web Worker entry point of gridsample: fetches the .wasm next to this file (bundlers follow the URLs).
import { createApi, instantiate, readLoadOptions, resolveWasmUrl } from './core.mjs';
import createSimd from './dist/gridsample-simd.mjs';
import createScalar from './dist/gridsample-scalar.mjs';

export { DTYPE_NAMES, HeapTensor, simdSupported } from './core.mjs';

// Literal `new URL(..., import.meta.url)` so that Vite, webpack and Rollup emit the .wasm
// files as assets. Both glues are imported statically (about 9 KB gzipped each): a dynamic
// import() would save one, but breaks bundlers' classic (non-module) worker builds.
const VARIANTS = {
  simd: { factory: createSimd, url: () => new URL('./dist/gridsample-simd.wasm', import.meta.url) },
  scalar: { factory: createScalar, url: () => new URL('./dist/gridsample-scalar.wasm', import.meta.url) },
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
    const url = resolveWasmUrl(wasmUrl, variant) ?? VARIANTS[variant].url();
    source = { url: String(url), fetch: (u) => fetch(u, { credentials: 'same-origin' }) };
    what = String(url);
  }
  const Module = await instantiate(VARIANTS[variant].factory, source, what);
  return createApi(Module, variant, { explicit, what });
}
