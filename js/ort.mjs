// gridsample/ort: onnxruntime-web's module with gridsample's InferenceSession, for code written for onnxruntime-web (transformers.js) to reach through a bundler alias.
//
// It imports onnxruntime-web through the 'all' subpath, which neither transformers.js 3.x
// ('onnxruntime-web') nor 4.x ('onnxruntime-web/webgpu') imports: an alias of theirs that points
// at this module cannot point it at itself.
import * as ort from 'onnxruntime-web/all';

import { ortModule } from './onnx/ort_module.mjs';

export * from 'onnxruntime-web/all';

const shaped = ortModule(ort);

/** gridsample's split session: `create(model, options)` as onnxruntime's, with `handler.dispose()`. */
export const { InferenceSession } = shaped;
export default shaped;
