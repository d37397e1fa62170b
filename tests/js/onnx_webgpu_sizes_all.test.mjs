// gridsample/onnx's WebGPU hand-over with onnxruntime-web's other WebGPU bundle (ort.all.mjs: every provider) in Node on SwiftShader: the suite of lib/onnx_webgpu_sizes.mjs, in a process of its own.
import { webgpuSizesSuite } from './lib/onnx_webgpu_sizes.mjs';

await webgpuSizesSuite('ort.all.mjs');
