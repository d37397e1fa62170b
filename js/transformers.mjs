// gridsample/transformers: importing it, before @huggingface/transformers, makes transformers.js in Node.js and Deno run its models on gridsample's split session over onnxruntime-node.
//
// transformers.js reads one hook once, when it is first imported: an onnxruntime module at
// globalThis[Symbol.for('onnxruntime')]. This module sets it to onnxruntime-node's module with
// gridsample's InferenceSession (onnx/ort_module.mjs). With the hook set, transformers.js 3.x and 4.x
// list no devices of their own, so `device: 'cpu'` (their default in Node) is refused:
// pass `device: 'auto'` until that is fixed upstream.
import { createRequire } from 'node:module';

import { requireOptional } from './core/optional_package.mjs';
import { ortModule } from './onnx/ort_module.mjs';

const HOOK = Symbol.for('onnxruntime');

// The onnxruntime-node transformers.js itself imports (3.8 pins 1.21.0, which npm may nest
// below it): a second copy of onnxruntime-node in the process would fail to load its native
// library (`version 'VERS_1.21.0' not found`). Without transformers.js, the one beside us.
function onnxruntimeNode() {
  const here = createRequire(import.meta.url);
  let from = here;
  try {
    from = createRequire(here.resolve('@huggingface/transformers'));
  } catch {
    // transformers.js is not installed beside us: onnxruntime-node is looked up from here.
  }
  return requireOptional(from, 'onnxruntime-node', 'gridsample/transformers');
}

// A module the JS runtime (or another library) put there first is the onnxruntime to wrap.
const ort = ortModule(globalThis[HOOK] ?? onnxruntimeNode());
globalThis[HOOK] = ort;

/** The module transformers.js now uses: onnxruntime-node's, with gridsample's InferenceSession. */
export default ort;
export const { InferenceSession, Tensor, env } = ort;
