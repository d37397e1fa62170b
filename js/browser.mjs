// Browser and Web Worker entry point of gridsample: load() (core/load_browser.mjs) and createPool() over module Web Workers.
import { cores, load } from './core/load_browser.mjs';
import { createPoolWith } from './pool/create_pool.mjs';

export { DTYPE_NAMES } from './core/dtypes.mjs';
export { HeapTensor } from './core/heap_tensor.mjs';
export { simdSupported, threadsSupported } from './core/load_wasm.mjs';
export { load };

/**
 * Starts single-threaded gridsample instances in module Web Workers and resolves to the pool
 * (see api.d.cts).
 * @param {import('./index.js').PoolOptions} [options]
 */
export function createPool(options) {
  return createPoolWith(options, {
    cores,
    load,
    spawn() {
      // Literal, so that bundlers emit the worker script (and what it imports).
      const worker = new Worker(new URL('./pool/pool_worker.mjs', import.meta.url), { type: 'module', name: 'gridsample-pool' });
      return {
        post: (message, transfer) => worker.postMessage(message, transfer),
        listen(onMessage, onFailure) {
          worker.addEventListener('message', (e) => onMessage(e.data));
          worker.addEventListener('error', (e) => {
            e.preventDefault();
            onFailure(new Error(e.message || 'its script failed to load or threw'));
          });
          worker.addEventListener('messageerror', () => onFailure(new Error('a message from it could not be read')));
        },
        ref() {},
        unref() {},
        terminate() {
          worker.terminate();
          return Promise.resolve();
        },
      };
    },
  });
}
