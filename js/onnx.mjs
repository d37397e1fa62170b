// gridsample/onnx: an InferenceSession like onnxruntime's that runs a model's GridSample / AffineGrid nodes on gridsample and the rest on the caller's onnxruntime (DESIGN.md section 8); the session is onnx/session.mjs.
export { InferenceSession, OnnxModelError } from './onnx/session.mjs';
