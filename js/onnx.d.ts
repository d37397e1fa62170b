// TypeScript declarations of gridsample/onnx's ES module entry (onnx.mjs): all of onnx_api.d.cts.
export * from './onnx_api.cjs';
