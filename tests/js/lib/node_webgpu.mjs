// WebGPU in Node for the tests: the npm package webgpu (Dawn) on Chromium's SwiftShader Vulkan driver (correctness only; its timings mean nothing), or null with the reason where it cannot start.
import { existsSync } from 'node:fs';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

// create()'s object must stay referenced: the process aborts when it is collected.
let navigatorGpu;

/**
 * {skip: reason} for a test that finds no WebGPU, in Node or in Chromium; where make test runs
 * (scripts/test_js.sh sets GRIDSAMPLE_REQUIRE_WEBGPU) it throws instead: a skip there is a failure.
 */
export function skip(reason) {
  if (process.env.GRIDSAMPLE_REQUIRE_WEBGPU) throw new Error(`WebGPU is required here (GRIDSAMPLE_REQUIRE_WEBGPU): ${reason}`);
  return { skip: reason };
}

/**
 * {device, adapter, gpu} on SwiftShader (gpu: what navigator.gpu is in a browser, for
 * onnxruntime-web's WebGPU provider: globalThis.navigator = { gpu }), setting globalThis's WebGPU names (GPUBuffer, ...),
 * or {skip: reason} (an error where GRIDSAMPLE_REQUIRE_WEBGPU is set). `requiredLimits` are
 * asked of the device.
 */
export async function nodeWebGpu({ requiredLimits } = {}) {
  if (!existsSync(SWIFTSHADER_ICD)) return skip(`no SwiftShader Vulkan driver at ${SWIFTSHADER_ICD} (apt install chromium)`);
  process.env.VK_ICD_FILENAMES ??= SWIFTSHADER_ICD;
  const { create, globals } = await import('webgpu');
  Object.assign(globalThis, globals);
  if (!navigatorGpu) {
    navigatorGpu = create([]);
    // Dawn's Node binding refuses a SharedArrayBuffer (onnxruntime-web's threaded wasm heap)
    // and views of one, with "Invalid argument" or "no overload matched": it gets a copy. A
    // view's copy keeps its element offsets; a whole heap (ort.all.mjs passes one, with a byte
    // offset and size) is copied over that range only, a SharedArrayBuffer's slice() being shared.
    const writeBuffer = GPUQueue.prototype.writeBuffer;
    GPUQueue.prototype.writeBuffer = function write(buffer, offset, data, ...rest) {
      if (typeof SharedArrayBuffer === 'function' && data instanceof SharedArrayBuffer) {
        const [start = 0, size = data.byteLength - start] = rest;
        return writeBuffer.call(this, buffer, offset, new Uint8Array(data, start, size).slice());
      }
      const shared = typeof SharedArrayBuffer === 'function' && data?.buffer instanceof SharedArrayBuffer;
      return writeBuffer.call(this, buffer, offset, shared ? data.slice() : data, ...rest);
    };
  }
  const adapter = await navigatorGpu.requestAdapter();
  if (!adapter) return skip('the npm package webgpu found no adapter (is libvulkan1 installed?)');
  const device = await adapter.requestDevice({ requiredLimits });
  return { device, adapter, gpu: navigatorGpu };
}
