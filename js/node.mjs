// Node.js entry point of gridsample: reads the .wasm from disk (or a given URL/bytes) and loads it.
import { createRequire } from 'node:module';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

import { loadWith } from './core/load_wasm.mjs';
import { createPoolWith } from './pool/create_pool.mjs';
import { newResultBuffer, wasmSource } from './core/resource_node.mjs';

export { DTYPE_NAMES } from './core/dtypes.mjs';
export { HeapTensor } from './core/heap_tensor.mjs';
export { simdSupported, threadsSupported } from './core/load_wasm.mjs';

const require = createRequire(import.meta.url);

// Emscripten's Node glue (CommonJS) for each variant; it never fetches the .wasm itself.
const GLUE = {
  simd: () => require('./dist/gridsample-simd.cjs'),
  scalar: () => require('./dist/gridsample-scalar.cjs'),
  'simd-threads': () => require('./dist/gridsample-simd-threads.cjs'),
};
const WASM = {
  simd: new URL('./dist/gridsample-simd.wasm', import.meta.url),
  scalar: new URL('./dist/gridsample-scalar.wasm', import.meta.url),
  'simd-threads': new URL('./dist/gridsample-simd-threads.wasm', import.meta.url),
};
// The threaded glue's pthread worker: CommonJS, so .cjs in this "type": "module" package.
const WORKER = fileURLToPath(new URL('./dist/gridsample-simd-threads.worker.cjs', import.meta.url));

const cores = () => (typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
const POOL_WORKER = fileURLToPath(new URL('./pool/pool_worker_node.mjs', import.meta.url));

/**
 * Loads gridsample and resolves to the API object (see api.d.cts).
 * @param {import('./index.js').LoadOptions} [options]
 */
export function load(options) {
  return loadWith(options, {
    glue: (v) => GLUE[v](),
    wasmUrl: (v) => WASM[v],
    sourceOf: wasmSource,
    cores,
    threadArgs: () => ({ locateFile: (path, dir) => (path.endsWith('.worker.js') ? WORKER : dir + path) }),
    newBuffer: newResultBuffer,
  });
}

// A pool worker with the process's flags (inherited), except that --input-type (for -e / stdin
// code) stops a file from loading: then the flags without it, or none when some of them are
// not a worker's (V8 and process flags such as --expose-gc are refused in an explicit list).
function startWorker() {
  if (!process.execArgv.some((a) => a.startsWith('--input-type'))) return new Worker(POOL_WORKER, { name: 'gridsample-pool' });
  try {
    return new Worker(POOL_WORKER, { name: 'gridsample-pool', execArgv: process.execArgv.filter((a) => !a.startsWith('--input-type')) });
  } catch (e) {
    if (e.code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw e;
    return new Worker(POOL_WORKER, { name: 'gridsample-pool', execArgv: [] });
  }
}

/**
 * Starts single-threaded gridsample instances in worker_threads and resolves to the pool
 * (see api.d.cts).
 * @param {import('./index.js').PoolOptions} [options]
 */
export function createPool(options) {
  return createPoolWith(options, {
    cores,
    load,
    spawn() {
      const worker = startWorker();
      return {
        post: (message, transfer) => worker.postMessage(message, transfer),
        listen(onMessage, onFailure) {
          worker.on('message', onMessage);
          worker.on('error', onFailure);
          worker.on('exit', (code) => onFailure(new Error(`it exited (code ${code})`)));
        },
        ref: () => worker.ref(),
        unref: () => worker.unref(),
        terminate: () => worker.terminate(),
      };
    },
  });
}
