// onnxruntime-web's WebGPU provider in Node for the tests (a bundle of its dist/ on the npm package webgpu's SwiftShader device), and a count of GPU readbacks.
import v8 from 'node:v8';

import { nodeWebGpu } from './node_webgpu.mjs';

/**
 * {setup (nodeWebGpu's), skip, ort}: onnxruntime-web's `bundle` (ort.webgpu.mjs, ort.all.mjs)
 * loaded by path (in Node the package resolves to its wasm-only build), on one thread; ort is
 * undefined when WebGPU is missing (skip says why).
 */
export async function ortWebGpu(bundle) {
  const setup = await nodeWebGpu();
  const skip = setup.skip ?? false;
  if (skip) return { setup, skip };
  globalThis.navigator = { gpu: setup.gpu };
  // Its 27 MB wasm takes 40 s to optimise on 2 cores, 2 s in V8's baseline compiler alone.
  v8.setFlagsFromString('--liftoff-only');
  const ort = await import(new URL(`../node_modules/onnxruntime-web/dist/${bundle}`, import.meta.url));
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  return { setup, skip, ort };
}

let readbacks = 0;
let counting = false;
let patched = false;

/**
 * [what body() resolves to, the GPU readbacks meanwhile]: every GPUBuffer.mapAsync (onnxruntime
 * and gridsample read GPU data back only through mappable buffers). Needs WebGPU's globals (ortWebGpu).
 */
export async function countReadbacks(body) {
  if (!patched) {
    const mapAsync = GPUBuffer.prototype.mapAsync;
    GPUBuffer.prototype.mapAsync = function counted(...args) {
      if (counting) readbacks += 1;
      return mapAsync.apply(this, args);
    };
    patched = true;
  }
  readbacks = 0;
  counting = true;
  try {
    return [await body(), readbacks];
  } finally {
    counting = false;
  }
}
