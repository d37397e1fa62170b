// load() for browsers and Web Workers: fetches the .wasm next to this file (bundlers follow the URLs); browser.mjs exports it, and the pool's worker imports it alone.
import { loadWith } from './load_wasm.mjs';
import { cores, wasmSource } from './resource_browser.mjs';
import createSimd from '../dist/gridsample-simd.mjs';
import createScalar from '../dist/gridsample-scalar.mjs';

// Literal `new URL(..., import.meta.url)` so that Vite, webpack and Rollup emit the .wasm
// files as assets. Both glues are imported statically (about 9 KB gzipped each): a dynamic
// import() would save one, but breaks bundlers' classic (non-module) worker builds.
const VARIANTS = {
  simd: { factory: createSimd, url: () => new URL('../dist/gridsample-simd.wasm', import.meta.url) },
  scalar: { factory: createScalar, url: () => new URL('../dist/gridsample-scalar.wasm', import.meta.url) },
  // Imported (dynamically) only where threads are chosen: a cross-origin isolated page or
  // worker. Its glue starts its pthread workers from `new URL('gridsample-simd-threads.worker.js',
  // import.meta.url)`, a pattern bundlers follow: packaging_browser.test.mjs runs it from Vite (build and
  // dev server) and webpack 5 bundles on isolated pages and in module workers, demo_warps.test.mjs
  // unbundled.
  'simd-threads': {
    factory: () => import('../dist/gridsample-simd-threads.mjs').then((m) => m.default),
    url: () => new URL('../dist/gridsample-simd-threads.wasm', import.meta.url),
  },
};

export { cores };

/**
 * Loads gridsample and resolves to the API object (see api.d.cts).
 * @param {import('../index.js').LoadOptions} [options]
 */
export function load(options) {
  return loadWith(options, {
    glue: (v) => (v === 'simd-threads' ? VARIANTS[v].factory() : VARIANTS[v].factory),
    wasmUrl: (v) => VARIANTS[v].url(),
    cores,
    sourceOf: wasmSource,
  });
}
