// CommonJS entry point of gridsample for Node: load() is asynchronous anyway, so it imports the ES module.
'use strict';

/**
 * Loads gridsample and resolves to the API object (see api.d.cts).
 * @param {import('./index.cjs').LoadOptions} [options]
 */
function load(options) {
  return import('./node.mjs').then((m) => m.load(options));
}

/**
 * Starts single-threaded gridsample instances in worker_threads and resolves to the pool (see
 * api.d.cts).
 * @param {import('./index.cjs').PoolOptions} [options]
 */
function createPool(options) {
  return import('./node.mjs').then((m) => m.createPool(options));
}

// Same probe as core/load_wasm.mjs (which CommonJS cannot import synchronously).
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15,
  253, 98, 11,
]);

/** True when this JavaScript engine validates wasm SIMD128 code. */
function simdSupported() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/** True when this engine gives wasm threads (Node: SharedArrayBuffer and shared wasm memory). */
function threadsSupported() {
  if (typeof SharedArrayBuffer !== 'function' || typeof Atomics !== 'object') return false;
  try {
    return new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer instanceof SharedArrayBuffer;
  } catch {
    return false;
  }
}

const DTYPE_NAMES = Object.freeze([
  'float32', 'float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32',
]);

module.exports = { load, createPool, simdSupported, threadsSupported, DTYPE_NAMES };
