// TypeScript declarations of gridsample/webgpu's ES module entry (webgpu/index.mjs): all of webgpu_api.d.cts.
export * from './webgpu_api.cjs';
