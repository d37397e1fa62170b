// TypeScript declarations of gridsample/transformers (transformers.mjs): importing it sets the onnxruntime hook transformers.js reads.
//
// onnxruntime-node's types are not imported (it is an optional peer): the module is typed by
// what gridsample/onnx uses of it.
import type { OrtModule, OrtShapedSessionFactory } from './onnx_api.cjs';

export type { OrtShapedSession, OrtShapedSessionFactory } from './onnx_api.cjs';

/** onnxruntime-node's module with gridsample's InferenceSession: what transformers.js now uses. */
declare const ort: OrtModule & { readonly InferenceSession: OrtShapedSessionFactory; readonly env: Record<string, unknown> };
export default ort;
export declare const InferenceSession: OrtShapedSessionFactory;
export declare const Tensor: OrtModule['Tensor'];
export declare const env: Record<string, unknown>;
