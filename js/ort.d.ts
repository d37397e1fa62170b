// TypeScript declarations of gridsample/ort (ort.mjs): onnxruntime-web's module, its InferenceSession gridsample's split session.
import type * as ort from 'onnxruntime-web';

import type { OrtShapedSessionFactory } from './onnx_api.cjs';

export * from 'onnxruntime-web';
export type { OrtShapedSession, OrtShapedSessionFactory } from './onnx_api.cjs';

/** gridsample's split session, created as onnxruntime-web's; sessions also have `handler.dispose()`. */
export declare const InferenceSession: OrtShapedSessionFactory<typeof ort>;

declare const shaped: Omit<typeof ort, 'InferenceSession'> & { readonly InferenceSession: OrtShapedSessionFactory<typeof ort> };
export default shaped;
