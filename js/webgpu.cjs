// CommonJS entry point of gridsample/webgpu: createGpu is asynchronous anyway, so it imports the ES module.
'use strict';

/**
 * @param {import('./webgpu.cjs').GpuOptions} [options]
 * @returns {Promise<import('./webgpu.cjs').Gpu>}
 */
function createGpu(options) {
  return import('./webgpu/index.mjs').then((m) => m.createGpu(options));
}

module.exports = { createGpu };
