// gridsample/onnx's WebGPU hand-over with onnxruntime-web's WebGPU bundle (ort.webgpu.mjs) in Node on SwiftShader: results of every element count modulo 4 read by onnxruntime's WebGPU nodes and onnxruntime's read by ours, every element against the wasm split and onnxruntime alone; readbacks against onnxruntime alone (lib/onnx_webgpu_sizes.mjs).
import { webgpuSizesSuite } from './lib/onnx_webgpu_sizes.mjs';

await webgpuSizesSuite('ort.webgpu.mjs');
