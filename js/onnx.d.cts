// TypeScript declarations of gridsample/onnx's CommonJS entry (onnx.cjs): onnx_api.d.cts, with OnnxModelError a type only (onnx.cjs exports InferenceSession alone).
export type { OnnxModelError } from './onnx_api.cjs';
export type {
  OrtTensor, OrtModule, TensorOf, ExternalDataFile, SessionOptions, ValueMetadata, RunOptions, RunsOn, PartTiming, ValueShape, NodeIO, Profile, RunTimes, PlacementDecision, PlanNode, PlanPart, Plan,
} from './onnx_api.cjs';
export { InferenceSession } from './onnx_api.cjs';
