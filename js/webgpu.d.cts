// TypeScript declarations of gridsample/webgpu's CommonJS entry (webgpu.cjs): all of webgpu_api.d.cts.
export * from './webgpu_api.cjs';
